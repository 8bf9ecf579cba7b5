//! The coordinates SPSA moves: directions in the space of an evaluation's weights.
//!
//! Perturbing a thousand weights one by one asks games to resolve a thousand signs at once;
//! perturbing a few shapes (a table's slope from rank 1 to rank 8, its centre against its
//! rim, a piece's value, the scale of the whole evaluation) asks for a few, each of which the
//! search can feel. A [`Basis`] is a list of such [`Direction`]s: the weights played are the
//! start plus `x_j` times each direction, kept within the parameters' bounds.

use super::Tunable;

/// One coordinate: a direction in weight space and how far SPSA perturbs along it.
#[derive(Clone, Debug, PartialEq)]
pub struct Direction {
    /// A name for reports: `pst.knight.mg:rank`, `material.rook.eg`, `scale`.
    pub name: String,
    /// `(parameter index, amount)`: moving the coordinate by 1 moves each parameter by its
    /// amount. The largest amount is 1 in magnitude, so one unit is one centipawn at the
    /// parameter moved most (except for `scale`, where one unit is 1% of every weight).
    pub entries: Vec<(usize, f64)>,
    /// The perturbation at the first iteration, in the coordinate's units (set in evaluation
    /// units by [`Basis::calibrate`]).
    pub c: f64,
    /// Bounds of the coordinate (a single parameter's own bounds; unbounded otherwise).
    pub bounds: (f64, f64),
}

/// How to cut the weights into coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BasisKind {
    /// One coordinate per parameter (what engines exposing spin options are tuned with).
    Each,
    /// Shapes: every 64-square table's rank slope and centre, every numbered series' offset
    /// and slope, each other parameter alone, and the scale of all weights.
    #[default]
    Tables,
}

/// The coordinates of a run (see the module's documentation).
///
/// ```
/// use engine::spsa::{Basis, BasisKind, Tunable};
/// let mut names = vec!["material.knight.mg".to_string()];
/// names.extend((0..=8).map(|n| format!("mobility.knight.{n}.mg")));
/// let tunables: Vec<Tunable> = names.iter().map(|n| Tunable::unbounded(n, 10.0)).collect();
/// let basis = Basis::new(BasisKind::Tables, &tunables, 5.0, false);
/// let names: Vec<&str> = basis.directions.iter().map(|d| d.name.as_str()).collect();
/// assert_eq!(names, ["material.knight.mg", "mobility.knight.mg:offset", "mobility.knight.mg:slope"]);
/// // The start plus 4 along the slope: -4 at 0 moves, +4 at 8, 0 at 4.
/// let w = basis.weights(&tunables, &[0.0, 0.0, 4.0]);
/// assert_eq!((w[0], w[1], w[5], w[9]), (10.0, 6.0, 10.0, 14.0));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Basis {
    /// The coordinates, in order.
    pub directions: Vec<Direction>,
}

/// The phase token of a name (`mg` or `eg`), if any.
fn is_phase(token: &str) -> bool {
    token == "mg" || token == "eg"
}

/// A square name `a1`..`h8` as (file, rank) from 0.
fn square(token: &str) -> Option<(usize, usize)> {
    let b = token.as_bytes();
    (b.len() == 2 && (b'a'..=b'h').contains(&b[0]) && (b'1'..=b'8').contains(&b[1]))
        .then(|| ((b[0] - b'a') as usize, (b[1] - b'1') as usize))
}

/// A numbered index: `7`, `rank3`.
fn number(token: &str) -> Option<usize> {
    token.trim_start_matches("rank").parse().ok()
}

