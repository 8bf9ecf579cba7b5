//! The quiescence search's moves when not in check: the legal captures and promotions, in the
//! order in which `shakmaty`'s `legal_moves` lists them, without generating the quiet moves.
//!
//! The order matters: the quiescence search sorts its moves with a stable sort, so moves of
//! equal key are searched in generation order, and a different order could search a different
//! tree. `legal_moves` (standard chess, not in check) lists, before retaining the legal ones:
//! en passant captures; pawn captures towards the a-file, then towards the h-file (each
//! non-promotions by target square, then promotions queen, rook, bishop, knight); single
//! pawn pushes, the promotions among them last; double pushes; then the knights', bishops',
//! rooks' and queens' moves (by origin, then target square); the king's steps to unattacked
//! squares; castling. [`tactical_moves`] generates the captures and promotions of that list in
//! that order and keeps the legal ones by `shakmaty`'s own rule (a piece that shields its king
//! from a slider may only move along that line); the test below checks it against
//! `legal_moves` filtered, move for move.

use shakmaty::{attacks, Bitboard, Chess, File, Move, MoveList, Position, Role, Square};

/// Fills `moves` (cleared first) with the legal captures and promotions of `pos` in
/// `legal_moves`' order (see the module), for a side to move that is **not in check**;
/// `false` (and `moves` left empty) without a king (never in standard chess), where the caller
/// falls back on `legal_moves`. The list is the caller's so that it is not copied on return.
/// One function on purpose: it runs at every quiescence node, its piece loops sharing the
/// board's masks (then one filter for pinned pieces).
pub(crate) fn tactical_moves(pos: &Chess, moves: &mut MoveList) -> bool {
    moves.clear();
    let board = pos.board();
    let turn = pos.turn();
    let Some(king) = board.king_of(turn) else {
        return false;
    };
    let us = board.by_color(turn);
    let them = board.by_color(!turn);
    let occupied = board.occupied();
    let not_a = !Bitboard::from_file(File::A);

    // En passant first; shakmaty's own generation, legality included.
    if pos.maybe_ep_square().is_some() {
        moves.extend(pos.en_passant_moves());
    }

    // Pawn captures: towards the a-file, then towards the h-file (shakmaty's directions:
    // north-west and north-east for White, south-west and south-east for Black).
    let pawns = board.pawns() & us;
    let white = turn.is_white();
    let towards_a = if white {
        ((pawns & not_a).0 << 7, 7)
    } else {
        ((pawns & not_a).0 >> 9, -9)
    };
    let towards_h = if white {
        ((pawns.0 << 9) & not_a.0, 9)
    } else {
        ((pawns.0 >> 7) & not_a.0, -7)
    };
    for (targets, offset) in [towards_a, towards_h] {
        let captures = Bitboard(targets) & them;
        for to in captures & !Bitboard::BACKRANKS {
            if let Some(from) = to.offset(-offset) {
                moves.push(Move::Normal {
                    role: Role::Pawn,
                    from,
                    capture: board.role_at(to),
                    to,
                    promotion: None,
                });
            }
        }
        for to in captures & Bitboard::BACKRANKS {
            if let Some(from) = to.offset(-offset) {
                push_promotions(moves, from, to, board.role_at(to));
            }
        }
    }
    // Single pushes onto the last rank.
    let push = if white { 8 } else { -8 };
    let single = pawns.shift(push) & !occupied;
    for to in single & Bitboard::BACKRANKS {
        if let Some(from) = to.offset(-push) {
            push_promotions(moves, from, to, None);
        }
    }

    // Pieces, by role, origin and target square.
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        for from in board.by_role(role) & us {
            let targets = match role {
                Role::Knight => attacks::knight_attacks(from),
                Role::Bishop => attacks::bishop_attacks(from, occupied),
                Role::Rook => attacks::rook_attacks(from, occupied),
                _ => attacks::queen_attacks(from, occupied),
            };
            for to in targets & them {
                moves.push(Move::Normal {
                    role,
                    from,
                    capture: board.role_at(to),
                    to,
                    promotion: None,
                });
            }
        }
    }
    // The king's captures of undefended pieces.
    for to in attacks::king_attacks(king) & them {
        if board.attacks_to(to, !turn, occupied).is_empty() {
            moves.push(Move::Normal {
                role: Role::King,
                from: king,
                capture: board.role_at(to),
                to,
                promotion: None,
            });
        }
    }

    // shakmaty's legality rule for these moves: a piece between its king and an enemy slider
    // (alone on that line) moves only along the line. En passant moves were checked above
    // and are kept, as `is_safe` keeps them again.
    let blockers = slider_blockers(pos, king);
    if blockers.any() {
        moves.retain(|m| match *m {
            Move::Normal { from, to, .. } => {
                !blockers.contains(from) || attacks::aligned(from, to, king)
            }
            _ => true,
        });
    }
    true
}

