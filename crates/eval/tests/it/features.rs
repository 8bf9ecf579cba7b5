//! Hand-checked feature counts of the `full` model.
//!
//! At the default weights every term except material is 0 and the king-safety penalty has slope
//! 1, so the gradient with respect to a linear parameter is its count (White's minus Black's)
//! times the phase fraction of its half (`f` for `.mg`, `1 - f` for `.eg`), where
//! `f = min(sum of default phase weights over the pieces, 24) / 24`. Counts below were worked
//! out by hand from the diagrams; comparisons are within 1e-12.

use crate::common;

use eval::{Model, ModelKind};
use shakmaty::{Chess, Position};
use tape::Tape;

pub(crate) fn gradient(model: &Model, pos: &Chess) -> Vec<f64> {
    let w = model.default_weights();
    let mut tape = Tape::new();
    tape.record(|rec| {
        let vars = rec.inputs(&w);
        let y = model.evaluate(pos, &vars);
        let mut g = vec![0.0; model.len()];
        rec.gradient(y, &mut g);
        g
    })
}

fn mg_fraction(pos: &Chess) -> f64 {
    let b = pos.board();
    let phase =
        b.knights().count() + b.bishops().count() + 2 * b.rooks().count() + 4 * b.queens().count();
    (phase.min(24) as f64) / 24.0
}

/// Asserts the count of each named feature (without `.mg`/`.eg` for pairs) in `pos`, and that
/// every other parameter of `groups` has count 0.
fn check(fen: &str, groups: &[&str], expected: &[(&str, f64)]) {
    let model = Model::new(ModelKind::Full);
    let pos = common::parse_fen(fen);
    let g = gradient(&model, &pos);
    let f = mg_fraction(&pos);
    for (i, p) in model.params().iter().enumerate() {
        if !groups.contains(&p.group.as_str()) {
            continue;
        }
        let (base, scale) = if let Some(b) = p.name.strip_suffix(".mg") {
            (b, f)
        } else if let Some(b) = p.name.strip_suffix(".eg") {
            (b, 1.0 - f)
        } else {
            // king-safety inputs act on the middlegame only
            (p.name.as_str(), f)
        };
        let count = expected
            .iter()
            .find(|(n, _)| *n == base)
            .map_or(0.0, |(_, c)| *c);
        assert!(
            (g[i] - count * scale).abs() < 1e-12,
            "{fen}: d eval / d {} = {}, expected count {count} x {scale}",
            p.name,
            g[i]
        );
    }
}

#[test]
fn pawn_structure() {
    // White: Ke1, pawns c2 c3 (doubled, both isolated; c3 passed with a free path).
    check(
        "4k3/8/8/8/8/2P5/2P5/4K3 w - - 0 1",
        &["pawns"],
        &[
            ("pawns.doubled", 1.0),
            ("pawns.isolated", 2.0),
            ("pawns.passed.rank3", 1.0),
            ("pawns.passed.free_path.rank3", 1.0),
            // stop square c4: own king e1 is 3 away, enemy king e8 is 4 away
            ("pawns.passed.king_distance.own", 3.0),
            ("pawns.passed.king_distance.enemy", 4.0),
        ],
    );
    // Tripled: c2 c3 c4 count 2 doubled and 3 isolated; only c4 is passed (stop square c5:
    // 4 from Ke1, 3 from Ke8).
    check(
        "4k3/8/8/8/2P5/2P5/2P5/4K3 w - - 0 1",
        &["pawns"],
        &[
            ("pawns.doubled", 2.0),
            ("pawns.isolated", 3.0),
            ("pawns.passed.rank4", 1.0),
            ("pawns.passed.free_path.rank4", 1.0),
            ("pawns.passed.king_distance.own", 4.0),
            ("pawns.passed.king_distance.enemy", 3.0),
        ],
    );
    // White d4 e4 (a phalanx: both connected on rank 4); Black e5 blocks e4, and guards d4's
    // path, so neither is passed. Black's e5 has no neighbour: isolated (so not backward).
    check(
        "4k3/8/8/4p3/3PP3/8/8/4K3 w - - 0 1",
        &["pawns"],
        &[("pawns.connected.rank4", 2.0), ("pawns.isolated", -1.0)],
    );
    // White d3 e4, Black c5. d3 is backward: its neighbour e4 is ahead of it and its stop
    // square d4 is attacked by c5. d3 supports e4 (connected, rank 4). e4 is passed with a free
    // path (nothing on e5-e8; the black king is on a8); its stop square e5 is 4 from either
    // king. Black's c5 is isolated, and not passed (d3 is ahead of it on an adjacent file).
    check(
        "k7/8/8/2p5/4P3/3P4/8/4K3 w - - 0 1",
        &["pawns"],
        &[
            ("pawns.backward", 1.0),
            ("pawns.connected.rank4", 1.0),
            ("pawns.isolated", -1.0),
            ("pawns.passed.rank4", 1.0),
            ("pawns.passed.free_path.rank4", 1.0),
            ("pawns.passed.king_distance.own", 4.0),
            ("pawns.passed.king_distance.enemy", 4.0),
        ],
    );
}

