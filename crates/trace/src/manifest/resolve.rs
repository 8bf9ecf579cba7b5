//! The manifest's terms and evaluation formula: parsed, every name resolved to what it means
//! where it is used, every sum matched to exactly one term.

use serde_json::Value;

use super::decl::{Manifest, ParamDecl, Ref, Term};
use super::field::Field;
use super::json::{at, join, Doc};
use super::raw::{RawTerm, TERM_KEYS};
use crate::expr::{Expr, ExprError, Name, Node};
use crate::TraceError;

/// Where an expression is evaluated.
#[derive(Clone, Copy)]
enum Place {
    /// A term's `mg` or `eg`.
    Term { has_sum: bool, per_side: bool },
    /// The evaluation formula.
    Eval,
}

/// The manifest's `terms` and `eval`, resolved against its names, into `m`.
pub(super) fn terms_and_eval(
    doc: &Doc,
    terms: Field<Vec<Field<RawTerm>>>,
    eval: Field<String>,
    m: &mut Manifest,
) -> Result<(), TraceError> {
    let mut used: Vec<Option<usize>> = vec![None; m.sums.len()];
    if let Some(list) = doc.optional(terms, "$", "terms", "an array")? {
        for (i, t) in list.into_iter().enumerate() {
            let path = at("terms", i);
            let term = term(doc, t, &path, m, &mut used, i)?;
            if m.terms.iter().any(|x| x.name == term.name) {
                return Err(doc.err(
                    &join(&path, "name"),
                    format!("duplicate term name `{}`", term.name),
                ));
            }
            m.terms.push(term);
        }
    }
    for (slot, u) in used.iter().enumerate() {
        if u.is_none() {
            let s = &m.sums[slot];
            let i = m
                .params
                .iter()
                .position(|p| p.sum.as_ref() == Some(s))
                .unwrap_or(0);
            return Err(doc.err(
                &join(&at("params", i), "sum"),
                format!("sum `{s}` is used by no term: declare a term with \"sum\": \"{s}\", or remove the param's `sum`"),
            ));
        }
    }
    if let Some(src) = eval.found() {
        let src =
            src.map_err(|_| doc.err("eval", "expected the evaluation formula as a string"))?;
        let node = parse_resolved(doc, &src, "eval", m, Place::Eval)?;
        // The default formula, written out, is the default: linear manifests stay linear.
        let default = parse_resolved(doc, DEFAULT_EVAL, "eval", m, Place::Eval)?;
        m.eval = (node != default).then_some(node);
    }
    Ok(())
}

/// The default evaluation formula.
pub const DEFAULT_EVAL: &str =
    "(mg * phase + eg * (phase_max - phase) * scale / scale_max) / phase_max";

fn term(
    doc: &Doc,
    v: Field<RawTerm>,
    path: &str,
    m: &Manifest,
    used: &mut [Option<usize>],
    i: usize,
) -> Result<Term, TraceError> {
    let o = doc.expect(v.read(), path, "an object")?;
    doc.known_keys(&o.unknown, &TERM_KEYS, path)?;
    let name = doc.required_string(o.name, path, "name")?;
    if name.is_empty() {
        return Err(doc.err(&join(path, "name"), "an empty term name"));
    }
    let sum = match doc.string(o.sum, path, "sum")? {
        None => None,
        Some(s) => Some(sum_slot(doc, &s, &join(path, "sum"), m, used, i)?),
    };
    let per_side = doc.boolean(o.per_side, false, path, "per_side")?;
    let place = Place::Term {
        has_sum: sum.is_some(),
        per_side,
    };
    let phase = |f: Field<String>, key: &str| -> Result<Option<Node<Ref>>, TraceError> {
        match f.found() {
            None | Some(Err(Value::Null)) => Ok(None),
            Some(Ok(src)) => parse_resolved(doc, &src, &join(path, key), m, place).map(Some),
            Some(Err(_)) => Err(doc.err(&join(path, key), "expected an expression as a string")),
        }
    };
    let (mg, eg) = (phase(o.mg, "mg")?, phase(o.eg, "eg")?);
    if mg.is_none() && eg.is_none() {
        return Err(doc.err(path, "a term needs an `mg` or an `eg` expression (or both)"));
    }
    Ok(Term {
        name,
        sum,
        per_side,
        mg,
        eg,
    })
}

/// The slot of the sum `s` that term `i` uses (at `path`): added to by some parameter, used
/// by no other term.
fn sum_slot(
    doc: &Doc,
    s: &str,
    path: &str,
    m: &Manifest,
    used: &mut [Option<usize>],
    i: usize,
) -> Result<usize, TraceError> {
    let Some(slot) = m.sums.iter().position(|x| x == s) else {
        return Err(doc.err(
            path,
            format!("no parameter adds to sum `{s}` (give the params that do \"sum\": \"{s}\")"),
        ));
    };
    if let Some(j) = used[slot] {
        return Err(doc.err(
            path,
            format!("sum `{s}` is already used by terms[{j}]: a sum feeds exactly one term"),
        ));
    }
    used[slot] = Some(i);
    Ok(slot)
}

