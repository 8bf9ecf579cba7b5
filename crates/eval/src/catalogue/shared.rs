//! The groups shared with the `full` model: their counts come from `full`'s own extraction
//! (`terms::extract_full`, or for the tables `psqt_terms`), through a sink that keeps one
//! parameter range and turns each contribution into a side's count. One place a term lives:
//! nothing here recomputes what a term of `full` computes.
//!
//! Every term of `full` hands each colour's features over in calls of their own, White's with a
//! positive coefficient and Black's with a negative one, each a non-negative count (or, for
//! `pawns.passed.king_distance`, a non-negative distance) times `sign(color)`; so a positive
//! contribution is White's count and a negative one Black's (the tests check the counts
//! against `full`'s gradient, under the colour flip, and that both sides do count one element
//! in some position, which a difference handed over in one call never would). The king-danger
//! inputs come per king instead ([`Sink::danger`]'s `side`), credited to the attacker or to the
//! king's own side. Material is left out: `psqt_terms` hands it
//! over as White's count less Black's in one call, and every evaluation has it anyway. The
//! phase weights are not a score term.

use std::sync::OnceLock;

use shakmaty::{Chess, Color, Position};

use super::group::{normalise, side, Count, Group};
use crate::features::Sink;
use crate::param_info::ParamInfo;
use crate::terms::mobility::MOBILITY_MAX;
use crate::terms::psqt::psqt_terms;
use crate::terms::{self, extract_full, FullLayout, ParamBuilder};

/// `full`'s layout and parameters, built once.
struct Full {
    layout: FullLayout,
    params: Vec<ParamInfo>,
}

/// `full`'s layout and parameter list.
fn full() -> &'static Full {
    static FULL: OnceLock<Full> = OnceLock::new();
    FULL.get_or_init(|| {
        // What `params::build(ModelKind::Full)` does, keeping the layout's type.
        let mut b = ParamBuilder::default();
        let layout = terms::declare(&mut b);
        let (params, _) = b.finish();
        Full { layout, params }
    })
}

/// A run of `full`'s parameters that is one group: element `e`'s middlegame parameter is
/// `first + stride * e`, `e < len` (stride 2 for tapered pairs, 1 inside a piece-square table,
/// whose endgame half follows the middlegame one).
#[derive(Clone, Copy, Debug)]
struct Range {
    first: u32,
    len: u32,
    stride: u32,
}

impl Range {
    /// The element of middlegame parameter `mg`, if it is in the range.
    #[inline(always)]
    fn element(&self, mg: u32) -> Option<u32> {
        let offset = mg.checked_sub(self.first)?;
        (offset % self.stride == 0 && offset / self.stride < self.len)
            .then_some(offset / self.stride)
    }
}

/// The count of one contribution: a positive coefficient is White's count, a negative one
/// Black's (see the module's doc).
fn count(element: u32, c: f64) -> Count {
    let color = if c > 0.0 { Color::White } else { Color::Black };
    side(color, element, c.abs().round() as i32)
}

/// A sink that keeps the middlegame terms of one [`Range`] as counts.
struct Keep<'a> {
    range: Range,
    out: &'a mut Vec<Count>,
}

impl Sink for Keep<'_> {
    #[inline(always)]
    fn pair2(&mut self, mg: u32, _eg: u32, c: f64) {
        if c != 0.0 {
            if let Some(e) = self.range.element(mg) {
                self.out.push(count(e, c));
            }
        }
    }

    #[inline(always)]
    fn danger(&mut self, _: usize, _: u32, _: f64) {}

    #[inline(always)]
    fn phase(&mut self, _: u32, _: f64) {}
}

/// A sink that keeps the king-danger inputs of one [`Range`] (stride 1) as counts, each
/// credited to the attacking side (`attacker`: the enemy of the king in danger) or to the
/// king's own side.
struct KeepDanger<'a> {
    range: Range,
    attacker: bool,
    out: &'a mut Vec<Count>,
}

impl Sink for KeepDanger<'_> {
    #[inline(always)]
    fn pair2(&mut self, _: u32, _: u32, _: f64) {}

    #[inline(always)]
    fn danger(&mut self, side: usize, index: u32, c: f64) {
        if c == 0.0 {
            return;
        }
        if let Some(e) = self.range.element(index) {
            // `side` 0 is White's king; the count is the attacker's or the king's side.
            let color = if (side == 0) != self.attacker {
                Color::White
            } else {
                Color::Black
            };
            self.out
                .push(super::group::side(color, e, c.round() as i32));
        }
    }

    #[inline(always)]
    fn phase(&mut self, _: u32, _: f64) {}
}

