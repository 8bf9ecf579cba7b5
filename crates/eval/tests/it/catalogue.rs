//! The catalogue of candidate terms (`eval::catalogue`): every group's counts on hand-checked
//! boards (the examples of `docs/catalogue.md`), the form `Group::counts` promises, colour
//! symmetry, and, for the groups shared with `full`, agreement with `full`'s own features.

use crate::common;

use eval::catalogue::{self, Count, Group};
use eval::{Model, ModelKind};
use shakmaty::{Chess, Position};

/// The positions the properties run over: 800 real ones and the hand-checked boards.
fn positions() -> Vec<Chess> {
    let mut v = common::positions().to_vec();
    v.extend(EXAMPLES.iter().map(|(_, fen, _)| common::parse_fen(fen)));
    v
}

fn counts(group: &Group, pos: &Chess) -> Vec<Count> {
    let mut out = vec![Count::default()]; // cleared by `counts`
    group.counts(pos, &mut out);
    out
}

#[test]
fn about_thirty_groups_with_unique_names_and_elements() {
    let groups = catalogue::groups();
    assert!(groups.len() >= 30, "{} groups", groups.len());
    for (i, g) in groups.iter().enumerate() {
        assert!(!g.is_empty(), "{}", g.name);
        assert!(!g.summary.is_empty(), "{}", g.name);
        assert!(
            groups[..i].iter().all(|h| h.name != g.name),
            "{} twice",
            g.name
        );
        assert!(std::ptr::eq(catalogue::find(g.name).unwrap(), g));
        for (j, e) in g.elements.iter().enumerate() {
            assert!(!e.is_empty(), "{}: element {j} has no name", g.name);
            assert!(
                !g.elements[..j].contains(e),
                "{}: element {e} twice",
                g.name
            );
        }
    }
    assert!(catalogue::find("no_such_group").is_none());
}

#[test]
fn counts_are_sorted_unique_in_range_and_nonzero() {
    let mut out = Vec::new();
    for pos in positions() {
        for g in catalogue::groups() {
            g.counts(&pos, &mut out);
            for (i, c) in out.iter().enumerate() {
                assert!((c.element as usize) < g.len(), "{}: {c:?}", g.name);
                assert!(c.white != 0 || c.black != 0, "{}: {c:?}", g.name);
                assert!(c.white >= 0 && c.black >= 0, "{}: {c:?}", g.name);
                if i > 0 {
                    assert!(out[i - 1].element < c.element, "{}: {out:?}", g.name);
                }
            }
        }
    }
}

#[test]
fn the_colour_flip_swaps_the_sides_counts() {
    for pos in positions() {
        let flipped = common::flip(&pos);
        for g in catalogue::groups() {
            let swapped: Vec<Count> = counts(g, &pos)
                .into_iter()
                .map(|c| Count {
                    element: c.element,
                    white: c.black,
                    black: c.white,
                })
                .collect();
            assert_eq!(
                counts(g, &flipped),
                swapped,
                "{}: {:?}",
                g.name,
                pos.board()
            );
        }
    }
}

/// The name of `full`'s middlegame parameter for element `e` of a shared group, and the sign
/// of its count in `full`'s gradient (a king's shelter is the king's own side's: it counts
/// against its side).
fn full_param(group: &str, e: &str) -> Option<(String, f64)> {
    let name = match group {
        _ if group.ends_with("_table") => {
            format!("pst.{}.mg.{e}", group.trim_end_matches("_table"))
        }
        _ if group.starts_with("mobility_") => {
            format!("mobility.{}.{e}.mg", group.trim_start_matches("mobility_"))
        }
        "pawn_weaknesses" => format!("pawns.{e}.mg"),
        "connected_pawns" => format!("pawns.connected.{e}.mg"),
        "passed_pawns" => format!("pawns.passed.{e}.mg"),
        "passed_free_path" => format!("pawns.passed.free_path.{e}.mg"),
        "passed_king_distance" => format!("pawns.passed.king_distance.{e}.mg"),
        "bishop_pair" => format!("pieces.{e}.mg"),
        "rook_files" => format!("pieces.rook.{e}.mg"),
        "queen_files" => format!("pieces.queen.{e}.mg"),
        "threats" | "push_threats" | "outposts" => format!("{group}.{e}.mg"),
        "rook_on_seventh" | "tempo" => format!("{e}.mg"),
        "king_zone_attacks" => format!("king_safety.attack.{e}"),
        "king_check_squares" => format!("king_safety.check.{e}"),
        "king_shelter" => return Some((format!("king_safety.{e}"), -1.0)),
        _ => return None,
    };
    Some((name, 1.0))
}

