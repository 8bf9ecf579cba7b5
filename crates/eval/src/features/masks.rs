//! Constant bitboard masks for pawn structure, computed at compile time.

/// The squares of each file, a to h.
pub(crate) const FILE: [u64; 8] = {
    let mut m = [0u64; 8];
    let mut f = 0;
    while f < 8 {
        m[f] = 0x0101_0101_0101_0101u64 << f;
        f += 1;
    }
    m
};

/// The squares of the files next to each file.
pub(crate) const ADJACENT_FILES: [u64; 8] = {
    let mut m = [0u64; 8];
    let mut f = 0;
    while f < 8 {
        if f > 0 {
            m[f] |= FILE[f - 1];
        }
        if f < 7 {
            m[f] |= FILE[f + 1];
        }
        f += 1;
    }
    m
};

/// Squares on ranks strictly in front of a square, seen from a colour (0 white, 1 black).
const AHEAD_RANKS: [[u64; 64]; 2] = {
    let mut m = [[0u64; 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let rank = sq / 8;
        let mut r = 0;
        while r < 8 {
            let row = 0xffu64 << (8 * r);
            if r > rank {
                m[0][sq] |= row;
            }
            if r < rank {
                m[1][sq] |= row;
            }
            r += 1;
        }
        sq += 1;
    }
    m
};

/// Squares on the same file strictly in front of a square, for a colour (0 white, 1 black).
pub(crate) const FORWARD_FILE: [[u64; 64]; 2] = {
    let mut m = [[0u64; 64]; 2];
    let mut c = 0;
    while c < 2 {
        let mut sq = 0;
        while sq < 64 {
            m[c][sq] = AHEAD_RANKS[c][sq] & FILE[sq % 8];
            sq += 1;
        }
        c += 1;
    }
    m
};

/// Squares in front of a square on its own and the adjacent files: where enemy pawns stop a
/// passed pawn.
pub(crate) const PASSED_SPAN: [[u64; 64]; 2] = {
    let mut m = [[0u64; 64]; 2];
    let mut c = 0;
    while c < 2 {
        let mut sq = 0;
        while sq < 64 {
            m[c][sq] = AHEAD_RANKS[c][sq] & (FILE[sq % 8] | ADJACENT_FILES[sq % 8]);
            sq += 1;
        }
        c += 1;
    }
    m
};

/// Squares on the adjacent files on the same rank or behind a square, for a colour: where an
/// own pawn could still support it.
pub(crate) const SUPPORT_SPAN: [[u64; 64]; 2] = {
    let mut m = [[0u64; 64]; 2];
    let mut c = 0;
    while c < 2 {
        let mut sq = 0;
        while sq < 64 {
            m[c][sq] = !AHEAD_RANKS[c][sq] & ADJACENT_FILES[sq % 8];
            sq += 1;
        }
        c += 1;
    }
    m
};

/// The squares attacked by a set of pawns of a colour (0 white, 1 black).
#[inline(always)]
pub(crate) const fn pawn_attacks(color: usize, pawns: u64) -> u64 {
    let not_a = !FILE[0];
    let not_h = !FILE[7];
    if color == 0 {
        ((pawns & not_a) << 7) | ((pawns & not_h) << 9)
    } else {
        ((pawns & not_a) >> 9) | ((pawns & not_h) >> 7)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_look_right() {
        // e2 = 12: white passed span is d3..f8 (3 files x 6 ranks).
        assert_eq!(PASSED_SPAN[0][12].count_ones(), 18);
        assert_eq!(PASSED_SPAN[1][12].count_ones(), 3);
        assert_eq!(FORWARD_FILE[0][12].count_ones(), 6);
        // a-file pawn on a2 (8) attacks b3 (17) only.
        assert_eq!(pawn_attacks(0, 1 << 8), 1 << 17);
        assert_eq!(pawn_attacks(1, 1 << 55), 1 << 46); // h7 -> g6
        assert_eq!(SUPPORT_SPAN[0][12] & (1 << 19), 0); // d3 is ahead of e2
        assert_ne!(SUPPORT_SPAN[0][12] & (1 << 11), 0); // d2 is level
    }
}
