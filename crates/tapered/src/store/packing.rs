//! [`Packing`]: how the compact stores pack a (pair number, small integer coefficient)
//! feature into one `u16`, sized by the number of pairs.
//!
//! The pair number takes the low `bits` bits and the coefficient, a signed integer, the
//! other `16 - bits`. `bits` is the fewest that number every pair, and at least 9: up to 512
//! pairs (4ku, the chess models) a coefficient is in `-64..=63`; Ethereal's 904 pairs take
//! 10 bits and coefficients in `-32..=31`; [`MAX_PAIRS`] pairs, 14 bits and `-2..=1`. A
//! coefficient out of its store's range is refused and counted as such (the row goes to a
//! slower store); unit coefficients (`+-1`) have their own encoding
//! ([`Unit`](super::phased::Unit)), whatever the pair count.

/// Most pairs a compact store can address (a unit feature is `(2 * pair + sign) << 1` in `u16`,
/// and a general feature keeps two bits for its coefficient).
pub(crate) const MAX_PAIRS: usize = 1 << 14;

/// Most general features one term of a head store's twin group is split into when its
/// coefficient is beyond the packing's range ([`Packing::pieces`]).
pub(crate) const MAX_PIECES: usize = 16;

/// Fewest bits of a feature given to the pair number.
const MIN_BITS: u32 = 9;

/// A store's split of a `u16` feature between pair number and coefficient; see the module
/// documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Packing {
    bits: u32,
}

impl Default for Packing {
    fn default() -> Packing {
        Packing { bits: MIN_BITS }
    }
}

impl Packing {
    /// The packing for `pairs` pairs; `None` if there are more than [`MAX_PAIRS`].
    pub(crate) fn for_pairs(pairs: usize) -> Option<Packing> {
        if pairs > MAX_PAIRS {
            return None;
        }
        let bits = usize::BITS - pairs.saturating_sub(1).leading_zeros();
        Some(Packing {
            bits: bits.max(MIN_BITS),
        })
    }

    /// Slots of a by-pair table: every pair number a feature can hold (`2^bits`).
    #[inline(always)]
    pub(crate) fn slots(self) -> usize {
        1 << self.bits
    }

    /// Smallest and largest coefficient a general feature holds.
    pub(crate) fn range(self) -> (f64, f64) {
        let half = f64::from(1u32 << (15 - self.bits));
        (-half, half - 1.0)
    }

    /// Whether `s` is an integer coefficient a general feature holds.
    pub(crate) fn fits(self, s: f64) -> bool {
        let (lo, hi) = self.range();
        (lo..=hi).contains(&s) && s.fract() == 0.0
    }

    /// Whether `s` is an integer coefficient that [`pieces`](Self::pieces) splits into at most
    /// [`MAX_PIECES`] coefficients each in range (every coefficient that [`fits`](Self::fits)
    /// is one piece).
    pub(crate) fn fits_split(self, s: f64) -> bool {
        let (lo, hi) = self.range();
        s.fract() == 0.0 && (lo * MAX_PIECES as f64..=hi * MAX_PIECES as f64).contains(&s)
    }

    /// `s` (which [`fits_split`](Self::fits_split)) as the fewest coefficients in range that add
    /// up to it: whole ones of the range's end, then the rest.
    pub(crate) fn pieces(self, s: f64) -> impl Iterator<Item = i16> {
        let (lo, hi) = self.range();
        let end = if s < 0.0 { lo } else { hi };
        let whole = (s / end).trunc();
        let rest = s - whole * end;
        let whole = std::iter::repeat_n(end as i16, whole as usize);
        whole.chain((rest != 0.0).then_some(rest as i16))
    }

    /// The feature for `pair` with coefficient `s` (both in range: [`fits`](Self::fits),
    /// `pair < slots()`).
    #[inline(always)]
    pub(crate) fn pack(self, pair: usize, s: i16) -> u16 {
        debug_assert!(pair < self.slots() && self.fits(f64::from(s)));
        (pair as u16) | ((s as u16) << self.bits)
    }

    /// A feature's pair number (below [`slots`](Self::slots)) and coefficient.
    #[inline(always)]
    pub(crate) fn unpack(self, f: u16) -> (usize, f64) {
        let pair = usize::from(f) & (self.slots() - 1);
        (pair, f64::from((f as i16) >> self.bits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_every_coefficient_of_every_width() {
        for (pairs, bits, lo, hi) in [
            (1, 9, -64.0, 63.0),
            (512, 9, -64.0, 63.0),
            (513, 10, -32.0, 31.0),
            (904, 10, -32.0, 31.0),
            (1024, 10, -32.0, 31.0),
            (1025, 11, -16.0, 15.0),
            (MAX_PAIRS, 14, -2.0, 1.0),
        ] {
            let k = Packing::for_pairs(pairs).unwrap();
            assert_eq!((k.bits, k.range()), (bits, (lo, hi)), "{pairs} pairs");
            assert!(!k.fits(lo - 1.0) && !k.fits(hi + 1.0) && !k.fits(0.5));
            for s in lo as i16..=hi as i16 {
                for p in [0, 1, pairs / 2, pairs - 1] {
                    assert_eq!(k.unpack(k.pack(p, s)), (p, f64::from(s)));
                }
            }
        }
        assert_eq!(Packing::for_pairs(MAX_PAIRS + 1), None);
    }

    #[test]
    fn coefficients_beyond_the_range_split_into_pieces_in_range() {
        for pairs in [512, 904, MAX_PAIRS] {
            let k = Packing::for_pairs(pairs).unwrap();
            let (lo, hi) = k.range();
            for s in (lo * 16.0) as i32 - 2..=(hi * 16.0) as i32 + 2 {
                let s = f64::from(s);
                let fits = k.fits_split(s);
                assert_eq!(fits, s >= lo * 16.0 && s <= hi * 16.0, "{s}");
                if !fits {
                    continue;
                }
                let p: Vec<i16> = k.pieces(s).collect();
                assert!(p.len() <= MAX_PIECES && p.iter().all(|&x| k.fits(f64::from(x))));
                assert!(p.iter().all(|&x| x != 0), "{s}: {p:?}");
                assert_eq!(p.iter().map(|&x| f64::from(x)).sum::<f64>(), s);
                if k.fits(s) && s != 0.0 {
                    assert_eq!(p, [s as i16]);
                }
            }
        }
        assert!(!Packing::default().fits_split(0.5));
        assert_eq!(Packing::for_pairs(0), Some(Packing::default()));
    }
}
