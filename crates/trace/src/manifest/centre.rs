//! Centring of exactly flat directions (the manifest's `centre`): a table whose mean, group by
//! group and phase by phase, moves into a named value without changing any evaluation (4ku's
//! `pst_rank` rows against `material`: every piece on the board adds `material[p]` and
//! `8 * pst_rank[p * 8 + rank]`, so adding `c` to a row and `8 c` to the value is invisible).

use super::decl::{CentreMove, Centring, Manifest, ParamDecl};
use super::field::Field;
use super::json::{at, join, Doc};
use super::raw::{RawCentre, CENTRE_KEYS};
use crate::TraceError;

/// The manifest's `centre` list, validated against its parameters.
pub(super) fn parse(
    doc: &Doc,
    centre: Field<Vec<Field<RawCentre>>>,
    params: &[ParamDecl],
) -> Result<Vec<Centring>, TraceError> {
    let Some(list) = doc.optional(centre, "$", "centre", "an array")? else {
        return Ok(Vec::new());
    };
    list.into_iter()
        .enumerate()
        .map(|(i, c)| one(doc, c, &at("centre", i), params))
        .collect()
}

/// The parameter named by field `key` (`f`) of the centring at `path`, by number.
fn param_of(
    doc: &Doc,
    f: Field<String>,
    key: &str,
    path: &str,
    params: &[ParamDecl],
) -> Result<usize, TraceError> {
    let name = doc.required_string(f, path, key)?;
    let k = params
        .iter()
        .position(|p| p.name == name)
        .ok_or_else(|| doc.err(&join(path, key), format!("no parameter is named `{name}`")))?;
    if params[k].frozen {
        return Err(doc.err(
            &join(path, key),
            format!("`{name}` is frozen: centring would move it"),
        ));
    }
    Ok(k)
}

fn one(
    doc: &Doc,
    v: Field<RawCentre>,
    path: &str,
    params: &[ParamDecl],
) -> Result<Centring, TraceError> {
    let o = doc.expect(v.read(), path, "an object")?;
    doc.known_keys(&o.unknown, &CENTRE_KEYS, path)?;
    let table = param_of(doc, o.table, "table", path, params)?;
    let into = param_of(doc, o.into, "into", path, params)?;
    let (t, i) = (&params[table], &params[into]);
    if table == into {
        return Err(doc.err(&join(path, "into"), "a table cannot centre into itself"));
    }
    if t.tapered != i.tapered {
        return Err(doc.err(
            path,
            format!(
                "`{}` and `{}` must both be tapered or both not (one mean per phase)",
                t.name, i.name
            ),
        ));
    }
    if t.len() % i.len() != 0 {
        return Err(doc.err(
            path,
            format!(
                "`{}` has {} elements, not a whole number of groups for the {} of `{}`",
                t.name,
                t.len(),
                i.len(),
                i.name
            ),
        ));
    }
    let per = t.len() / i.len();
    let scale = match o.scale.found() {
        None => 1.0,
        Some(s) => doc.number(s, &join(path, "scale"))?,
    };
    if scale == 0.0 {
        return Err(doc.err(&join(path, "scale"), "a scale of 0 moves nothing"));
    }
    let groups = groups(doc, o.groups, path, i.len())?;
    let exclude = exclude(doc, o.exclude, path, t)?;
    for &g in &groups {
        if (g * per..(g + 1) * per).all(|e| exclude.contains(&e)) {
            return Err(doc.err(
                &join(path, "exclude"),
                format!("every element of group {g} is excluded: it has no mean"),
            ));
        }
    }
    Ok(Centring {
        table,
        into,
        per,
        scale,
        groups,
        exclude,
    })
}

