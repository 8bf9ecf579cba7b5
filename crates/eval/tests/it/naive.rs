//! The `full` model's features against a naive square-by-square re-implementation, on 800 real
//! positions: this checks the bitboard masks and shifts of the feature extraction.
//!
//! At the default weights the gradient with respect to `<name>.mg` plus the one with respect to
//! `<name>.eg` is the feature's count (White's minus Black's), because the two phase fractions
//! sum to 1; for the middlegame-only king-safety inputs it is the count times the middlegame
//! fraction. Counts are small integers, compared within 1e-9.

use crate::common;

use std::collections::HashMap;

use eval::{Model, ModelKind};
use shakmaty::{attacks, Board, Chess, Color, File, Piece, Position, Rank, Role, Square};
use tape::Tape;

type Counts = HashMap<String, f64>;

fn add(counts: &mut Counts, name: &str, c: f64) {
    *counts.entry(name.to_string()).or_default() += c;
}

fn sq(file: i32, rank: i32) -> Option<Square> {
    ((0..8).contains(&file) && (0..8).contains(&rank))
        .then(|| Square::from_coords(File::new(file as u32), Rank::new(rank as u32)))
}

fn is(board: &Board, s: Option<Square>, color: Color, role: Role) -> bool {
    s.is_some_and(|s| board.piece_at(s) == Some(Piece { color, role }))
}

fn naive(pos: &Chess) -> Counts {
    let board = pos.board();
    let mut counts = Counts::new();
    let names = ["pawn", "knight", "bishop", "rook", "queen"];
    for color in Color::ALL {
        let s = if color == Color::White { 1.0 } else { -1.0 };
        let dir = if color == Color::White { 1 } else { -1 };
        let rel = |r: i32| if color == Color::White { r } else { 7 - r };
        let own_pawn = |f: i32, r: i32| is(board, sq(f, r), color, Role::Pawn);
        let enemy_pawn = |f: i32, r: i32| is(board, sq(f, r), !color, Role::Pawn);

        // Pawn structure.
        for f in 0..8 {
            let n = (0..8).filter(|&r| own_pawn(f, r)).count() as f64;
            if n > 1.0 {
                add(&mut counts, "pawns.doubled", s * (n - 1.0));
            }
        }
        for f in 0..8 {
            for r in 0..8 {
                if !own_pawn(f, r) {
                    continue;
                }
                let rr = rel(r);
                let neighbours = |pred: &dyn Fn(i32) -> bool| {
                    [f - 1, f + 1]
                        .iter()
                        .any(|&nf| (0..8).any(|nr| own_pawn(nf, nr) && pred(nr)))
                };
                let isolated = !neighbours(&|_| true);
                if isolated {
                    add(&mut counts, "pawns.isolated", s);
                } else if !neighbours(&|nr| rel(nr) <= rr)
                    && (enemy_pawn(f - 1, r + 2 * dir) || enemy_pawn(f + 1, r + 2 * dir))
                {
                    add(&mut counts, "pawns.backward", s);
                }
                let supported = own_pawn(f - 1, r - dir) || own_pawn(f + 1, r - dir);
                let phalanx = own_pawn(f - 1, r) || own_pawn(f + 1, r);
                if supported || phalanx {
                    add(&mut counts, &format!("pawns.connected.rank{}", rr + 1), s);
                }
                let ahead = |nr: i32| rel(nr) > rr;
                let blocked_by_enemy =
                    (f - 1..=f + 1).any(|nf| (0..8).any(|nr| ahead(nr) && enemy_pawn(nf, nr)));
                let own_ahead = (0..8).any(|nr| ahead(nr) && own_pawn(f, nr));
                if !blocked_by_enemy && !own_ahead {
                    add(&mut counts, &format!("pawns.passed.rank{}", rr + 1), s);
                    let free = (0..8).all(|nr| {
                        !ahead(nr) || sq(f, nr).is_some_and(|x| board.piece_at(x).is_none())
                    });
                    if free {
                        add(
                            &mut counts,
                            &format!("pawns.passed.free_path.rank{}", rr + 1),
                            s,
                        );
                    }
                    let stop = sq(f, r + dir).unwrap();
                    let own_king = board.king_of(color).unwrap();
                    let enemy_king = board.king_of(!color).unwrap();
                    add(
                        &mut counts,
                        "pawns.passed.king_distance.own",
                        s * own_king.distance(stop) as f64,
                    );
                    add(
                        &mut counts,
                        "pawns.passed.king_distance.enemy",
                        s * enemy_king.distance(stop) as f64,
                    );
                }
            }
        }

        // Pieces: mobility, files, bishop pair.
        let enemy_pawn_attacks = |t: Square| {
            board
                .by_piece(Piece {
                    color: !color,
                    role: Role::Pawn,
                })
                .into_iter()
                .any(|p| attacks::pawn_attacks(!color, p).contains(t))
        };
        let enemy_king = board.king_of(!color).unwrap();
        for (m, role) in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
            .into_iter()
            .enumerate()
        {
            for from in board.by_piece(Piece { color, role }) {
                let att = board.attacks_from(from);
                let moves = att
                    .into_iter()
                    .filter(|&t| board.color_at(t) != Some(color) && !enemy_pawn_attacks(t))
                    .count();
                let max = [8, 13, 14, 27][m];
                add(
                    &mut counts,
                    &format!("mobility.{}.{}", names[m + 1], moves.min(max)),
                    s,
                );
                // Danger to the enemy king: its penalty is subtracted from the enemy, so the
                // attack counts with the attacker's sign.
                let zone = att
                    .into_iter()
                    .filter(|&t| t.distance(enemy_king) <= 1)
                    .count() as f64;
                add(
                    &mut counts,
                    &format!("king_safety.attack.{}", names[m + 1]),
                    s * zone,
                );
                let checks = att
                    .into_iter()
                    .filter(|&t| {
                        board.color_at(t) != Some(color)
                            && attacks::attacks(t, Piece { color, role }, board.occupied())
                                .contains(enemy_king)
                    })
                    .count() as f64;
                add(
                    &mut counts,
                    &format!("king_safety.check.{}", names[m + 1]),
                    s * checks,
                );
                if role == Role::Rook || role == Role::Queen {
                    let f = from.file() as i32;
                    let any = (0..8).any(|r| own_pawn(f, r) || enemy_pawn(f, r));
                    let own = (0..8).any(|r| own_pawn(f, r));
                    let name = names[m + 1];
                    if !any {
                        add(&mut counts, &format!("pieces.{name}.open_file"), s);
                    } else if !own {
                        add(&mut counts, &format!("pieces.{name}.half_open_file"), s);
                    }
                }
            }
        }
        if board
            .by_piece(Piece {
                color,
                role: Role::Bishop,
            })
            .count()
            >= 2
        {
            add(&mut counts, "pieces.bishop_pair", s);
        }
        // Own king's shelter: counted as danger to this side, so -s.
        let king = board.king_of(color).unwrap();
        let (kf, kr) = (king.file() as i32, king.rank() as i32);
        for f in (kf - 1)..=(kf + 1) {
            if !(0..8).contains(&f) {
                continue;
            }
            if !(0..8).any(|r| rel(r) > rel(kr) && own_pawn(f, r)) {
                add(&mut counts, "king_safety.shelter_missing", -s);
            }
            if !(0..8).any(|r| own_pawn(f, r) || enemy_pawn(f, r)) {
                add(&mut counts, "king_safety.open_file", -s);
            }
        }
    }
    counts
}

