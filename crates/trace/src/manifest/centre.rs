//! Centring of exactly flat directions (the manifest's `centre`): a set of elements whose mean,
//! phase by phase, moves into a named element without changing any evaluation (4ku's
//! `pst_rank` rows against `material`: every piece on the board adds `material[p]` and
//! `8 * pst_rank[p * 8 + rank]`, so adding `c` to a row and `8 c` to the value is invisible).
//! Two forms: `table` (a table's groups, each into its element of `into`) and `elements` (one
//! set of elements from any parameters, into one element or none: a piece's mobility table
//! into its value, a king's table that both sides always have once).

use super::decl::{CentreMove, CentreSet, Centring, FlatDirection, Manifest, ParamDecl};
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
    let mut o = doc.expect(v.read(), path, "an object")?;
    doc.known_keys(&o.unknown, &CENTRE_KEYS, path)?;
    let scale = match std::mem::take(&mut o.scale).found() {
        None => 1.0,
        Some(s) => doc.number(s, &join(path, "scale"))?,
    };
    if scale == 0.0 {
        return Err(doc.err(&join(path, "scale"), "a scale of 0 moves nothing"));
    }
    let has = |missing: bool| !missing;
    let table = has(matches!(o.table, Field::Missing));
    let elements = has(matches!(o.elements, Field::Missing));
    match (table, elements) {
        (true, true) => Err(doc.err(
            path,
            "a centring names a `table` (its groups into `into`'s elements) or `elements` (one \
             set), not both",
        )),
        (false, false) => Err(doc.err(
            path,
            "missing `table` or `elements`: the parameters whose mean moves",
        )),
        (true, false) => by_table(doc, o, path, params, scale),
        (false, true) => by_elements(doc, o, path, params, scale),
    }
}

/// The `table` form: the table's groups, each into its element of `into`.
fn by_table(
    doc: &Doc,
    o: RawCentre,
    path: &str,
    params: &[ParamDecl],
    scale: f64,
) -> Result<Centring, TraceError> {
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
                "`{}` has {} elements, not a whole number of groups for the {} of `{}`; to \
                 centre a table into one element, name it: \"elements\": [\"{}\"], \"into\": \
                 \"{}\"",
                t.name,
                t.len(),
                i.len(),
                i.name,
                t.name,
                i.element_name(0)
            ),
        ));
    }
    let per = t.len() / i.len();
    let groups = groups(doc, o.groups, path, i.len())?;
    let exclude = exclude(doc, o.exclude, path, t)?;
    let mut sets = Vec::with_capacity(groups.len());
    for &g in &groups {
        let members: Vec<u32> = (g * per..(g + 1) * per)
            .filter(|e| !exclude.contains(e))
            .map(|e| t.first_index + e as u32)
            .collect();
        if members.is_empty() {
            return Err(doc.err(
                &join(path, "exclude"),
                format!("every element of group {g} is excluded: it has no mean"),
            ));
        }
        let rows = t.shape.len() > 1 && t.shape[0] * per == t.len();
        let label = if rows {
            format!("{}[{g}]", t.name)
        } else {
            format!("{}[{}..{}]", t.name, g * per, (g + 1) * per)
        };
        sets.push(CentreSet {
            label,
            members,
            into: Some(i.first_index + g as u32),
        });
    }
    Ok(Centring {
        scale,
        tapered: t.tapered,
        sets,
    })
}

/// The `elements` form: one set of elements from any parameters, its mean into one element
/// (or into none).
fn by_elements(
    doc: &Doc,
    o: RawCentre,
    path: &str,
    params: &[ParamDecl],
    scale: f64,
) -> Result<Centring, TraceError> {
    if o.groups.found().is_some() {
        return Err(doc.err(
            &join(path, "groups"),
            "`groups` goes with `table`; `elements` is one set (declare one centring a set)",
        ));
    }
    let list = doc.required(o.elements, path, "elements", "an array of names")?;
    let mut tapered = None;
    let (members, names) = element_members(doc, list, path, params, &mut tapered)?;
    let into = into_element(doc, o.into, path, params, &members, &mut tapered)?;
    let excluded = excluded_elements(doc, o.exclude, path, params, &members)?;
    let members: Vec<u32> = members
        .into_iter()
        .map(|(i, _)| i)
        .filter(|i| !excluded.contains(i))
        .collect();
    if members.is_empty() {
        return Err(doc.err(
            &join(path, "exclude"),
            "every element is excluded: there is no mean",
        ));
    }
    Ok(Centring {
        scale,
        tapered: tapered.unwrap_or(true),
        sets: vec![CentreSet {
            label: names.join(" + "),
            members,
            into,
        }],
    })
}

/// The elements of an `elements` centring: each one's index with the name that brought it in
/// (for the messages).
type Members = Vec<(u32, String)>;

