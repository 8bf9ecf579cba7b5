//! The held-out statistics: the mean of paired differences with its standard error clustered
//! by game, the one-sided p-value, and the corrections for the number of groups tried.

use std::collections::BTreeMap;

use serde::Serialize;

/// A mean drop of the held-out loss and its uncertainty.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Gain {
    /// The mean paired difference (loss before less loss after): positive is better.
    pub gain: f64,
    /// Its standard error, clustered by game.
    pub se: f64,
    /// `gain / se` (0 when `se` is 0).
    pub z: f64,
    /// The one-sided p-value of `z` (the chance of a gain this large if the group were worth
    /// nothing), normal approximation.
    pub p: f64,
}

/// The mean of `d` and its standard error clustered by `games` (`games[i]` is `d[i]`'s game):
/// with `D_g` game `g`'s sum and `n_g` its positions, `G` games and `N` positions,
/// `SE = sqrt(G / (G - 1) * sum_g (D_g - n_g * mean)^2) / N`. Fewer than two games: SE 0.
///
/// ```
/// // Two games: (1, 3) and (2): mean 2, D = (4, 2), n = (2, 1); SE = sqrt(2 * 0) / 3 = 0.
/// let g = texel::discover::clustered(&[1.0, 3.0, 2.0], &[7, 7, 9]);
/// assert_eq!((g.gain, g.se), (2.0, 0.0));
/// ```
pub fn clustered(d: &[f64], games: &[u32]) -> Gain {
    let n = d.len();
    if n == 0 {
        return Gain {
            p: 1.0,
            ..Gain::default()
        };
    }
    let mut by_game: BTreeMap<u32, (f64, usize)> = BTreeMap::new();
    for (x, g) in d.iter().zip(games) {
        let e = by_game.entry(*g).or_insert((0.0, 0));
        e.0 += x;
        e.1 += 1;
    }
    let mean = d.iter().sum::<f64>() / n as f64;
    let big_g = by_game.len() as f64;
    let se = if by_game.len() < 2 {
        0.0
    } else {
        let ss: f64 = by_game
            .values()
            .map(|&(s, k)| (s - k as f64 * mean).powi(2))
            .sum();
        (big_g / (big_g - 1.0) * ss).sqrt() / n as f64
    };
    let z = if se > 0.0 { mean / se } else { 0.0 };
    Gain {
        gain: mean,
        se,
        z,
        p: upper_tail(z),
    }
}

/// `P(Z > z)` for a standard normal `Z`.
pub fn upper_tail(z: f64) -> f64 {
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// The complementary error function (Numerical Recipes' `erfcc`, relative error below
/// `1.2e-7`).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// Holm's step-down correction at family-wise level `level`: sorted by p-value, the `k`-th
/// smallest (from 0) is significant if it and every smaller one are at most
/// `level / (m - k)`. Returns each p-value's verdict, in the input order.
///
/// ```
/// let s = texel::discover::holm(&[0.01, 0.04, 0.03], 0.05);
/// assert_eq!(s, vec![true, false, false]); // 0.01 <= 0.05/3; 0.03 > 0.05/2
/// ```
pub fn holm(p: &[f64], level: f64) -> Vec<bool> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut out = vec![false; m];
    for (k, &i) in order.iter().enumerate() {
        if p[i] <= level / (m - k) as f64 {
            out[i] = true;
        } else {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three games by hand: d = (1, 2 | 0 | 4, -1, 3), games A A B C C C. N = 6, mean 9/6 =
    /// 1.5; D = (3, 0, 6), n = (2, 1, 3): deviations 3 - 3 = 0, 0 - 1.5 = -1.5, 6 - 4.5 = 1.5;
    /// sum of squares 4.5; SE = sqrt(3/2 * 4.5) / 6 = sqrt(6.75) / 6.
    #[test]
    fn clustered_se_by_hand() {
        let g = clustered(&[1.0, 2.0, 0.0, 4.0, -1.0, 3.0], &[1, 1, 2, 3, 3, 3]);
        assert!((g.gain - 1.5).abs() < 1e-15);
        assert!((g.se - 6.75f64.sqrt() / 6.0).abs() < 1e-15, "{}", g.se);
        assert!((g.z - 1.5 / (6.75f64.sqrt() / 6.0)).abs() < 1e-12);
        // The order of the positions does not matter.
        let h = clustered(&[4.0, 0.0, 1.0, -1.0, 2.0, 3.0], &[3, 2, 1, 3, 1, 3]);
        assert!((h.se - g.se).abs() < 1e-15);
    }

    /// Positions of one game are not independent: the clustered SE of a game repeated is
    /// larger than the naive one.
    #[test]
    fn clustering_widens_correlated_games() {
        let d = [1.0, 1.0, 1.0, -1.0, -1.0, -1.0, 0.5, 0.5, 0.5];
        let g = clustered(&d, &[1, 1, 1, 2, 2, 2, 3, 3, 3]);
        let naive = clustered(&d, &[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert!(g.se > naive.se, "{} {}", g.se, naive.se);
    }

    #[test]
    fn normal_tail() {
        assert!((upper_tail(0.0) - 0.5).abs() < 1e-7);
        assert!((upper_tail(1.959_964) - 0.025).abs() < 1e-7);
        assert!((upper_tail(-1.644_854) - 0.95).abs() < 1e-7);
    }

    #[test]
    fn holm_steps_down() {
        assert_eq!(holm(&[0.001, 0.02, 0.04], 0.05), vec![true, true, true]);
        assert_eq!(holm(&[0.2, 0.001], 0.05), vec![false, true]);
        assert!(holm(&[], 0.05).is_empty());
    }
}