/// d eval / d w at `full`'s default weights: for a linear parameter, its count (White's less
/// Black's) times its phase's share, `rho` for `.mg`, `1 - rho` for `.eg`
/// (`tests/it/features.rs`).
fn gradient(model: &Model, pos: &Chess) -> Vec<f64> {
    crate::features::gradient(model, pos)
}

#[test]
fn shared_groups_count_what_full_counts() {
    let model = Model::new(ModelKind::Full);
    let shared: Vec<&Group> = catalogue::groups()
        .iter()
        .filter(|g| full_param(g.name, &g.elements[0]).is_some())
        .collect();
    for g in &shared {
        if let Some(full) = g.full_group {
            let (name, _) = full_param(g.name, &g.elements[0]).unwrap();
            assert_eq!(model.params()[model.index_of(&name).unwrap()].group, full);
        }
    }
    let mut seen = vec![0usize; shared.len()];
    for pos in common::epd_positions().iter().chain(&positions()) {
        let rho = catalogue::taper(pos);
        let grad = gradient(&model, pos);
        for (k, g) in shared.iter().enumerate() {
            let cs = counts(g, pos);
            seen[k] += cs.len();
            for (e, element) in g.elements.iter().enumerate() {
                let net = cs
                    .iter()
                    .find(|c| c.element as usize == e)
                    .map_or(0, Count::net);
                let (mg, sign) = full_param(g.name, element).unwrap();
                // A pair's endgame half too (king-danger inputs have none: middlegame only).
                let eg = mg.replace(".mg", ".eg");
                for (name, share) in [(&mg, rho), (&eg, 1.0 - rho)] {
                    if name == &eg && !mg.contains(".mg") {
                        continue;
                    }
                    let i = model.index_of(name).unwrap_or_else(|| panic!("no {name}"));
                    let want = sign * f64::from(net) * share;
                    assert!(
                        (grad[i] - want).abs() < 1e-9,
                        "{name}: {} vs {want}",
                        grad[i]
                    );
                }
            }
        }
    }
    for (g, n) in shared.iter().zip(seen) {
        assert!(n > 0, "{}: never counted anything", g.name);
    }
}