/// The `elements` of the centring at `path` (`list`, not empty, each named once): the
/// [`Members`] and the names. Their taper is checked against `tapered` (see [`check_taper`]).
fn element_members(
    doc: &Doc,
    list: Vec<Field<String>>,
    path: &str,
    params: &[ParamDecl],
    tapered: &mut Option<bool>,
) -> Result<(Members, Vec<String>), TraceError> {
    let ep = join(path, "elements");
    if list.is_empty() {
        return Err(doc.err(&ep, "no element named: nothing to centre"));
    }
    let mut members = Members::new();
    let mut names = Vec::new();
    for (k, f) in list.into_iter().enumerate() {
        let at_k = at(&ep, k);
        let name = doc.expect(f.read(), &at_k, "a name")?;
        let (p, offsets) = named(doc, &name, &at_k, params)?;
        let decl = &params[p];
        check_taper(doc, &at_k, decl, tapered)?;
        for off in offsets {
            let index = decl.first_index + off as u32;
            if let Some((_, first)) = members.iter().find(|(i, _)| *i == index) {
                return Err(doc.err(
                    &at_k,
                    format!(
                        "`{}` is named twice (also by `{first}`)",
                        decl.element_name(off)
                    ),
                ));
            }
            members.push((index, name.clone()));
        }
        names.push(name);
    }
    Ok((members, names))
}

/// The index of the `into` element of the centring at `path` (`None`: absent): one element,
/// not among the `members`, with their taper (see [`check_taper`]).
fn into_element(
    doc: &Doc,
    into: Field<String>,
    path: &str,
    params: &[ParamDecl],
    members: &[(u32, String)],
    tapered: &mut Option<bool>,
) -> Result<Option<u32>, TraceError> {
    let Some(found) = into.found() else {
        return Ok(None);
    };
    let ip = join(path, "into");
    let name = doc.expect(found, &ip, "an element name")?;
    let (p, offsets) = named(doc, &name, &ip, params)?;
    let decl = &params[p];
    let [off] = offsets[..] else {
        return Err(doc.err(
            &ip,
            format!(
                "`{name}` has {} elements: `into` is one element (e.g. `{}`)",
                offsets.len(),
                decl.element_name(offsets[0])
            ),
        ));
    };
    check_taper(doc, &ip, decl, tapered)?;
    let index = decl.first_index + off as u32;
    if members.iter().any(|(i, _)| *i == index) {
        return Err(doc.err(&ip, format!("`{name}` is also one of the elements")));
    }
    Ok(Some(index))
}

/// The indices of the `exclude` list of the `elements` centring at `path` (none when
/// absent): each one of the `members`.
fn excluded_elements(
    doc: &Doc,
    exclude: Field<Vec<Field<String>>>,
    path: &str,
    params: &[ParamDecl],
    members: &[(u32, String)],
) -> Result<Vec<u32>, TraceError> {
    let Some(found) = exclude.found() else {
        return Ok(Vec::new());
    };
    let xp = join(path, "exclude");
    let list = doc.expect(found, &xp, "an array of element names")?;
    let mut out = Vec::new();
    for (k, f) in list.into_iter().enumerate() {
        let at_k = at(&xp, k);
        let name = doc.expect(f.read(), &at_k, "an element name")?;
        let (p, offsets) = named(doc, &name, &at_k, params)?;
        for off in offsets {
            let index = params[p].first_index + off as u32;
            if !members.iter().any(|(i, _)| *i == index) {
                return Err(doc.err(&at_k, format!("`{name}` is not among the elements")));
            }
            out.push(index);
        }
    }
    Ok(out)
}

/// Refuses a parameter whose taper differs from the others' (`seen`, set by the first).
fn check_taper(
    doc: &Doc,
    path: &str,
    decl: &ParamDecl,
    seen: &mut Option<bool>,
) -> Result<(), TraceError> {
    if decl.frozen {
        return Err(doc.err(
            path,
            format!("`{}` is frozen: centring would move it", decl.name),
        ));
    }
    match *seen {
        Some(t) if t != decl.tapered => Err(doc.err(
            path,
            format!(
                "`{}` is {}tapered, the elements before it are {}: a centring's elements and \
                 `into` are all tapered or all not (one mean per phase)",
                decl.name,
                if decl.tapered { "" } else { "not " },
                if t { "tapered" } else { "not" }
            ),
        )),
        _ => {
            *seen = Some(decl.tapered);
            Ok(())
        }
    }
}

