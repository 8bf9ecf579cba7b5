//! Piece terms: the bishop pair, rooks and queens on open files, and the inputs of the
//! king-danger sums (attacks on the king zone, checking squares, pawn shelter); with them, in
//! the same walk over the pieces, the mobility terms ([`super::mobility`]) and the attack maps
//! of the terms after this one ([`AttackMaps`]).

use shakmaty::{attacks, Bitboard, Color, Piece, Role, Square};

use super::mobility::MOBILITY_MAX;
use super::{AttackMaps, Context, ParamBuilder, Term};
use crate::features::masks::{pawn_attacks, FILE};
use crate::features::{sign, Sink};
use crate::param_info::ROLE_NAMES;

/// The four roles with mobility and king-attack terms.
const MOBILE: [Role; 4] = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];

/// King-safety inputs, in index order after `king_safety.attack.*` and `king_safety.check.*`.
const KING_SAFETY_EXTRA: [&str; 2] = ["shelter_missing", "open_file"];

/// `pieces.bishop_pair.<phase>` (two or more bishops), `pieces.{rook,queen}.{open_file,
/// half_open_file}.<phase>` (per piece on a file without pawns / without own pawns), and the
/// king-danger inputs `king_safety.attack.<piece>` (per attack on the king zone, knight ..
/// queen), `king_safety.check.<piece>` (per square from which that piece could check and does
/// attack), `king_safety.shelter_missing` and `king_safety.open_file` (per king-side file
/// without own pawn ahead / without pawns), with `king_safety.quadratic` (the shape of the
/// penalty, read by `full.rs`'s head: default 1, bounds [0, 10]).
pub(crate) struct Pieces;

/// Where the piece and king-safety parameters are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PiecesLayout {
    /// `mobility.<piece>.0.mg` per piece, knight .. queen ([`super::mobility`]'s layout).
    pub(crate) mobility: [u32; 4],
    /// `pieces.bishop_pair.mg`.
    pub(crate) bishop_pair: u32,
    /// `pieces.rook.open_file.<phase>`, then `half_open_file`, then the same for the queen:
    /// index `files + 4 * (role is queen) + 2 * (half open) + phase`.
    pub(crate) files: u32,
    /// `king_safety.attack.<role>` (knight .. queen).
    pub(crate) ks_attack: u32,
    /// `king_safety.check.<role>` (knight .. queen).
    pub(crate) ks_check: u32,
    /// `king_safety.shelter_missing` and `king_safety.open_file`.
    pub(crate) ks_extra: u32,
    /// `king_safety.quadratic`: the shape of the non-linear penalty.
    pub(crate) ks_quadratic: u32,
}

impl Term for Pieces {
    type Layout = PiecesLayout;
    const GROUPS: &'static [&'static str] = &["pieces", "king_safety"];
    const ADDED_LATER: bool = false;

    fn declare(b: &mut ParamBuilder) -> PiecesLayout {
        let mobility = std::array::from_fn(|m| {
            let name = format!("mobility.{}.0.mg", ROLE_NAMES[m + 1]);
            b.index_of(&name)
                .unwrap_or_else(|| panic!("the term list declares {name} before `pieces`"))
        });
        let bishop_pair = b.pair("pieces.bishop_pair", 0.0);
        let files = b.next_index();
        for role in ["rook", "queen"] {
            for file in ["open_file", "half_open_file"] {
                b.pair(&format!("pieces.{role}.{file}"), 0.0);
            }
        }
        let mut inputs = |kind: &str| {
            let first = b.next_index();
            for role in &ROLE_NAMES[1..5] {
                b.push(format!("king_safety.{kind}.{role}"), 0.0, None);
            }
            first
        };
        let ks_attack = inputs("attack");
        let ks_check = inputs("check");
        let ks_extra = b.next_index();
        for name in KING_SAFETY_EXTRA {
            b.push(format!("king_safety.{name}"), 0.0, None);
        }
        let quadratic = b.push("king_safety.quadratic".into(), 1.0, Some((0.0, 10.0)));
        PiecesLayout {
            mobility,
            bishop_pair,
            files,
            ks_attack,
            ks_check,
            ks_extra,
            ks_quadratic: b.fractional(quadratic),
        }
    }

    #[inline(always)]
    fn extract(ctx: &mut Context<'_>, layout: &PiecesLayout, sink: &mut impl Sink) {
        ctx.maps = extract(ctx, layout, sink);
    }
}