/// The counts of one range of `full`'s pairs, from its whole extraction.
fn pairs(pos: &Chess, out: &mut Vec<Count>, range: fn(&FullLayout) -> Range) {
    let full = full();
    let mut sink = Keep {
        range: range(&full.layout),
        out,
    };
    extract_full(pos, &full.layout, &mut sink);
    normalise(out);
}

/// The counts of one range of `full`'s king-danger inputs, as linear counts.
fn danger(pos: &Chess, out: &mut Vec<Count>, attacker: bool, range: fn(&FullLayout) -> Range) {
    let full = full();
    let mut sink = KeepDanger {
        range: range(&full.layout),
        attacker,
        out,
    };
    extract_full(pos, &full.layout, &mut sink);
    normalise(out);
}

/// The piece-square table of role `r` (pawn 0 .. king 5), from the terms `full` and `psqt`
/// share (`psqt_terms`), without the rest of the extraction.
fn table(pos: &Chess, out: &mut Vec<Count>, r: u32) {
    let range = table_range(&full().layout, r);
    psqt_terms(pos.board(), &full().layout.psqt, |mg, _, c| {
        if let Some(e) = range.element(mg) {
            out.push(count(e, c));
        }
    });
    normalise(out);
}

/// The middlegame half of role `r`'s table.
fn table_range(layout: &FullLayout, r: u32) -> Range {
    Range {
        first: layout.psqt.pst + 128 * r,
        len: 64,
        stride: 1,
    }
}

/// A range of `len` tapered pairs from `first`.
fn run(first: u32, len: usize) -> Range {
    Range {
        first,
        len: len as u32,
        stride: 2,
    }
}

/// A range of `len` single parameters (king-danger inputs) from `first`.
fn inputs(first: u32, len: u32) -> Range {
    Range {
        first,
        len,
        stride: 1,
    }
}

/// The elements' names: each middlegame parameter's name less `prefix` and the phase suffix.
fn names(range: fn(&FullLayout) -> Range, prefix: &str) -> Vec<String> {
    let full = full();
    let r = range(&full.layout);
    (0..r.len)
        .map(|e| {
            let name = full
                .params
                .get((r.first + r.stride * e) as usize)
                .map_or("", |p| p.name.as_str());
            let name = name.strip_prefix(prefix).unwrap_or(name);
            name.strip_suffix(".mg").unwrap_or(name).to_string()
        })
        .collect()
}

/// A group made of a range of `full`'s pairs.
fn pair_group(
    name: &'static str,
    summary: &'static str,
    full_group: &'static str,
    range: fn(&FullLayout) -> Range,
    prefix: &str,
    extract: fn(&Chess, &mut Vec<Count>),
) -> Group {
    Group {
        name,
        summary,
        elements: names(range, prefix),
        full_group: Some(full_group),
        extract,
    }
}

/// The six piece-square tables, `full`'s `pst` group (Black's squares mirrored).
pub(super) fn tables() -> Vec<Group> {
    macro_rules! table {
        ($name:literal, $r:literal, $what:literal) => {
            Group {
                name: $name,
                summary: concat!("a full 64-square table for ", $what, " (Black's mirrored)"),
                elements: super::group::square_names(),
                full_group: Some("pst"),
                extract: |pos, out| table(pos, out, $r),
            }
        };
    }
    vec![
        table!("pawn_table", 0, "pawns"),
        table!("knight_table", 1, "knights"),
        table!("bishop_table", 2, "bishops"),
        table!("rook_table", 3, "rooks"),
        table!("queen_table", 4, "queens"),
        table!("king_table", 5, "the king"),
    ]
}

/// A group of `full`'s pairs: name, summary, `full` group, the range from the layout and the
/// prefix its parameters' names share.
macro_rules! pairs {
    ($name:literal, $summary:literal, $full:literal, $prefix:literal, |$l:ident| $range:expr) => {
        pair_group(
            $name,
            $summary,
            $full,
            |$l| $range,
            $prefix,
            |pos, out| pairs(pos, out, |$l| $range),
        )
    };
}

/// A linear group of `full`'s king-danger inputs (not `full`'s group: `full` feeds them to a
/// non-linear head), credited to the attacker or to the king's side.
macro_rules! danger {
    ($name:literal, $summary:literal, $attacker:literal, $prefix:literal, |$l:ident| $range:expr) => {
        Group {
            name: $name,
            summary: $summary,
            elements: names(|$l| $range, $prefix),
            full_group: None,
            extract: |pos, out| danger(pos, out, $attacker, |$l| $range),
        }
    };
}