/// `groups`: distinct numbers below `n`, ascending; absent: all of them.
fn groups(
    doc: &Doc,
    groups: Field<Vec<Field<u64>>>,
    path: &str,
    n: usize,
) -> Result<Vec<usize>, TraceError> {
    let Some(list) = doc.optional(groups, path, "groups", "an array")? else {
        return Ok((0..n).collect());
    };
    let gp = join(path, "groups");
    let mut out = Vec::new();
    for (k, g) in list.into_iter().enumerate() {
        let g = doc.whole(g.read(), 0, n as u64 - 1, &at(&gp, k))? as usize;
        if out.contains(&g) {
            return Err(doc.err(&at(&gp, k), format!("group {g} twice")));
        }
        out.push(g);
    }
    out.sort_unstable();
    Ok(out)
}

/// `exclude`: element names of the table (`pst_rank[6]`), as row-major offsets.
fn exclude(
    doc: &Doc,
    exclude: Field<Vec<Field<String>>>,
    path: &str,
    t: &ParamDecl,
) -> Result<Vec<usize>, TraceError> {
    let Some(list) = doc.optional(exclude, path, "exclude", "an array")? else {
        return Ok(Vec::new());
    };
    let ep = join(path, "exclude");
    let mut out = Vec::new();
    for (k, e) in list.into_iter().enumerate() {
        let name = e
            .read()
            .map_err(|e| doc.err(&at(&ep, k), format!("expected an element name, found {e}")))?;
        let off = (0..t.len()).find(|&off| t.element_name(off) == name);
        match off {
            Some(off) => out.push(off),
            None => {
                return Err(doc.err(
                    &at(&ep, k),
                    format!(
                        "`{name}` is not an element of `{}` (e.g. `{}`)",
                        t.name,
                        t.element_name(0)
                    ),
                ))
            }
        }
    }
    Ok(out)
}

impl Manifest {
    /// The declared centrings (the manifest's `centre`), in order.
    pub fn centrings(&self) -> &[Centring] {
        &self.centre
    }

    /// Applies every declared centring to the weights `w` (in place), in order, and says what
    /// moved. A group and phase whose moved values would leave their bounds is left alone
    /// (reported as skipped). The evaluation is unchanged when the declared directions are
    /// flat, as the manifest's author states; it is up to the caller to check the loss.
    pub fn centre(&self, w: &mut [f64]) -> Vec<CentreMove> {
        let mut moves = Vec::new();
        for c in &self.centre {
            let (t, i) = (&self.params[c.table], &self.params[c.into]);
            let per = t.per_element();
            for &g in &c.groups {
                for phase in 0..per {
                    let members: Vec<usize> = (g * c.per..(g + 1) * c.per)
                        .filter(|e| !c.exclude.contains(e))
                        .map(|e| t.first_weight + e * per + phase)
                        .collect();
                    let target = i.first_weight + g * per + phase;
                    moves.push(self.move_mean(c, t, g, &members, target, w));
                }
            }
        }
        moves
    }

    /// Moves the mean of the weights `members` of group `g` into weight `target`.
    fn move_mean(
        &self,
        c: &Centring,
        t: &ParamDecl,
        g: usize,
        members: &[usize],
        target: usize,
        w: &mut [f64],
    ) -> CentreMove {
        let mean = members.iter().map(|&k| w[k]).sum::<f64>() / members.len() as f64;
        let added = c.scale * mean;
        let inside = |k: usize, v: f64| {
            self.weights[k]
                .bounds
                .is_none_or(|(lo, hi)| (lo..=hi).contains(&v))
        };
        let skipped =
            !members.iter().all(|&k| inside(k, w[k] - mean)) || !inside(target, w[target] + added);
        if !skipped {
            for &k in members {
                w[k] -= mean;
            }
            w[target] += added;
        }
        let suffix = self.weights[target]
            .name
            .rsplit_once('.')
            .filter(|_| t.tapered)
            .map_or(String::new(), |(_, p)| format!(".{p}"));
        let rows = t.shape.len() > 1 && t.shape[0] * c.per == t.len();
        let group = if rows {
            format!("{}[{g}]", t.name)
        } else {
            format!("{}[{}..{}]", t.name, g * c.per, (g + 1) * c.per)
        };
        CentreMove {
            from: group + &suffix,
            into: self.weights[target].name.clone(),
            mean,
            added,
            skipped,
        }
    }
}
