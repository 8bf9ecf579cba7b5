//! Threats: enemy pieces attacked by a cheaper piece, enemy pieces attacked and not defended,
//! and enemy pieces a safe pawn push would attack, counted separately for the side to move and
//! the side waiting.
//!
//! A search's quiescence stands pat at the static evaluation when no capture looks good to the
//! side to move, so what the side waiting threatens (two pieces forked, a knight attacked by a
//! pawn) is what the evaluation must say itself; what the side to move threatens, its captures
//! mostly find. The two get their own weights, and the tuner says how much each is worth.

use shakmaty::{Board, Color, Role};

use super::masks::pawn_attacks;
use super::{sign, Sink};
use crate::params::{Layout, THREAT_KINDS};

/// The squares each side attacks, by kind of attacker (index 0 White, 1 Black), from the piece
/// terms' loop ([`super::pieces::extract`]), which computes every piece's attacks anyway.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AttackMaps {
    /// Attacked by a pawn.
    pub(crate) pawn: [u64; 2],
    /// Attacked by a knight or a bishop.
    pub(crate) minor: [u64; 2],
    /// Attacked by a rook.
    pub(crate) rook: [u64; 2],
    /// Attacked by anything (pawns, pieces, the king).
    pub(crate) all: [u64; 2],
}

/// Adds the threat terms of both colours: for each kind of threat in [`THREAT_KINDS`] order,
/// the count of enemy pieces under it, on the weights of the side to move or of the side
/// waiting.
#[inline(always)]
pub(crate) fn extract(
    board: &Board,
    layout: &Layout,
    maps: &AttackMaps,
    turn: Color,
    f: &mut impl Sink,
) {
    for color in Color::ALL {
        let c = color as usize ^ 1; // White = 0 here
        let e = c ^ 1;
        let s = sign(color);
        let enemy = board.by_color(!color).0;
        let on = |role: Role| (board.by_role(role).0) & enemy;
        let (knights, bishops, rooks, queens) = (
            on(Role::Knight),
            on(Role::Bishop),
            on(Role::Rook),
            on(Role::Queen),
        );
        let pieces = knights | bishops | rooks | queens;
        let counts: [u64; THREAT_KINDS.len()] = [
            maps.pawn[c] & knights,
            maps.pawn[c] & bishops,
            maps.pawn[c] & rooks,
            maps.pawn[c] & queens,
            maps.minor[c] & rooks,
            maps.minor[c] & queens,
            maps.rook[c] & queens,
            maps.all[c] & !maps.all[e] & pieces,
        ];
        let base = if color == turn {
            layout.threats
        } else {
            layout.threats + 2 * THREAT_KINDS.len() as u32
        };
        for (k, bb) in counts.into_iter().enumerate() {
            if bb != 0 {
                f.pair(base + 2 * k as u32, s * f64::from(bb.count_ones()));
            }
        }
    }
}

/// Adds the pawn-push threats of both colours: the enemy pieces (knight, bishop, rook, queen)
/// that a pawn of the colour would attack after one safe push, single or double, on the
/// weights of the side to move or of the side waiting (`push_threats.<side>`).
///
/// A push is safe when its square is empty, no enemy pawn attacks it, and the colour defends
/// it or the enemy does not attack it: a quiet move that forks or wins a piece, which a
/// quiescence search (captures only) does not play.
#[inline(always)]
pub(crate) fn extract_push(
    board: &Board,
    layout: &Layout,
    maps: &AttackMaps,
    turn: Color,
    f: &mut impl Sink,
) {
    let empty = !board.occupied().0;
    let pawns = board.pawns().0;
    for color in Color::ALL {
        let c = color as usize ^ 1; // White = 0 here
        let e = c ^ 1;
        let own_pawns = pawns & board.by_color(color).0;
        let targets = board.by_color(!color).0 & !pawns & !board.kings().0;
        // Single pushes, then double pushes from the pawns' home rank (through an empty
        // third rank).
        let (single, double) = if c == 0 {
            let single = (own_pawns << 8) & empty;
            (single, ((single & RANK_3[0]) << 8) & empty)
        } else {
            let single = (own_pawns >> 8) & empty;
            (single, ((single & RANK_3[1]) >> 8) & empty)
        };
        let safe = (single | double) & !maps.pawn[e] & (maps.all[c] | !maps.all[e]);
        let attacked = pawn_attacks(c, safe) & targets;
        if attacked != 0 {
            let side = u32::from(color != turn);
            f.pair(
                layout.push_threats + 2 * side,
                sign(color) * f64::from(attacked.count_ones()),
            );
        }
    }
}

/// The third rank from each side's view (0 White: rank 3; 1 Black: rank 6): where a single
/// push from the home rank lands.
const RANK_3: [u64; 2] = [0xff << 16, 0xff << 40];
