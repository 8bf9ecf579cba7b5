//! The odd-value search: which parameters look out of line against their piece-square
//! neighbours or their family's changes from the start values.

use std::collections::HashMap;

use eval::Model;
use serde::Serialize;
use shakmaty::Square;

/// Why a parameter looks out of line.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Oddness {
    /// What it is compared with: `neighbours` (the mean of the adjacent squares of its
    /// piece-square table) or `start` (its start value, against its family's changes).
    pub against: String,
    /// The value it is compared with.
    pub reference: f64,
    /// The distance in standard deviations of its table's (family's) distances.
    pub z: f64,
}

/// Names of `pst.<piece>.<phase>.<square>` parsed: the table and the square.
fn pst_square(name: &str) -> Option<(&str, Square)> {
    let rest = name.strip_prefix("pst.")?;
    let (table, square) = rest.rsplit_once('.')?;
    Some((table, square.parse().ok()?))
}

/// `(value - mean) / sd` over `xs`, or `None` when they do not spread.
fn standardise(xs: &[f64]) -> Option<Vec<f64>> {
    if xs.len() < 2 {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
    (sd > 1e-9 * (1.0 + mean.abs())).then(|| xs.iter().map(|x| (x - mean) / sd).collect())
}

/// Every touched parameter's oddness: piece-square entries against the mean of their touched
/// neighbours (king steps) in the same table, scaled by the spread of those differences over
/// the table; the others against their start value, scaled by the spread of the changes in
/// their family (group and phase).
pub fn oddness(model: &Model, w: &[f64], touched: &[usize]) -> Vec<Option<Oddness>> {
    let params = model.params();
    let mut out: Vec<Option<Oddness>> = vec![None; params.len()];
    let mut tables: HashMap<&str, HashMap<Square, usize>> = HashMap::new();
    let mut families: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, p) in params.iter().enumerate() {
        if touched[i] == 0 {
            continue;
        }
        match pst_square(&p.name) {
            Some((table, sq)) => {
                tables.entry(table).or_default().insert(sq, i);
            }
            None => {
                let phase = p
                    .name
                    .split('.')
                    .find(|c| *c == "mg" || *c == "eg")
                    .unwrap_or("");
                families
                    .entry(format!("{}.{phase}", p.group))
                    .or_default()
                    .push(i);
            }
        }
    }
    for squares in tables.values() {
        let mut members: Vec<(usize, f64)> = Vec::new();
        for (&sq, &i) in squares {
            let nb: Vec<f64> = shakmaty::attacks::king_attacks(sq)
                .into_iter()
                .filter_map(|s| squares.get(&s).map(|&j| w[j]))
                .collect();
            if !nb.is_empty() {
                members.push((i, nb.iter().sum::<f64>() / nb.len() as f64));
            }
        }
        against_neighbours(&members, w, &mut out);
    }
    for members in families.values() {
        against_start(members, w, |i| params[i].init, &mut out);
    }
    out
}

/// The family of a parameter for [`oddness_by_pairs`]: its group and its phase (`mg`, `eg` or
/// none), from the name's last component.
fn family(p: &optim::ParamSpec) -> String {
    let phase = match p.name.rsplit_once('.') {
        Some((_, last)) if last == "mg" || last == "eg" => last,
        _ => "",
    };
    format!("{}.{phase}", p.group)
}

/// [`oddness`] for any model that declares its neighbours as pairs (a traced manifest's
/// shapes, [`Tunable::smoothing_pairs`](crate::Tunable::smoothing_pairs)): a touched parameter
/// with touched neighbours against their mean, scaled by the spread of those differences in
/// its family (group and phase); the others against their start value, scaled by the spread
/// of their family's changes.
pub fn oddness_by_pairs(
    specs: &[optim::ParamSpec],
    pairs: &[(usize, usize)],
    w: &[f64],
    touched: &[usize],
) -> Vec<Option<Oddness>> {
    let n = specs.len();
    let mut out: Vec<Option<Oddness>> = vec![None; n];
    let mut nb: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in pairs {
        if a < n && b < n && touched[a] > 0 && touched[b] > 0 {
            nb[a].push(b);
            nb[b].push(a);
        }
    }
    let mut tables: HashMap<String, Vec<(usize, f64)>> = HashMap::new();
    let mut families: HashMap<String, Vec<usize>> = HashMap::new();
    for i in (0..n).filter(|&i| touched[i] > 0) {
        if nb[i].is_empty() {
            families.entry(family(&specs[i])).or_default().push(i);
        } else {
            let mean = nb[i].iter().map(|&j| w[j]).sum::<f64>() / nb[i].len() as f64;
            tables.entry(family(&specs[i])).or_default().push((i, mean));
        }
    }
    for members in tables.values() {
        against_neighbours(members, w, &mut out);
    }
    for members in families.values() {
        against_start(members, w, |i| specs[i].init, &mut out);
    }
    out
}

/// Each `(i, m)` of a table against `m`, the mean of its neighbours, in units of the table's
/// root-mean-square difference (scale only: the differences are not centred); none for fewer
/// than two members or no spread.
fn against_neighbours(members: &[(usize, f64)], w: &[f64], out: &mut [Option<Oddness>]) {
    let devs: Vec<f64> = members.iter().map(|&(i, m)| w[i] - m).collect();
    let sd = (devs.iter().map(|d| d * d).sum::<f64>() / devs.len().max(1) as f64).sqrt();
    if devs.len() < 2 || sd <= 1e-9 {
        return;
    }
    for (&(i, m), d) in members.iter().zip(&devs) {
        out[i] = Some(Oddness {
            against: "neighbours".to_string(),
            reference: m,
            z: d / sd,
        });
    }
}

/// Each member of a family of four or more against its start value `init(i)`, standardised
/// over the family's changes.
fn against_start(
    members: &[usize],
    w: &[f64],
    init: impl Fn(usize) -> f64,
    out: &mut [Option<Oddness>],
) {
    if members.len() < 4 {
        return;
    }
    let changes: Vec<f64> = members.iter().map(|&i| w[i] - init(i)).collect();
    if let Some(z) = standardise(&changes) {
        for (&i, z) in members.iter().zip(z) {
            out[i] = Some(Oddness {
                against: "start".to_string(),
                reference: init(i),
                z,
            });
        }
    }
}
