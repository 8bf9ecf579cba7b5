//! Threats: enemy pieces attacked by a cheaper piece, and enemy pieces attacked and not
//! defended, counted separately for the side to move and the side waiting.
//!
//! A search's quiescence stands pat at the static evaluation when no capture looks good to the
//! side to move, so what the side waiting threatens (two pieces forked, a knight attacked by a
//! pawn) is what the evaluation must say itself; what the side to move threatens, its captures
//! mostly find. The two get their own weights, and the tuner says how much each is worth.

use shakmaty::{Color, Role};

use super::{Context, ParamBuilder, Term};
use crate::features::{sign, Sink};

/// The kinds of threat (`threats.<side>.<kind>`), in index order: an enemy piece attacked by a
/// pawn (knight, bishop, rook, queen), by a knight or bishop (rook, queen), by a rook (queen),
/// and any enemy piece but pawns and king attacked and not defended.
const THREAT_KINDS: [&str; 8] = [
    "pawn_on_knight",
    "pawn_on_bishop",
    "pawn_on_rook",
    "pawn_on_queen",
    "minor_on_rook",
    "minor_on_queen",
    "rook_on_queen",
    "hanging",
];

/// The two sides a threat can belong to, in index order: the side to move, the side waiting.
pub(crate) const THREAT_SIDES: [&str; 2] = ["to_move", "waiting"];

/// `threats.{to_move,waiting}.<kind>.<phase>`: per enemy piece under a threat of the side to
/// move / of the side waiting ([`THREAT_KINDS`]). Added after weights files of `full` were
/// written.
pub(crate) struct Threats;

impl Term for Threats {
    /// Index of the first, `threats.to_move.pawn_on_knight.mg`: `threats.<side>.<kind>.<phase>`
    /// is `+ 2 * (side * kinds + kind) + phase`.
    type Layout = u32;
    const GROUPS: &'static [&'static str] = &["threats"];
    const ADDED_LATER: bool = true;

    fn declare(b: &mut ParamBuilder) -> u32 {
        let first = b.next_index();
        for side in THREAT_SIDES {
            for kind in THREAT_KINDS {
                b.pair(&format!("threats.{side}.{kind}"), 0.0);
            }
        }
        first
    }

    #[inline(always)]
    fn extract(ctx: &mut Context<'_>, &threats: &u32, sink: &mut impl Sink) {
        extract(ctx, threats, sink);
    }
}

/// Adds the threat terms of both colours: for each kind of threat in [`THREAT_KINDS`] order,
/// the count of enemy pieces under it, on the weights of the side to move or of the side
/// waiting.
#[inline(always)]
fn extract(ctx: &Context<'_>, threats: u32, f: &mut impl Sink) {
    let (board, maps, turn) = (ctx.board(), &ctx.maps, ctx.turn());
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
            threats
        } else {
            threats + 2 * THREAT_KINDS.len() as u32
        };
        for (k, bb) in counts.into_iter().enumerate() {
            if bb != 0 {
                f.pair(base + 2 * k as u32, s * f64::from(bb.count_ones()));
            }
        }
    }
}
