//! [`check_ports`]: an engine's port of a catalogue group (`eval::catalogue`) against
//! gradtune's own counts of that group, position by position.
//!
//! A manifest parameter that declares `"catalogue": "<group>"` says: *my elements are that
//! group's elements, in its order, and my trace counts are its counts*. `tune discover`
//! ranks the catalogue's groups; the author writes the chosen one in the engine and traces
//! it under such a parameter; `tune verify` then compares, on every traced position, the
//! engine's White and Black counts of each element (`t index:white:black`) with the
//! catalogue's ([`eval::catalogue::Group::counts`]) and lists the first disagreements with
//! their boards. A port that agrees with its own weights but counts something else (a
//! passed pawn's rank off by one, a table not mirrored for Black) passes the evaluation
//! check and fails this one.

use std::fmt;

use eval::catalogue::{self, Count, Group};

use crate::{Manifest, ParamDecl, Trace};

/// One element of one position where the engine's counts differ from the catalogue's.
#[derive(Clone, Debug, PartialEq)]
pub struct PortMismatch {
    /// The trace's index in the set.
    pub index: usize,
    /// Its FEN.
    pub fen: String,
    /// The element's name in the catalogue (`rank5`, `b1`, ...).
    pub element: String,
    /// The engine's White and Black counts.
    pub engine: (f32, f32),
    /// The catalogue's White and Black counts.
    pub catalogue: (i32, i32),
}

/// One ported parameter checked on every trace.
#[derive(Clone, Debug, PartialEq)]
pub struct PortReport {
    /// The manifest's parameter.
    pub param: String,
    /// The catalogue group it declares.
    pub group: String,
    /// Positions compared.
    pub checked: usize,
    /// Positions whose board could not be read as a legal position (not compared).
    pub unreadable: usize,
    /// Positions with at least one element whose counts differ.
    pub failed: usize,
    /// The first differing elements, in set order (at most the listed maximum).
    pub first: Vec<PortMismatch>,
}

impl PortReport {
    /// Whether every compared position agreed.
    pub fn passed(&self) -> bool {
        self.failed == 0
    }
}

impl fmt::Display for PortReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = match (self.failed, self.checked) {
            (0, n) => format!("all {n} positions agree"),
            (k, n) => format!("{k} of {n} positions differ"),
        };
        write!(
            f,
            "port {} of catalogue group `{}`: {verdict}",
            self.param, self.group
        )?;
        if self.unreadable > 0 {
            write!(f, " ({} boards not readable, skipped)", self.unreadable)?;
        }
        for m in &self.first {
            write!(
                f,
                "\n  #{} {}: {} engine White {} Black {}, catalogue White {} Black {}",
                m.index, m.fen, m.element, m.engine.0, m.engine.1, m.catalogue.0, m.catalogue.1
            )?;
        }
        Ok(())
    }
}

/// The catalogue group a parameter declares, checked against its shape: its element count
/// must be the group's. `None` for a parameter that declares none.
pub fn port_group(p: &ParamDecl) -> Result<Option<&'static Group>, String> {
    let Some(name) = p.catalogue.as_deref() else {
        return Ok(None);
    };
    let group = catalogue::find(name).ok_or_else(|| format!("no catalogue group `{name}`"))?;
    let elements: usize = p.shape.iter().product();
    if elements != group.len() {
        return Err(format!(
            "parameter `{}` declares catalogue group `{name}`, which has {} elements ({} .. {}), \
             but its shape {:?} has {elements}",
            p.name,
            group.len(),
            group.elements.first().map_or("", String::as_str),
            group.elements.last().map_or("", String::as_str),
            p.shape
        ));
    }
    Ok(Some(group))
}

/// Compares every parameter of `manifest` that declares a catalogue group with gradtune's
/// counts of that group on every trace, listing at most `max_listed` differing elements a
/// parameter. Empty when no parameter declares one. [`PortChecker`] does the same a batch
/// of traces at a time.
pub fn check_ports(
    manifest: &Manifest,
    traces: &[Trace],
    max_listed: usize,
) -> Result<Vec<PortReport>, String> {
    let mut checker = PortChecker::new(manifest, max_listed)?;
    checker.add(traces);
    Ok(checker.finish())
}

/// [`check_ports`] over consecutive batches of one set: the same reports, the positions
/// numbered in the whole set.
pub struct PortChecker<'m> {
    ports: Vec<(&'m ParamDecl, &'static Group)>,
    reports: Vec<PortReport>,
    max_listed: usize,
    /// Positions seen (the next batch's first index).
    seen: usize,
}