fn parse_resolved(
    doc: &Doc,
    src: &str,
    path: &str,
    m: &Manifest,
    place: Place,
) -> Result<Node<Ref>, TraceError> {
    let to_err = |e: ExprError| TraceError::Expression {
        origin: doc.origin.to_string(),
        path: path.to_string(),
        column: e.column,
        message: e.message,
    };
    let expr = Expr::parse(src).map_err(to_err)?;
    expr.root
        .resolve(&mut |n: &Name| resolve_name(n, m, place))
        .map_err(to_err)
}

fn fail<T>(n: &Name, message: String) -> Result<T, ExprError> {
    Err(ExprError {
        column: n.column,
        message,
    })
}

fn resolve_name(n: &Name, m: &Manifest, place: Place) -> Result<Ref, ExprError> {
    let plain = n.index.is_empty() && n.component.is_none();
    if let Some(r) = variable(n, place)? {
        if !plain {
            return fail(
                n,
                format!("`{}` is a variable: no index or `.mg`/`.eg`", n.name),
            );
        }
        return Ok(r);
    }
    if let Some(k) = m.features.iter().position(|f| *f == n.name) {
        if !plain {
            return fail(
                n,
                format!(
                    "`{}` is a feature (a number): no index or `.mg`/`.eg`",
                    n.name
                ),
            );
        }
        return Ok(Ref::Feature(k as u16));
    }
    let Some(param) = m.params.iter().position(|p| p.name == n.name) else {
        let mut known: Vec<&str> = m.features.iter().map(String::as_str).collect();
        known.extend(m.params.iter().map(|p| p.name.as_str()));
        return fail(
            n,
            format!(
                "unknown name `{}` (variables: s, mg, eg, phase, phase_max, scale, scale_max; features and parameters: {})",
                n.name,
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            ),
        );
    };
    param_ref(n, m, param, place)
}

/// The variable `n` names (`s`, `mg`, `phase`...), if it names one and means something here.
fn variable(n: &Name, place: Place) -> Result<Option<Ref>, ExprError> {
    Ok(Some(match n.name.as_str() {
        "s" => match place {
            Place::Term { has_sum: true, .. } => Ref::S,
            Place::Term { .. } => {
                return fail(
                    n,
                    "`s` is the term's sum, and this term declares no `sum`".into(),
                )
            }
            Place::Eval => return fail(n, "`s` is defined in terms only, not in `eval`".into()),
        },
        "mg" | "eg" => {
            if let Place::Term { per_side: true, .. } = place {
                return fail(
                    n,
                    format!(
                        "`{}` (the running total) is not defined in a per-side term",
                        n.name
                    ),
                );
            }
            if n.name == "mg" {
                Ref::Mg
            } else {
                Ref::Eg
            }
        }
        "phase" => Ref::Phase,
        "phase_max" => Ref::PhaseMax,
        "scale" => Ref::Scale,
        "scale_max" => Ref::ScaleMax,
        _ => return Ok(None),
    }))
}

/// A reference to an element of parameter number `param`: its indices resolved and, where
/// they are literals, in range; its component as the place allows.
fn param_ref(n: &Name, m: &Manifest, param: usize, place: Place) -> Result<Ref, ExprError> {
    let p = &m.params[param];
    if n.index.len() != p.shape.len() {
        return fail(
            n,
            format!(
                "`{}` has shape {:?}: write {} index{}, found {}",
                p.name,
                p.shape,
                p.shape.len(),
                if p.shape.len() == 1 { "" } else { "es" },
                n.index.len()
            ),
        );
    }
    let index = n
        .index
        .iter()
        .enumerate()
        .map(|(dim, i)| index(n, i, dim, p, m))
        .collect::<Result<Vec<_>, _>>()?;
    match (p.tapered, n.component, place) {
        (false, Some(_), _) => fail(n, format!("`{}` is not tapered: no `.mg`/`.eg`", p.name)),
        (true, None, Place::Eval) => fail(
            n,
            format!(
                "`eval` has no current phase: write `{0}.mg` or `{0}.eg`",
                p.name
            ),
        ),
        (_, component, _) => Ok(Ref::Param {
            param,
            index,
            component,
        }),
    }
}

/// Index `dim` of `n`, an element of `p`: numbers and features only, a literal in range.
fn index(
    n: &Name,
    i: &Node<Name>,
    dim: usize,
    p: &ParamDecl,
    m: &Manifest,
) -> Result<Node<Ref>, ExprError> {
    let node = i.resolve(
        &mut |x: &Name| match m.features.iter().position(|f| *f == x.name) {
            Some(k) if x.index.is_empty() && x.component.is_none() => Ok(Ref::Feature(k as u16)),
            _ => fail(
                x,
                format!(
                    "an index may use only numbers and features, not `{}`",
                    x.name
                ),
            ),
        },
    )?;
    if let Node::Num(x) = node {
        if x < 0.0 || x.fract() != 0.0 || x >= p.shape[dim] as f64 {
            return fail(
                n,
                format!(
                    "index {x} of `{}` is out of range 0..{}",
                    p.name, p.shape[dim]
                ),
            );
        }
    }
    Ok(node)
}
