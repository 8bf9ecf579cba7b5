//! The catalogue of candidate terms: groups of evaluation features that gradtune computes from
//! any position's board, independent of any engine, so that `tune discover` can ask of an
//! engine's evaluation (or of gradtune's own models) which groups it lacks and what each would
//! be worth.
//!
//! A [`Group`] is a named family of *elements* (a knight table's 64 squares, a mobility table's
//! move counts, ...). Each element is a tapered middlegame/endgame pair of weights; in a
//! position it has a count for White and a count for Black ([`Count`]). The group's
//! contribution to a score from White's point of view is
//!
//! ```text
//! sum over elements e of (white_e - black_e) * (mg_e * rho + eg_e * (1 - rho))
//! ```
//!
//! with `rho = taper(pos)`, the middlegame's share of the position ([`taper`]: gradtune's
//! `psqt` phase, `min(phase, 24) / 24` with piece weights 0, 1, 1, 2, 4).
//!
//! Every group is defined in the repository's `docs/catalogue.md`, each with a board and its
//! counts (the hand-checked examples of `crates/eval/tests/it/catalogue.rs`); where a
//! group is one of the `full` model's, its counts come from the very extraction the `full`
//! model runs (one place a term lives).
//!
//! The groups, by family (one module each):
//!
//! * `shared`: `full`'s terms (piece tables, mobility, pawn structure, bishop pair, files,
//!   threats, outposts, rook on the seventh, tempo) and linear versions of its king-danger
//!   inputs, through a sink on `full`'s own extraction;
//! * `king_relative`: a pawn table seen from the own king's wing, pieces by distance to the
//!   enemy king and to their own;
//! * `pawn_structure`: pawn islands, candidate passers, connected passers;
//! * `passer_race`: passed pawns against the enemy king (the rule of the square);
//! * `imbalance`: products of piece counts;
//! * `space`: safe squares behind the pawns;
//! * `king_attack`: safe checks.
//!
//! ```
//! use eval::catalogue::{self, Count};
//! use shakmaty::Chess;
//!
//! let knights = catalogue::find("knight_table").unwrap();
//! let mut counts = Vec::new();
//! knights.counts(&Chess::default(), &mut counts);
//! // b1 and g1 for White; b8 and g8 for Black, mirrored to b1 and g1.
//! assert_eq!(counts, vec![
//!     Count { element: 1, white: 1, black: 1 },
//!     Count { element: 6, white: 1, black: 1 },
//! ]);
//! assert_eq!(knights.elements[1], "b1");
//! ```

mod imbalance;
mod king_attack;
mod king_relative;
mod passer_race;
mod pawn_structure;
mod shared;
mod space;

use std::sync::OnceLock;

use shakmaty::{Chess, Color, Position, Square};

/// One element's counts in a position: how many times the feature occurs for White and for
/// Black (Black's squares mirrored vertically, so that both sides share one table).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    /// The element's index in [`Group::elements`].
    pub element: u32,
    /// White's count.
    pub white: i32,
    /// Black's count.
    pub black: i32,
}

impl Count {
    /// White's count less Black's: the element's coefficient from White's point of view.
    pub fn net(&self) -> i32 {
        self.white - self.black
    }
}

/// A group of candidate terms.
pub struct Group {
    /// The group's name (`knight_table`, `mobility_knight`, ...): what a manifest's parameter
    /// declares to be a port of it.
    pub name: &'static str,
    /// One line for people.
    pub summary: &'static str,
    /// The elements' names, in index order (`b1`, `3`, `rank5`, ...).
    pub elements: Vec<String>,
    /// The `full` model's group whose extraction it shares, if any.
    pub full_group: Option<&'static str>,
    /// The counts of a position, into the list (cleared first).
    extract: fn(&Chess, &mut Vec<Count>),
}

impl std::fmt::Debug for Group {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Group")
            .field("name", &self.name)
            .field("elements", &self.elements.len())
            .field("full_group", &self.full_group)
            .finish()
    }
}

impl Group {
    /// The counts of `pos`: every element with a nonzero count for either side, in increasing
    /// element order, each element once. `out` is cleared first.
    pub fn counts(&self, pos: &Chess, out: &mut Vec<Count>) {
        out.clear();
        (self.extract)(pos, out);
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.elements.len()
    }

    /// Whether the group has no element (never, for the catalogue's groups).
    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }
}

/// The middlegame's share of `pos`, `min(phase, 24) / 24` with the phase the sum over both
/// sides' pieces of 0, 1, 1, 2, 4 (pawn .. queen): 1 at the start, 0 with only kings and pawns.
pub fn taper(pos: &Chess) -> f64 {
    let board = pos.board();
    let phase = board.knights().count()
        + board.bishops().count()
        + 2 * board.rooks().count()
        + 4 * board.queens().count();
    phase.min(24) as f64 / 24.0
}

/// Every group of the catalogue, in a fixed order.
pub fn groups() -> &'static [Group] {
    static GROUPS: OnceLock<Vec<Group>> = OnceLock::new();
    GROUPS.get_or_init(build)
}

/// The group called `name`.
pub fn find(name: &str) -> Option<&'static Group> {
    groups().iter().find(|g| g.name == name)
}

/// The indices of the set bits of `bb`, lowest first.
fn bits(mut bb: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let i = bb.trailing_zeros() as usize;
        // `i` is 64 once no bit is left.
        (bb != 0).then(|| {
            bb &= bb - 1;
            i
        })
    })
}

/// `color`'s count `n` of `element` (the other side's 0).
fn side(color: Color, element: u32, n: i32) -> Count {
    match color {
        Color::White => Count {
            element,
            white: n,
            black: 0,
        },
        Color::Black => Count {
            element,
            white: 0,
            black: n,
        },
    }
}

/// Sorts `out` by element and merges repeated elements: the form [`Group::counts`] promises.
fn normalise(out: &mut Vec<Count>) {
    out.sort_unstable_by_key(|c| c.element);
    out.dedup_by(|next, kept| {
        if next.element == kept.element {
            kept.white += next.white;
            kept.black += next.black;
            true
        } else {
            false
        }
    });
    out.retain(|c| c.white != 0 || c.black != 0);
}

/// The 64 squares' names, a1 .. h8.
fn square_names() -> Vec<String> {
    Square::ALL.iter().map(|s| s.to_string()).collect()
}

/// The catalogue's groups, family by family.
fn build() -> Vec<Group> {
    [
        shared::tables(),
        shared::mobility(),
        shared::pawns(),
        shared::pieces(),
        shared::king_danger(),
        king_relative::groups(),
        pawn_structure::groups(),
        passer_race::groups(),
        imbalance::groups(),
        space::groups(),
        king_attack::groups(),
    ]
    .into_iter()
    .flatten()
    .collect()
}