/// Adds the piece terms of both colours and fills both king-danger lists; returns the squares
/// each side attacks (for the threat terms). One function on purpose: the evaluation's hot
/// loop (every piece of every position), its terms sharing the attack maps it builds.
#[inline(always)]
fn extract(ctx: &Context<'_>, layout: &PiecesLayout, f: &mut impl Sink) -> AttackMaps {
    let board = ctx.board();
    let occupied = board.occupied();
    let pawns = board.pawns().0;
    let white = board.by_color(Color::White).0;
    // Both sides' pawn attacks, each needed twice: the own side's for the threats, the
    // enemy's for mobility.
    let mut maps = AttackMaps {
        pawn: [
            pawn_attacks(0, pawns & white),
            pawn_attacks(1, pawns & !white),
        ],
        ..AttackMaps::default()
    };
    for color in Color::ALL {
        let c = color as usize ^ 1; // White = 0 here
        let s = sign(color);
        let own = board.by_color(color);
        let own_pawns = pawns & own.0;
        let enemy_pawn_attacks = maps.pawn[c ^ 1];
        let own_king = board.king_of(color);
        let enemy_king = board.king_of(!color);
        // The king zone and checking squares of the enemy king, for the danger it is in.
        let (zone, checks) = match enemy_king {
            Some(k) => (
                attacks::king_attacks(k).with(k),
                [
                    attacks::knight_attacks(k),
                    attacks::bishop_attacks(k, occupied),
                    attacks::rook_attacks(k, occupied),
                    attacks::queen_attacks(k, occupied),
                ],
            ),
            None => (Bitboard::EMPTY, [Bitboard::EMPTY; 4]),
        };
        let mut zone_attacks = [0.0f64; 4];
        let mut check_squares = [0.0f64; 4];
        let mut all = maps.pawn[c];
        if let Some(k) = own_king {
            all |= attacks::king_attacks(k).0;
        }

        for (m, role) in MOBILE.into_iter().enumerate() {
            let piece = Piece { color, role };
            for sq in board.by_piece(piece) {
                let att = attacks::attacks(sq, piece, occupied);
                all |= att.0;
                match m {
                    0 | 1 => maps.minor[c] |= att.0,
                    2 => maps.rook[c] |= att.0,
                    _ => {}
                }
                let mobility = (att & !own).0 & !enemy_pawn_attacks;
                let count = (mobility.count_ones() as usize).min(MOBILITY_MAX[m]) as u32;
                let idx = layout.mobility[m] + 2 * count;
                f.pair(idx, s);
                // Usually empty: skip the (software) popcount then.
                let on_zone = att & zone;
                if on_zone.any() {
                    zone_attacks[m] += on_zone.count() as f64;
                }
                let checking = att & checks[m] & !own;
                if checking.any() {
                    check_squares[m] += checking.count() as f64;
                }
            }
        }

        // Danger to the enemy king: recorded on the enemy's list, positive = bad for the enemy.
        for m in 0..4 {
            f.danger(c ^ 1, layout.ks_attack + m as u32, zone_attacks[m]);
            f.danger(c ^ 1, layout.ks_check + m as u32, check_squares[m]);
        }

        if board
            .by_piece(Piece {
                color,
                role: Role::Bishop,
            })
            .more_than_one()
        {
            f.pair(layout.bishop_pair, s);
        }

        for (q, role) in [Role::Rook, Role::Queen].into_iter().enumerate() {
            for sq in board.by_piece(Piece { color, role }) {
                let file = FILE[sq.file() as usize];
                let offset = if pawns & file == 0 {
                    0
                } else if own_pawns & file == 0 {
                    2
                } else {
                    continue;
                };
                let idx = layout.files + 4 * q as u32 + offset;
                f.pair(idx, s);
            }
        }

        // This colour's own king: pawn shelter on its file and the adjacent ones.
        if let Some(k) = own_king {
            let (missing, open) = shelter(k, c, own_pawns, pawns);
            f.danger(c, layout.ks_extra, missing);
            f.danger(c, layout.ks_extra + 1, open);
        }
        maps.all[c] = all;
    }
    maps
}

/// Counts the files around the king (its own and the adjacent ones) without an own pawn in
/// front of the king, and those without any pawn at all.
#[inline(always)]
fn shelter(king: Square, c: usize, own_pawns: u64, pawns: u64) -> (f64, f64) {
    let file = king.file() as usize;
    let front = front_of_rank(c, king.rank() as usize);
    let (mut missing, mut open) = (0.0, 0.0);
    for file_mask in &FILE[file.saturating_sub(1)..=(file + 1).min(7)] {
        if own_pawns & front & file_mask == 0 {
            missing += 1.0;
        }
        if pawns & file_mask == 0 {
            open += 1.0;
        }
    }
    (missing, open)
}

/// The ranks strictly in front of `rank` from side `c`'s view (0 White, 1 Black).
#[inline(always)]
fn front_of_rank(c: usize, rank: usize) -> u64 {
    if c == 0 {
        if rank >= 7 {
            0
        } else {
            !0u64 << (8 * (rank + 1))
        }
    } else if rank == 0 {
        0
    } else {
        !0u64 >> (8 * (8 - rank))
    }
}