/// Where a parameter belongs: its series key (name without its index, phase kept) and its
/// index in the series, or `None` for a parameter on its own.
fn series_of(name: &str) -> Option<(String, Index)> {
    let sep = if name.contains('.') { '.' } else { '_' };
    let tokens: Vec<&str> = name.split(sep).collect();
    let at = tokens.iter().rposition(|t| !is_phase(t))?;
    let index = match (square(tokens[at]), number(tokens[at])) {
        (Some(sq), _) => Index::Square(sq),
        (None, Some(n)) => Index::Number(n),
        _ => return None,
    };
    let mut key: Vec<&str> = tokens.clone();
    key.remove(at);
    (!key.is_empty()).then(|| (key.join(&sep.to_string()), index))
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Index {
    Square((usize, usize)),
    Number(usize),
}

/// Scales a direction's amounts so the largest is 1 in magnitude (empty if all are 0).
fn normalised(entries: Vec<(usize, f64)>) -> Vec<(usize, f64)> {
    let top = entries.iter().map(|e| e.1.abs()).fold(0.0, f64::max);
    if top == 0.0 {
        return Vec::new();
    }
    entries
        .into_iter()
        .filter(|e| e.1 != 0.0)
        .map(|(i, a)| (i, a / top))
        .collect()
}

/// The perturbation of the `scale` coordinate, in percent of every weight.
pub const SCALE_C: f64 = 10.0;

const UNBOUNDED: (f64, f64) = (f64::NEG_INFINITY, f64::INFINITY);

impl Basis {
    /// The basis of `kind` over `tunables`; `c` is the perturbation in centipawns of every
    /// coordinate (for a parameter that is not a whole number by nature, 5% of its start
    /// value), with `scale` a coordinate scaling every whole-number weight (perturbed by
    /// [`SCALE_C`] percent).
    pub fn new(kind: BasisKind, tunables: &[Tunable], c: f64, scale: bool) -> Basis {
        let single = |i: usize, t: &Tunable| Direction {
            name: t.name.clone(),
            entries: vec![(i, 1.0)],
            c: if t.integer {
                c
            } else {
                (t.start.abs() * 0.05).max(0.01)
            },
            bounds: (t.lower - t.start, t.upper - t.start),
        };
        let mut directions = Vec::new();
        if kind == BasisKind::Each {
            directions.extend(tunables.iter().enumerate().map(|(i, t)| single(i, t)));
        } else {
            // Series in the order of their first member; singletons where they stand.
            let mut series: Vec<(String, Vec<(usize, Index)>)> = Vec::new();
            let mut order: Vec<Result<usize, usize>> = Vec::new();
            for (i, t) in tunables.iter().enumerate() {
                let found = t.integer.then(|| series_of(&t.name)).flatten();
                match found {
                    Some((key, index)) => match series.iter().position(|s| s.0 == key) {
                        Some(s) => series[s].1.push((i, index)),
                        None => {
                            order.push(Ok(series.len()));
                            series.push((key, vec![(i, index)]));
                        }
                    },
                    None => order.push(Err(i)),
                }
            }
            for item in order {
                match item {
                    Err(i) => directions.push(single(i, &tunables[i])),
                    Ok(s) => directions.extend(series_directions(&series[s], tunables, c)),
                }
            }
        }
        if scale {
            let entries: Vec<(usize, f64)> = tunables
                .iter()
                .enumerate()
                .filter(|(_, t)| t.integer && t.start != 0.0)
                .map(|(i, t)| (i, t.start / 100.0))
                .collect();
            if !entries.is_empty() {
                directions.push(Direction {
                    name: "scale".into(),
                    entries,
                    c: SCALE_C,
                    bounds: (-50.0, 100.0),
                });
            }
        }
        Basis { directions }
    }

    /// The number of coordinates.
    pub fn len(&self) -> usize {
        self.directions.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.directions.is_empty()
    }

    /// The weights at coordinates `x`: each tunable's start plus `x_j` times each direction,
    /// within its bounds (and rounded, for a whole-number tunable).
    pub fn weights(&self, tunables: &[Tunable], x: &[f64]) -> Vec<f64> {
        let mut w: Vec<f64> = tunables.iter().map(|t| t.start).collect();
        for (d, &xj) in self.directions.iter().zip(x) {
            for &(i, amount) in &d.entries {
                if let Some(wi) = w.get_mut(i) {
                    *wi += xj * amount;
                }
            }
        }
        for (wi, t) in w.iter_mut().zip(tunables) {
            *wi = wi.clamp(t.lower, t.upper);
        }
        w
    }
}

/// Numbered series shorter than this are taken member by member (piece values, passed pawns
/// by rank): their entries mean too different things for one offset and slope.
const MIN_SERIES: usize = 7;

/// The directions of one series: rank slope and centre for a table of squares, offset and
/// slope for numbered entries, each member alone for a short series.
fn series_directions(
    (key, members): &(String, Vec<(usize, Index)>),
    tunables: &[Tunable],
    c: f64,
) -> Vec<Direction> {
    // An engine's table indexed 0..63 is a table of squares (a1 or a8 first: a slope's sign
    // is SPSA's to find either way).
    let numbered: Vec<usize> = members
        .iter()
        .filter_map(|m| match m.1 {
            Index::Number(n) => Some(n),
            Index::Square(_) => None,
        })
        .collect();
    let members: Vec<(usize, Index)> = if numbered.len() == 64 && numbered.iter().all(|&n| n < 64) {
        members
            .iter()
            .map(|&(i, at)| match at {
                Index::Number(n) => (i, Index::Square((n % 8, n / 8))),
                square => (i, square),
            })
            .collect()
    } else {
        members.clone()
    };
    let direction = |what: &str, f: &dyn Fn(Index) -> f64| Direction {
        name: format!("{key}:{what}"),
        entries: normalised(members.iter().map(|&(i, at)| (i, f(at))).collect()),
        c,
        bounds: UNBOUNDED,
    };
    let squares = members.iter().all(|m| matches!(m.1, Index::Square(_)));
    if members.len() < MIN_SERIES {
        return members
            .iter()
            .map(|&(i, _)| Direction {
                name: tunables[i].name.clone(),
                entries: vec![(i, 1.0)],
                c,
                bounds: (
                    tunables[i].lower - tunables[i].start,
                    tunables[i].upper - tunables[i].start,
                ),
            })
            .collect();
    }
    let out = if squares {
        // A table's mean is its piece's value (a parameter of its own in every engine).
        let rank = |at: Index| match at {
            Index::Square((_, r)) => (r as f64 - 3.5) / 3.5,
            Index::Number(_) => 0.0,
        };
        let centre = |at: Index| match at {
            Index::Square((f, r)) => {
                let d = (f as f64 - 3.5).abs() + (r as f64 - 3.5).abs();
                (4.0 - d) / 3.0
            }
            Index::Number(_) => 0.0,
        };
        vec![direction("rank", &rank), direction("centre", &centre)]
    } else {
        let (lo, hi) = members
            .iter()
            .fold((usize::MAX, 0), |(lo, hi), m| match m.1 {
                Index::Number(n) => (lo.min(n), hi.max(n)),
                Index::Square(_) => (lo, hi),
            });
        let span = (hi.saturating_sub(lo)).max(1) as f64;
        let slope = move |at: Index| match at {
            Index::Number(n) => 2.0 * (n - lo) as f64 / span - 1.0,
            Index::Square(_) => 0.0,
        };
        vec![direction("offset", &|_| 1.0), direction("slope", &slope)]
    };
    out.into_iter().filter(|d| !d.entries.is_empty()).collect()
}