#[test]
fn pieces_and_files() {
    // White: Ra1 (a-file half open: black a7), bishops c1 d1 (pair), Rh1 (h-file open), g2.
    check(
        "4k3/pp6/8/8/8/8/6P1/R1BBK2R w - - 0 1",
        &["pieces"],
        &[
            ("pieces.bishop_pair", 1.0),
            ("pieces.rook.open_file", 1.0),
            ("pieces.rook.half_open_file", 1.0),
        ],
    );
}

#[test]
fn mobility() {
    // Knight a1 reaches b3 and c2; with a black pawn on a4 guarding b3, only c2 counts.
    check(
        "4k3/8/8/8/8/8/8/N3K3 w - - 0 1",
        &["mobility"],
        &[("mobility.knight.2", 1.0)],
    );
    check(
        "4k3/8/8/8/p7/8/8/N3K3 w - - 0 1",
        &["mobility"],
        &[("mobility.knight.1", 1.0)],
    );
    // Rook a1 with the white king on e1: b1 c1 d1 and a2..a8 = 10 moves.
    check(
        "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
        &["mobility"],
        &[("mobility.rook.10", 1.0)],
    );
}

#[test]
fn king_safety() {
    // Black queen f2 next to the white king g1 (White to move, in check).
    // Zone of g1: {f1, f2, g1, g2, h1, h2}; the queen attacks f1, g1, g2, h2 of it: 4.
    // Checking squares of g1 the queen attacks: f1, e1, g2, g3, h2: 5.
    // Both kings have no pawns on their three files: shelter_missing 3 and open_file 3 each,
    // so those cancel.
    check(
        "4k3/8/8/8/8/8/5q2/6K1 w - - 0 1",
        &["king_safety"],
        &[
            ("king_safety.attack.queen", -4.0),
            ("king_safety.check.queen", -5.0),
        ],
    );
    // A pawn shield for White only: f2 g2 h2 in front of Kg1; Black's king has none.
    check(
        "6k1/8/8/8/8/8/5PPP/6K1 w - - 0 1",
        &["king_safety"],
        &[
            ("king_safety.shelter_missing", 3.0),
            ("king_safety.open_file", 3.0),
        ],
    );
}

#[test]
fn threats() {
    // White: Ke1, Ra1, Pe4; Black: Ke8, Qa8, Nd5. The pawn attacks the knight, the rook the
    // queen (the a-file is open); the queen is not defended (the king is too far), the knight
    // is (by the queen, along a8-d5). Black's queen attacks the rook, which nothing defends:
    // a hanging piece of White's, counted on Black's side.
    let fen = "q3k3/8/8/3n4/4P3/8/8/R3K3";
    check(
        &format!("{fen} w - - 0 1"),
        &["threats"],
        &[
            ("threats.to_move.pawn_on_knight", 1.0),
            ("threats.to_move.rook_on_queen", 1.0),
            ("threats.to_move.hanging", 1.0),
            ("threats.waiting.hanging", -1.0),
        ],
    );
    // The same position with Black to move: the same counts on the other side's weights.
    check(
        &format!("{fen} b - - 0 1"),
        &["threats"],
        &[
            ("threats.waiting.pawn_on_knight", 1.0),
            ("threats.waiting.rook_on_queen", 1.0),
            ("threats.waiting.hanging", 1.0),
            ("threats.to_move.hanging", -1.0),
        ],
    );
    // A knight on d3 attacks the rook on b4, which nothing defends; the rook attacks nothing
    // of White's (the knight is off its lines).
    check(
        "4k3/8/8/8/1r6/3N4/8/4K3 w - - 0 1",
        &["threats"],
        &[
            ("threats.to_move.minor_on_rook", 1.0),
            ("threats.to_move.hanging", 1.0),
        ],
    );
    // A bishop on c4 attacks the queen on f7, defended by its king: attacked by a minor, not
    // hanging; the queen attacks the bishop, defended by the pawn on b3: nothing for Black.
    check(
        "4k3/5q2/8/8/2B5/1P6/8/4K3 b - - 0 1",
        &["threats"],
        &[("threats.waiting.minor_on_queen", 1.0)],
    );
}