impl<'m> PortChecker<'m> {
    /// A checker of `manifest`'s ported parameters (an error names a parameter whose
    /// catalogue group is unknown or whose shape is not the group's).
    pub fn new(manifest: &'m Manifest, max_listed: usize) -> Result<PortChecker<'m>, String> {
        let mut ports = Vec::new();
        for p in manifest.params() {
            if let Some(group) = port_group(p)? {
                ports.push((p, group));
            }
        }
        let reports = ports
            .iter()
            .map(|(p, group)| PortReport {
                param: p.name.clone(),
                group: group.name.to_string(),
                checked: 0,
                unreadable: 0,
                failed: 0,
                first: Vec::new(),
            })
            .collect();
        Ok(PortChecker {
            ports,
            reports,
            max_listed,
            seen: 0,
        })
    }

    /// Checks the next traces of the set.
    pub fn add(&mut self, traces: &[Trace]) {
        for ((p, group), r) in self.ports.iter().zip(&mut self.reports) {
            check_port(p, group, traces, self.seen, self.max_listed, r);
        }
        self.seen += traces.len();
    }

    /// The reports, one a ported parameter.
    pub fn finish(self) -> Vec<PortReport> {
        self.reports
    }
}

/// One ported parameter on `traces`, the first numbered `first` in the set, into `r`.
fn check_port(
    p: &ParamDecl,
    group: &Group,
    traces: &[Trace],
    first: usize,
    max_listed: usize,
    r: &mut PortReport,
) {
    let (mut ours, mut engine, mut differ) = (Vec::new(), Vec::new(), Vec::new());
    for (index, t) in traces.iter().enumerate() {
        let Ok(pos) = t.position() else {
            r.unreadable += 1;
            continue;
        };
        r.checked += 1;
        group.counts(&pos, &mut ours);
        engine_counts(p, t, &mut engine);
        differing(&engine, &ours, &mut differ);
        if differ.is_empty() {
            continue;
        }
        r.failed += 1;
        for &(element, e, c) in &differ {
            if r.first.len() < max_listed {
                r.first.push(PortMismatch {
                    index: first + index,
                    fen: t.fen(),
                    element: group.elements[element as usize].clone(),
                    engine: e,
                    catalogue: c,
                });
            }
        }
    }
}

/// The trace's counts of `p`'s elements, `(element, white, black)` in element order.
fn engine_counts(p: &ParamDecl, t: &Trace, out: &mut Vec<(u32, f32, f32)>) {
    out.clear();
    let first = p.first_index;
    let end = first + p.shape.iter().product::<usize>() as u32;
    out.extend(
        t.coeffs
            .iter()
            .filter(|c| (first..end).contains(&c.0))
            .map(|&(i, w, b)| (i - first, w, b)),
    );
}

/// An element whose counts differ: `(element, engine's (White, Black), catalogue's)`.
type Difference = (u32, (f32, f32), (i32, i32));

/// The elements whose counts differ between the engine's (`(element, white, black)`, sorted)
/// and the catalogue's (sorted), with both sides' counts; an element absent from one side
/// counts 0 there.
fn differing(engine: &[(u32, f32, f32)], ours: &[Count], out: &mut Vec<Difference>) {
    out.clear();
    let (mut i, mut j) = (0, 0);
    while i < engine.len() || j < ours.len() {
        let e = engine.get(i).map_or(u32::MAX, |e| e.0);
        let c = ours.get(j).map_or(u32::MAX, |c| c.element);
        let element = e.min(c);
        let theirs = if e == element {
            i += 1;
            (engine[i - 1].1, engine[i - 1].2)
        } else {
            (0.0, 0.0)
        };
        let mine = if c == element {
            j += 1;
            (ours[j - 1].white, ours[j - 1].black)
        } else {
            (0, 0)
        };
        if theirs != (mine.0 as f32, mine.1 as f32) {
            out.push((element, theirs, mine));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differing_walks_both_lists_and_counts_an_absent_element_as_zero() {
        let engine = [(1, 1.0, 0.0), (3, 2.0, 1.0), (5, 0.0, 1.0)];
        let ours = [
            Count {
                element: 1,
                white: 1,
                black: 0,
            },
            Count {
                element: 3,
                white: 1,
                black: 1,
            },
            Count {
                element: 4,
                white: 0,
                black: 1,
            },
        ];
        let mut out = Vec::new();
        differing(&engine, &ours, &mut out);
        assert_eq!(
            out,
            [
                (3, (2.0, 1.0), (1, 1)),
                (4, (0.0, 0.0), (0, 1)),
                (5, (0.0, 1.0), (0, 0))
            ]
        );
        differing(&engine[..1], &ours[..1], &mut out);
        assert!(out.is_empty());
    }
}