/// The mobility tables, one group per piece (`full`'s `mobility`): per piece, its number of
/// moves to squares neither held by own pieces nor attacked by enemy pawns.
pub(super) fn mobility() -> Vec<Group> {
    vec![
        pairs!(
            "mobility_knight",
            "knights by number of safe moves (0-8)",
            "mobility",
            "mobility.knight.",
            |l| run(l.mobility[0], MOBILITY_MAX[0] + 1)
        ),
        pairs!(
            "mobility_bishop",
            "bishops by number of safe moves (0-13)",
            "mobility",
            "mobility.bishop.",
            |l| run(l.mobility[1], MOBILITY_MAX[1] + 1)
        ),
        pairs!(
            "mobility_rook",
            "rooks by number of safe moves (0-14)",
            "mobility",
            "mobility.rook.",
            |l| run(l.mobility[2], MOBILITY_MAX[2] + 1)
        ),
        pairs!(
            "mobility_queen",
            "queens by number of safe moves (0-27)",
            "mobility",
            "mobility.queen.",
            |l| run(l.mobility[3], MOBILITY_MAX[3] + 1)
        ),
    ]
}

/// The pawn-structure groups of `full`'s `pawns`.
pub(super) fn pawns() -> Vec<Group> {
    vec![
        pairs!(
            "pawn_weaknesses",
            "doubled (per extra pawn on a file), isolated and backward pawns",
            "pawns",
            "pawns.",
            |l| run(l.pawns.doubled, 3)
        ),
        pairs!(
            "connected_pawns",
            "pawns defended by a pawn or beside one, by relative rank",
            "pawns",
            "pawns.connected.",
            |l| run(l.pawns.connected, 6)
        ),
        pairs!(
            "passed_pawns",
            "passed pawns by relative rank",
            "pawns",
            "pawns.passed.",
            |l| run(l.pawns.passed, 6)
        ),
        pairs!(
            "passed_free_path",
            "passed pawns with nothing in front of them, by relative rank",
            "pawns",
            "pawns.passed.free_path.",
            |l| run(l.pawns.free_path, 6)
        ),
        pairs!(
            "passed_king_distance",
            "per passed pawn, the own and the enemy king's distance to its stop square",
            "pawns",
            "pawns.passed.king_distance.",
            |l| run(l.pawns.king_dist_own, 2)
        ),
    ]
}

/// The piece groups of `full`'s `pieces` and of the terms after it.
pub(super) fn pieces() -> Vec<Group> {
    vec![
        pairs!(
            "bishop_pair",
            "two bishops or more",
            "pieces",
            "pieces.",
            |l| run(l.pieces.bishop_pair, 1)
        ),
        pairs!(
            "rook_files",
            "rooks on open and on half-open files",
            "pieces",
            "pieces.rook.",
            |l| run(l.pieces.files, 2)
        ),
        pairs!(
            "queen_files",
            "queens on open and on half-open files",
            "pieces",
            "pieces.queen.",
            |l| run(l.pieces.files + 4, 2)
        ),
        pairs!(
            "threats",
            "enemy pieces attacked by cheaper ones or hanging, by side to move",
            "threats",
            "threats.",
            |l| run(l.threats, 16)
        ),
        pairs!(
            "push_threats",
            "enemy pieces a safe pawn push would attack, by side to move",
            "push_threats",
            "push_threats.",
            |l| run(l.push_threats, 2)
        ),
        pairs!(
            "outposts",
            "knights and bishops on pawn-defended squares no enemy pawn can attack",
            "outposts",
            "outposts.",
            |l| run(l.outposts, 2)
        ),
        pairs!(
            "rook_on_seventh",
            "rooks on the 7th with the enemy king on the 8th or pawns on the 7th",
            "rook_on_seventh",
            "",
            |l| run(l.rook_on_seventh, 1)
        ),
        pairs!("tempo", "the side to move", "tempo", "", |l| run(
            l.tempo, 1
        )),
    ]
}

/// Linear versions of `full`'s king-danger inputs (new definitions: `full` combines them
/// non-linearly).
pub(super) fn king_danger() -> Vec<Group> {
    vec![
        danger!(
            "king_zone_attacks",
            "attacks on the enemy king's square and its neighbours, per attacking piece kind",
            true,
            "king_safety.attack.",
            |l| inputs(l.pieces.ks_attack, 4)
        ),
        danger!(
            "king_check_squares",
            "squares from which a piece could check the enemy king and that it attacks",
            true,
            "king_safety.check.",
            |l| inputs(l.pieces.ks_check, 4)
        ),
        danger!(
            "king_shelter",
            "files at the own king without an own pawn in front of it, and without any pawn",
            false,
            "king_safety.",
            |l| inputs(l.pieces.ks_extra, 2)
        ),
    ]
}