/// Promotions to queen, rook, bishop and knight, in that order (shakmaty's).
fn push_promotions(moves: &mut MoveList, from: Square, to: Square, capture: Option<Role>) {
    for promotion in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
        moves.push(Move::Normal {
            role: Role::Pawn,
            from,
            capture,
            to,
            promotion: Some(promotion),
        });
    }
}

/// The pieces that stand alone between `king` and an enemy slider aiming at it (shakmaty's
/// `slider_blockers`).
fn slider_blockers(pos: &Chess, king: Square) -> Bitboard {
    let board = pos.board();
    let enemy = board.by_color(!pos.turn());
    let snipers = (attacks::rook_attacks(king, Bitboard(0)) & board.rooks_and_queens())
        | (attacks::bishop_attacks(king, Bitboard(0)) & board.bishops_and_queens());
    let mut blockers = Bitboard(0);
    for sniper in snipers & enemy {
        let b = attacks::between(king, sniper) & board.occupied();
        if !b.more_than_one() {
            blockers |= b;
        }
    }
    blockers
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use shakmaty::fen::Fen;
    use shakmaty::CastlingMode;

    /// `legal_moves` with only the captures and promotions kept: what the quiescence search
    /// searched before [`tactical_moves`].
    fn reference(pos: &Chess) -> MoveList {
        let mut moves = pos.legal_moves();
        moves.retain(|m| m.is_capture() || m.is_promotion());
        moves
    }

    fn check(pos: &Chess) -> bool {
        if pos.is_check() {
            return false;
        }
        let mut got = MoveList::new();
        assert!(tactical_moves(pos, &mut got), "a king");
        assert_eq!(
            got.as_slice(),
            reference(pos).as_slice(),
            "{}",
            Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
        );
        !got.is_empty()
    }

    #[test]
    fn equals_legal_moves_filtered_on_random_games() {
        // Random games favouring captures and promotions, so that tactics, pins, en passant
        // and promotions all come up; every position not in check is compared.
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let (mut compared, mut with_moves, mut promotions, mut en_passant) = (0, 0, 0, 0);
        for _ in 0..400 {
            let mut pos = Chess::default();
            for _ in 0..300 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                if !pos.is_check() {
                    compared += 1;
                    with_moves += usize::from(check(&pos));
                    let t = reference(&pos);
                    promotions += usize::from(t.iter().any(|m| m.is_promotion()));
                    en_passant += usize::from(t.iter().any(|m| m.is_en_passant()));
                }
                let tactical: Vec<&Move> = legal
                    .iter()
                    .filter(|m| m.is_capture() || m.is_promotion())
                    .collect();
                let m = match tactical.choose(&mut rng) {
                    Some(m) if rand::Rng::gen_bool(&mut rng, 0.3) => **m,
                    _ => *legal.choose(&mut rng).expect("non-empty"),
                };
                pos.play_unchecked(m);
            }
        }
        assert!(compared > 50_000, "{compared}");
        assert!(
            with_moves > 10_000 && promotions > 500 && en_passant > 50,
            "{with_moves} {promotions} {en_passant}"
        );
    }

    #[test]
    fn pins_en_passant_and_promotions() {
        for fen in [
            // A pinned knight cannot capture; a pinned bishop captures along the pin.
            "4k3/8/8/1q6/2N5/3B4/8/K3r3 w - - 0 1",
            "k7/8/8/8/3r4/8/1B6/K7 w - - 0 1",
            // En passant that would expose the king along the rank: not legal.
            "8/8/8/KPp4r/8/8/8/7k w - c6 0 2",
            // Promotions by push and by capture on both wings, for both colours.
            "kn4n1/P6P/8/8/8/8/p6p/1N4NK w - - 0 1",
            "kn4n1/P6P/8/8/8/8/p6p/1N4NK b - - 0 1",
            // The king may take only an undefended piece.
            "8/8/8/3pp3/4K3/8/8/7k w - - 0 1",
        ] {
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            check(&pos);
        }
    }
}