#[test]
fn push_threats() {
    // White pawns d4, e4; Black knight d6, bishop f6. e4-e5 attacks both: e5 is attacked by the
    // bishop and defended by the pawn on d4, so the push is safe. d4-d5 attacks nothing.
    let fen = "4k3/8/3n1b2/8/3PP3/8/8/4K3";
    check(
        &format!("{fen} w - - 0 1"),
        &["push_threats"],
        &[("push_threats.to_move", 2.0)],
    );
    check(
        &format!("{fen} b - - 0 1"),
        &["push_threats"],
        &[("push_threats.waiting", 2.0)],
    );
    // Without the pawn on d4, e5 is attacked by the bishop and not defended: not safe.
    check(
        "4k3/8/3n1b2/8/4P3/8/8/4K3 w - - 0 1",
        &["push_threats"],
        &[],
    );
    // A pawn on f6 instead of the bishop attacks e5: not safe; the pawn is no target either.
    check(
        "4k3/8/3n1p2/8/4P3/8/8/4K3 w - - 0 1",
        &["push_threats"],
        &[],
    );
    // A double push: c2-c4 attacks the rook on b5 ...
    check(
        "4k3/8/8/1r6/8/8/2P5/4K3 w - - 0 1",
        &["push_threats"],
        &[("push_threats.to_move", 1.0)],
    );
    // ... not through a piece on c3.
    check(
        "4k3/8/8/1r6/8/2N5/2P5/4K3 w - - 0 1",
        &["push_threats"],
        &[],
    );
    // Black's: e5-e4 attacks the knight on d3 and the bishop on f3 (e4 attacked by the bishop,
    // defended by the pawn on d5).
    check(
        "4k3/8/8/3pp3/8/3N1B2/8/4K3 b - - 0 1",
        &["push_threats"],
        &[("push_threats.to_move", -2.0)],
    );
    // A push that would attack the king counts nothing.
    check("8/8/3k4/8/3PP3/8/8/4K3 w - - 0 1", &["push_threats"], &[]);
}

#[test]
fn outposts() {
    // A knight on d5 defended by the pawn on e4, no Black pawn that could ever attack it.
    check(
        "4k3/8/8/3N4/4P3/8/8/4K3 w - - 0 1",
        &["outposts"],
        &[("outposts.knight", 1.0)],
    );
    // A pawn on c7 can come to c6: no outpost.
    check("4k3/2p5/8/3N4/4P3/8/8/4K3 w - - 0 1", &["outposts"], &[]);
    // A pawn on c4 is past it: still one.
    check(
        "4k3/8/8/3N4/2p1P3/8/8/4K3 w - - 0 1",
        &["outposts"],
        &[("outposts.knight", 1.0)],
    );
    // Not defended by a pawn, or on White's own half, or on the seventh rank: none.
    check("4k3/8/8/3N4/8/8/8/4K3 w - - 0 1", &["outposts"], &[]);
    check("4k3/8/8/8/8/3N4/4P3/4K3 w - - 0 1", &["outposts"], &[]);
    check("8/3N3k/4P3/8/8/8/8/4K3 w - - 0 1", &["outposts"], &[]);
    // A bishop on f5 defended by the pawn on e4.
    check(
        "4k3/8/8/5B2/4P3/8/8/4K3 w - - 0 1",
        &["outposts"],
        &[("outposts.bishop", 1.0)],
    );
    // Black's knight on e4, defended by the pawn on d5, with no White pawn on d2, d3, f2, f3.
    check(
        "4k3/8/8/3p4/4n3/8/8/4K3 w - - 0 1",
        &["outposts"],
        &[("outposts.knight", -1.0)],
    );
}

#[test]
fn tempo() {
    check(
        "4k3/8/8/8/8/8/8/4K2R w - - 0 1",
        &["tempo"],
        &[("tempo", 1.0)],
    );
    check(
        "4k3/8/8/8/8/8/8/4K2R b - - 0 1",
        &["tempo"],
        &[("tempo", -1.0)],
    );
}

#[test]
fn rook_on_seventh() {
    let g = &["rook_on_seventh"];
    // A rook on its 7th rank with the enemy king on its 8th; two rooks count twice.
    check(
        "4k3/R7/8/8/8/8/8/4K3 w - - 0 1",
        g,
        &[("rook_on_seventh", 1.0)],
    );
    check(
        "4k3/RR6/8/8/8/8/8/4K3 w - - 0 1",
        g,
        &[("rook_on_seventh", 2.0)],
    );
    // The king off its back rank and no pawn on the 7th: nothing; an enemy pawn there counts.
    check("8/R7/5k2/8/8/8/8/4K3 w - - 0 1", g, &[]);
    check(
        "8/R4p2/5k2/8/8/8/8/4K3 w - - 0 1",
        g,
        &[("rook_on_seventh", 1.0)],
    );
    // A rook on the 6th, a queen on the 7th: nothing.
    check("4k3/8/R7/8/8/8/8/4K3 w - - 0 1", g, &[]);
    check("4k3/Q7/8/8/8/8/8/4K3 w - - 0 1", g, &[]);
    // Black's rook on its 7th (rank 2) with White's king on rank 1 counts for Black; a White
    // rook on its 7th beside Black's home pawns counts for White, and the two cancel; with
    // White's king off rank 1, only White's counts.
    check(
        "4k3/8/8/8/8/8/r7/4K3 w - - 0 1",
        g,
        &[("rook_on_seventh", -1.0)],
    );
    check(
        "6k1/R4ppp/8/8/8/8/r7/4K3 b - - 0 1",
        g,
        &[("rook_on_seventh", 0.0)],
    );
    check(
        "6k1/R4ppp/8/8/8/6K1/r7/8 b - - 0 1",
        g,
        &[("rook_on_seventh", 1.0)],
    );
}
