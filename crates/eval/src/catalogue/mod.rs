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

mod group;
mod imbalance;
mod king_attack;
mod king_relative;
mod passer_race;
mod pawn_structure;
mod shared;
mod space;

use std::sync::OnceLock;

use shakmaty::{Chess, Position};

pub use group::{Count, Group};

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