#[test]
fn full_features_match_a_naive_implementation() {
    let model = Model::new(ModelKind::Full);
    let w = model.default_weights();
    let mut tape = Tape::new();
    let mut nonzero = HashMap::<String, usize>::new();
    for (n, pos) in common::positions().iter().enumerate() {
        let mut g = vec![0.0; model.len()];
        {
            tape.record(|rec| {
                let vars = rec.inputs(&w);
                let y = model.evaluate(pos, &vars);
                rec.gradient(y, &mut g);
            });
        }
        let b = pos.board();
        let phase = b.knights().count()
            + b.bishops().count()
            + 2 * b.rooks().count()
            + 4 * b.queens().count();
        let f = phase.min(24) as f64 / 24.0;
        let expected = naive(pos);
        for (i, p) in model.params().iter().enumerate() {
            if !["pawns", "mobility", "pieces", "king_safety"].contains(&p.group.as_str())
                || p.name.ends_with(".eg")
                || p.name == "king_safety.quadratic"
            {
                continue;
            }
            let (base, got) = match p.name.strip_suffix(".mg") {
                Some(base) => (base.to_string(), g[i] + g[i + 1]),
                None if f > 0.0 => (p.name.clone(), g[i] / f),
                None => continue, // middlegame-only term in a pure endgame: no signal
            };
            let want = expected.get(&base).copied().unwrap_or(0.0);
            assert!(
                (got - want).abs() < 1e-9,
                "position {n} ({}): {base} = {got}, naive count {want}",
                shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
            );
            if want != 0.0 {
                *nonzero.entry(base).or_default() += 1;
            }
        }
    }
    // The comparison is not vacuous: the common features occur many times.
    for name in [
        "pawns.doubled",
        "pawns.isolated",
        "pawns.backward",
        "pawns.connected.rank3",
        "pawns.passed.rank5",
        "pawns.passed.free_path.rank6",
        "pieces.bishop_pair",
        "pieces.rook.open_file",
        "pieces.rook.half_open_file",
        "king_safety.attack.queen",
        "king_safety.check.knight",
        "king_safety.shelter_missing",
        "mobility.knight.4",
    ] {
        let k = nonzero.get(name).copied().unwrap_or(0);
        assert!(k >= 10, "{name} is non-zero in only {k} positions");
    }
}
