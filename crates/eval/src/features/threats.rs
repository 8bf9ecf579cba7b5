//! Threats: enemy pieces attacked by a cheaper piece, and enemy pieces attacked and not
//! defended, counted separately for the side to move and the side waiting.
//!
//! A search's quiescence stands pat at the static evaluation when no capture looks good to the
//! side to move, so what the side waiting threatens (two pieces forked, a knight attacked by a
//! pawn) is what the evaluation must say itself; what the side to move threatens, its captures
//! mostly find. The two get their own weights, and the tuner says how much each is worth.

use shakmaty::{Board, Color, Role};

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