/// The elements a name stands for: a parameter (`pst`: every element), a part of one by its
/// first indices (`pst[4]`: row 4 of a table) or one element (`pst[4][12]`, or a scalar's
/// name). Returns the parameter and the elements' row-major offsets.
fn named(
    doc: &Doc,
    name: &str,
    path: &str,
    params: &[ParamDecl],
) -> Result<(usize, Vec<usize>), TraceError> {
    let (base, mut rest) = name.split_at(name.find('[').unwrap_or(name.len()));
    let p = params.iter().position(|p| p.name == base).ok_or_else(|| {
        doc.err(
            path,
            format!("no parameter is named `{base}` (in `{name}`)"),
        )
    })?;
    let decl = &params[p];
    let mut prefix = Vec::new();
    while !rest.is_empty() {
        let bad = || {
            doc.err(
                path,
                format!(
                    "`{name}`: expected `{base}` followed by up to {} indices such as `[0]`",
                    decl.shape.len()
                ),
            )
        };
        let inner = rest.strip_prefix('[').ok_or_else(bad)?;
        let close = inner.find(']').ok_or_else(bad)?;
        let k: usize = inner[..close].parse().map_err(|_| bad())?;
        let dim = prefix.len();
        if dim >= decl.shape.len() {
            return Err(bad());
        }
        if k >= decl.shape[dim] {
            return Err(doc.err(
                path,
                format!(
                    "`{name}`: index {k} is out of range (dimension {dim} of `{base}` has {})",
                    decl.shape[dim]
                ),
            ));
        }
        prefix.push(k);
        rest = &inner[close + 1..];
    }
    // The offsets whose leading indices are `prefix`: one block of consecutive offsets.
    let inner: usize = decl.shape[prefix.len()..].iter().product();
    let mut first = 0;
    for (&k, &n) in prefix.iter().zip(&decl.shape) {
        first = first * n + k;
    }
    first *= inner;
    Ok((p, (first..first + inner).collect()))
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

    /// The weights of a centring's set in one phase (0: `.mg` or untapered, 1: `.eg`): its
    /// members' and its `into`'s.
    fn set_weights(&self, set: &CentreSet, phase: usize) -> (Vec<usize>, Option<usize>) {
        let weight = |i: u32| self.elements[i as usize].weight as usize + phase;
        (
            set.members.iter().map(|&i| weight(i)).collect(),
            set.into.map(weight),
        )
    }

    /// The phases of a centring and their suffix (`.mg`, `.eg`, or none untapered).
    fn phases(c: &Centring) -> &'static [(usize, &'static str)] {
        if c.tapered {
            &[(0, ".mg"), (1, ".eg")]
        } else {
            &[(0, "")]
        }
    }

    /// Applies every declared centring to the weights `w` (in place), in order, and says what
    /// moved. A set and phase whose moved values would leave their bounds is left alone
    /// (reported as skipped). The evaluation is unchanged when the declared directions are
    /// flat, as the manifest's author states and a tuning run checks on its traces
    /// ([`flat_directions`](Self::flat_directions)).
    pub fn centre(&self, w: &mut [f64]) -> Vec<CentreMove> {
        let mut moves = Vec::new();
        for c in &self.centre {
            for set in &c.sets {
                for &(phase, suffix) in Self::phases(c) {
                    let (members, into) = self.set_weights(set, phase);
                    let mut m = self.move_mean(c.scale, &members, into, w);
                    m.from = format!("{}{suffix}", set.label);
                    moves.push(m);
                }
            }
        }
        moves
    }

    /// Every direction the `centre` declarations claim flat: for each set and phase, its
    /// members' weights moved by 1 and its `into`'s by `-scale`.
    pub fn flat_directions(&self) -> Vec<FlatDirection> {
        let mut out = Vec::new();
        for (k, c) in self.centre.iter().enumerate() {
            for set in &c.sets {
                for &(phase, suffix) in Self::phases(c) {
                    let (members, into) = self.set_weights(set, phase);
                    let mut weights: Vec<(usize, f64)> =
                        members.into_iter().map(|m| (m, 1.0)).collect();
                    let mut what = format!("{}{suffix}", set.label);
                    if let Some(i) = into {
                        weights.push((i, -c.scale));
                        what += &format!(" -> {}", self.weights[i].name);
                    }
                    out.push(FlatDirection {
                        at: format!("{}: centre[{k}]", self.origin),
                        what,
                        weights,
                    });
                }
            }
        }
        out
    }

    /// Moves the mean of the weights `members` into weight `into` (times `scale`), or out of
    /// them only.
    fn move_mean(
        &self,
        scale: f64,
        members: &[usize],
        into: Option<usize>,
        w: &mut [f64],
    ) -> CentreMove {
        let mean = members.iter().map(|&k| w[k]).sum::<f64>() / members.len() as f64;
        let added = into.map_or(0.0, |_| scale * mean);
        let inside = |k: usize, v: f64| {
            self.weights[k]
                .bounds
                .is_none_or(|(lo, hi)| (lo..=hi).contains(&v))
        };
        let skipped = !members.iter().all(|&k| inside(k, w[k] - mean))
            || into.is_some_and(|i| !inside(i, w[i] + added));
        if !skipped {
            for &k in members {
                w[k] -= mean;
            }
            if let Some(i) = into {
                w[i] += added;
            }
        }
        CentreMove {
            from: String::new(),
            into: into.map_or(String::new(), |i| self.weights[i].name.clone()),
            mean,
            added,
            skipped,
        }
    }
}