/// The shared groups read a side's count from the sign of each of `full`'s contributions,
/// which is right because every term of `full` hands each side's count over in a call of its
/// own (a term that handed over White's count less Black's, as material does, would give one
/// side the difference). Then some position must show both sides counting the same element;
/// it never could if the counts were differences. Except where an element is one side's by
/// definition: `tempo`, `threats` and `push_threats` (the side to move, the side waiting).
#[test]
fn shared_groups_count_each_side_apart() {
    let one_sided = ["tempo", "threats", "push_threats"];
    let mut positions = common::epd_positions();
    positions.extend(common::positions().iter().cloned());
    for g in catalogue::groups()
        .iter()
        .filter(|g| g.full_group.is_some())
    {
        if one_sided.contains(&g.name) {
            continue;
        }
        let both = positions
            .iter()
            .any(|pos| counts(g, pos).iter().any(|c| c.white > 0 && c.black > 0));
        assert!(
            both,
            "{}: no position where both sides count one element",
            g.name
        );
    }
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const TABLES: &str = "4k3/1p1q4/8/3b4/4B3/8/P4R2/4K3 w - - 0 1";
const SLIDERS: &str = "r3k3/8/8/8/8/8/8/B2QK2R w K - 0 1";
const PAWNS: &str = "k7/8/8/2p5/4P3/3P4/8/4K3 w - - 0 1";
const PIECES: &str = "1r2k3/p6R/8/1q6/8/8/1P6/2BBK1Q1 b - - 0 1";
const QUEEN_CHECK: &str = "4k3/8/8/8/8/8/5q2/6K1 w - - 0 1";

/// An element's expected counts: its name, White's, Black's.
type Expected = (&'static str, i32, i32);

/// Hand-checked boards, one or more per group: the group, the FEN, and every nonzero count as
/// `(element, White's, Black's)`. The same numbers are the examples of `docs/catalogue.md`.
const EXAMPLES: &[(&str, &str, &[Expected])] = &[
    // White Nb1, Ng1; Black Nb8, Ng8 mirrored to b1, g1.
    ("knight_table", START, &[("b1", 1, 1), ("g1", 1, 1)]),
    // The tables: White Ke1, Be4, Rf2, Pa2; Black Ke8, Qd7, Bd5, Pb7, mirrored to e1, d2, d4,
    // b2.
    ("pawn_table", TABLES, &[("a2", 1, 0), ("b2", 0, 1)]),
    ("bishop_table", TABLES, &[("d4", 0, 1), ("e4", 1, 0)]),
    ("rook_table", TABLES, &[("f2", 1, 0)]),
    ("queen_table", TABLES, &[("d2", 0, 1)]),
    ("king_table", TABLES, &[("e1", 1, 1)]),
    // Nb1: a3, d2 (c3 is attacked by the pawn on d4): 2. Ne5: d3 f3 c4 g4 c6 g6 d7 f7: 8.
    (
        "mobility_knight",
        "4k3/8/8/4n3/3p4/8/8/1N2K3 w - - 0 1",
        &[("2", 1, 0), ("8", 0, 1)],
    ),
    // Ba1: b2 .. h8, 7. Rh1: f1 g1, h2 .. h8, 9. Ra8: b8 c8 d8, a7 .. a1 (taking the
    // bishop), 10. Qd1: a4 b3 c2, b1 c1, d2 .. d8, e2 f3 g4 h5: 16.
    ("mobility_bishop", SLIDERS, &[("7", 1, 0)]),
    ("mobility_rook", SLIDERS, &[("9", 1, 0), ("10", 0, 1)]),
    ("mobility_queen", SLIDERS, &[("16", 1, 0)]),
    // White d3 e4, Black c5. d3 is backward (e4 is ahead of it, c5 attacks d4); c5 is
    // isolated. e4 is defended by d3 (connected) and passed (no black pawn on d5-f8), with a
    // free path; its stop square e5 is 4 from Ke1 and 4 from Ka8. d3 is not passed (c5 is on an
    // adjacent file ahead), nor c5 (d3).
    (
        "pawn_weaknesses",
        PAWNS,
        &[("isolated", 0, 1), ("backward", 1, 0)],
    ),
    ("connected_pawns", PAWNS, &[("rank4", 1, 0)]),
    ("passed_pawns", PAWNS, &[("rank4", 1, 0)]),
    ("passed_free_path", PAWNS, &[("rank4", 1, 0)]),
    (
        "passed_king_distance",
        PAWNS,
        &[("own", 4, 0), ("enemy", 4, 0)],
    ),
    // White Bc1 Bd1 (a pair); Rh7 on the seventh, with Black's a7 and Ke8 there, on the open
    // h-file; Qg1 on the open g-file. Black's Rb8 and Qb5 on the b-file, where only White's b2
    // stands: half-open. Black to move.
    ("bishop_pair", PIECES, &[("bishop_pair", 1, 0)]),
    (
        "rook_files",
        PIECES,
        &[("open_file", 1, 0), ("half_open_file", 0, 1)],
    ),
    (
        "queen_files",
        PIECES,
        &[("open_file", 1, 0), ("half_open_file", 0, 1)],
    ),
    ("rook_on_seventh", PIECES, &[("rook_on_seventh", 1, 0)]),
    ("tempo", PIECES, &[("tempo", 0, 1)]),
    // e4 attacks Nd5, Ra1 attacks Qa8 (undefended: hanging), White to move; Qa8 attacks the
    // undefended Ra1: hanging, Black waiting.
    (
        "threats",
        "q3k3/8/8/3n4/4P3/8/8/R3K3 w - - 0 1",
        &[
            ("to_move.pawn_on_knight", 1, 0),
            ("to_move.rook_on_queen", 1, 0),
            ("to_move.hanging", 1, 0),
            ("waiting.hanging", 0, 1),
        ],
    ),
    // Black to move: e5-e4 (defended by d5) would attack Nd3 and Bf3.
    (
        "push_threats",
        "4k3/8/8/3pp3/8/3N1B2/8/4K3 b - - 0 1",
        &[("to_move", 0, 2)],
    ),
    // Bf5 defended by e4, no black pawn on e6-e8 or g6-g8; Nd4 defended by c5, no white pawn
    // on c1-c3 or e1-e3.
    (
        "outposts",
        "4k3/8/8/2p2B2/3nP3/8/8/4K3 w - - 0 1",
        &[("knight", 0, 1), ("bishop", 1, 0)],
    ),
    // Qf2 against Kg1: of the zone f1 f2 g1 g2 h1 h2 it attacks f1 g1 g2 h2 (4); of g1's
    // checking squares it attacks f1 e1 g2 g3 h2 (5).
    ("king_zone_attacks", QUEEN_CHECK, &[("queen", 0, 4)]),
    ("king_check_squares", QUEEN_CHECK, &[("queen", 0, 5)]),
    // Kg1 behind f2 g2 h2: nothing missing, no open file; Kg8 has no pawn in front of it on f,
    // g, h (3), which White's pawns stand on (not open).
    (
        "king_shelter",
        "6k1/8/8/8/8/8/5PPP/6K1 w - - 0 1",
        &[("shelter_missing", 0, 3)],
    ),
    // Kb1 is on the queen's wing: a2 b2 mirror to h2 g2. Kg8 is not: f7 g7 h7 are f2 g2 h2.
    (
        "pawn_table_king_wing",
        "6k1/5ppp/8/8/8/8/PP6/1K6 w - - 0 1",
        &[("f2", 0, 1), ("g2", 1, 1), ("h2", 1, 1)],
    ),
    // Na1 and Qd1 are 7 king steps from Ke8; Nc6 is 5 from Ke1.
    (
        "piece_enemy_king_distance",
        "4k3/8/2n5/8/8/8/8/N2QK3 w - - 0 1",
        &[("knight.5", 0, 1), ("knight.7", 1, 0), ("queen.7", 1, 0)],
    ),
    // Na1 is 4 from Ke1, Qd1 1; Nc6 is 2 from Ke8.
    (
        "piece_own_king_distance",
        "4k3/8/2n5/8/8/8/8/N2QK3 w - - 0 1",
        &[("knight.2", 0, 1), ("knight.4", 1, 0), ("queen.1", 1, 0)],
    ),
    // White a, c, e, g: 4 islands; Black a-b, d, f-h: 3.
    (
        "pawn_islands",
        "4k3/pp1p1ppp/8/8/8/8/P1P1P1P1/4K3 w - - 0 1",
        &[("3", 0, 1), ("4+", 1, 0)],
    ),
    // a4: nothing ahead on the a-file, not passed (b6), one helper (b4) for one sentry (b6).
    // g6: nothing on g5-g1, not passed (h2), one helper (h6) for one sentry (h2); its rank 3
    // from Black's side. b4, b6, h2, h6 are blocked on their files.
    (
        "candidate_passers",
        "4k3/8/1p4pp/8/PP6/8/7P/4K3 w - - 0 1",
        &[("rank3", 0, 1), ("rank4", 1, 0)],
    ),
    // White's passers c5 and d4, Black's f3 and g2 (its ranks 6 and 7): side by side.
    (
        "connected_passers",
        "4k3/8/8/2P5/3P4/5p2/6p1/4K3 w - - 0 1",
        &[
            ("rank4", 1, 0),
            ("rank5", 1, 0),
            ("rank6", 0, 1),
            ("rank7", 0, 1),
        ],
    ),
    // g2: 5 moves (double step); Kb6 is 5 from g8, Black not to move: margin 0. a3: 2 moves;
    // Ke1 is 4 from a1, less 1 (White to move): margin +1, outside the square.
    (
        "passer_race",
        "8/8/1k6/8/8/p7/6P1/4K3 w - - 0 1",
        &[("0", 1, 0), ("+1", 0, 1)],
    ),
    // White R, N, 2 pawns; Black B, 4 pawns.
    (
        "imbalance",
        "4kb2/pppp4/8/8/8/8/PP6/RN2K3 w - - 0 1",
        &[
            ("knight*pawn", 2, 0),
            ("bishop*pawn", 0, 4),
            ("rook*pawn", 2, 0),
            ("knight*rook", 1, 0),
            ("own_knight*enemy_pawn", 4, 0),
            ("own_bishop*enemy_pawn", 0, 2),
            ("own_rook*enemy_pawn", 4, 0),
            ("own_rook*enemy_minor", 1, 0),
        ],
    ),
    // White's area c2-f4, 12 squares, less its pawns c3 e4 and c4 (attacked by d5): 9; behind
    // c3 or e4: c2 e2 e3. Black's c5-f7 less d5 and f5 (attacked by e4): 10; behind d5: d6 d7.
    (
        "space",
        "4k3/8/8/3p4/4P3/2P5/8/4K3 w - - 0 1",
        &[("safe", 9, 10), ("behind_pawn", 3, 2)],
    ),
    // Ne4 reaches the checking squares d6 and f6 (g7 guards f6); Ra1 reaches a8, unguarded.
    // Ne5 reaches d3 and f3, which nothing of White's guards.
    (
        "safe_checks",
        "4k3/6p1/8/4n3/4N3/8/8/R3K3 w - - 0 1",
        &[("knight", 1, 2), ("rook", 1, 0)],
    ),
];

#[test]
fn hand_checked_examples() {
    for (name, fen, want) in EXAMPLES {
        let g = catalogue::find(name).unwrap_or_else(|| panic!("no group {name}"));
        let got: Vec<(&str, i32, i32)> = counts(g, &common::parse_fen(fen))
            .iter()
            .map(|c| (g.elements[c.element as usize].as_str(), c.white, c.black))
            .collect();
        assert_eq!(&got, want, "{name} on {fen}");
    }
}

#[test]
fn every_group_has_a_hand_checked_example() {
    for g in catalogue::groups() {
        assert!(
            EXAMPLES.iter().any(|(n, _, _)| *n == g.name),
            "{}: no example",
            g.name
        );
    }
}

/// `docs/catalogue.md` defines every group with the board and the counts of [`EXAMPLES`]: each
/// `#### `name`` section's `Example: `FEN`` and its table rows `| `element` | White | Black |`.
#[test]
fn the_docs_show_the_examples() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/catalogue.md");
    let text = std::fs::read_to_string(&path).unwrap();
    for g in catalogue::groups() {
        let heading = format!("#### `{}`\n", g.name);
        let start = text
            .find(&heading)
            .unwrap_or_else(|| panic!("{}: not in the docs", g.name));
        let section = &text[start + heading.len()..];
        let section = &section[..section.find("\n#").unwrap_or(section.len())];
        let fen = section
            .split("Example: `")
            .nth(1)
            .and_then(|s| s.split('`').next());
        let rows: Vec<(String, i32, i32)> = section
            .lines()
            .filter_map(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                let name = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
                Some((
                    name.to_string(),
                    cells[2].parse().ok()?,
                    cells[3].parse().ok()?,
                ))
            })
            .collect();
        let (_, want_fen, want) = EXAMPLES.iter().find(|(n, _, _)| *n == g.name).unwrap();
        assert_eq!(fen, Some(*want_fen), "{}", g.name);
        let want: Vec<(String, i32, i32)> = want
            .iter()
            .map(|(e, w, b)| (e.to_string(), *w, *b))
            .collect();
        assert_eq!(rows, want, "{}", g.name);
    }
}
