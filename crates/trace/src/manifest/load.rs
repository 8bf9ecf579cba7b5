//! JSON to [`Manifest`]: the document read into its structs ([`super::raw`]), then validated:
//! its header, the parameters and their values, the names and sums; expressions are resolved
//! in [`super::resolve`].

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::decl::{Element, Manifest, ParamDecl, ScoreConvention, WeightInfo};
use super::field::Field;
use super::json::{at, is_identifier, join, kind, Doc};
use super::raw::{
    RawManifest, RawParam, RawPhase, RawScale, PARAM_KEYS, PHASE_KEYS, PIECE_KEYS, ROOT_KEYS,
    SCALE_KEYS,
};
use super::{centre, resolve};
use crate::TraceError;

/// Names an expression gives a meaning of its own: no parameter or feature may take them.
pub(crate) const RESERVED: [&str; 15] = [
    "s",
    "mg",
    "eg",
    "phase",
    "phase_max",
    "scale",
    "scale_max",
    "min",
    "max",
    "clamp",
    "abs",
    "sign",
    "sigmoid",
    "exp",
    "trunc",
];

/// The largest number of elements a manifest may declare.
const MAX_ELEMENTS: usize = 1 << 24;

pub(super) fn from_json(text: &str, origin: &str) -> Result<Manifest, TraceError> {
    let doc = Doc { origin };
    let json: Value =
        serde_json::from_str(text).map_err(|e| doc.err("$", format!("not valid JSON: {e}")))?;
    let root = Field::<RawManifest>::deserialize(&json)
        .map_err(|e| doc.err("$", format!("not a manifest: {e}")))?;
    let root = doc.expect(root.read(), "$", "an object")?;
    doc.known_keys(&root.unknown, &ROOT_KEYS, "$")?;
    let (engine, score) = header(&doc, root.format, root.version, root.engine, root.score)?;
    let (phase_max, phase_pieces, phase_clamped) = phase(&doc, root.phase)?;
    let scale_max = scale(&doc, root.scale)?;
    let features = features(&doc, root.features)?;
    let (params, weights, mut elements) = params(&doc, root.params)?;
    check_names(&doc, &params, &features)?;
    let centre = centre::parse(&doc, root.centre, &params)?;
    let sums = sum_slots(&params);
    for e in &mut elements {
        if let Some(s) = &params[e.param as usize].sum {
            e.sum = sums.iter().position(|x| x == s).map(|k| k as u16);
        }
    }
    let mut by_name = HashMap::with_capacity(weights.len());
    for (i, w) in weights.iter().enumerate() {
        by_name.insert(w.name.clone(), i);
    }
    let mut m = Manifest {
        origin: origin.to_string(),
        json,
        engine,
        score,
        phase_max,
        phase_pieces,
        phase_clamped,
        scale_max,
        params,
        features,
        sums,
        terms: Vec::new(),
        eval: None,
        elements,
        weights,
        by_name,
        centre,
    };
    resolve::terms_and_eval(&doc, root.terms, root.eval, &mut m)?;
    Ok(m)
}

/// The document's `format`, `version`, `engine` and `score`.
fn header(
    doc: &Doc,
    format: Field<String>,
    version: Field<u64>,
    engine: Field<String>,
    score: Field<String>,
) -> Result<(String, ScoreConvention), TraceError> {
    match doc.required_string(format, "$", "format")?.as_str() {
        "gradtune-manifest" => {}
        f => {
            return Err(doc.err(
                "format",
                format!("expected \"gradtune-manifest\", found {f:?}"),
            ))
        }
    }
    match version.found() {
        Some(Ok(1)) => {}
        Some(v) => {
            let v = v.map_or_else(|v| v, Value::from);
            return Err(doc.err(
                "version",
                format!("version {v} is not supported (this gradtune reads version 1)"),
            ));
        }
        None => return Err(doc.err("$", "missing `version` (1)")),
    }
    let engine = doc.required_string(engine, "$", "engine")?;
    let score = match doc.required_string(score, "$", "score")?.as_str() {
        "white" => ScoreConvention::White,
        "side_to_move" => ScoreConvention::SideToMove,
        s => {
            return Err(doc.err(
                "score",
                format!("expected \"white\" or \"side_to_move\", found {s:?}"),
            ))
        }
    };
    Ok((engine, score))
}

/// The manifest's `phase`: its `max`, its `pieces` (if given) and whether it is `clamped`.
fn phase(doc: &Doc, phase: Field<RawPhase>) -> Result<(u32, Option<[u32; 5]>, bool), TraceError> {
    let found = phase
        .found()
        .ok_or_else(|| doc.err("$", "missing `phase` ({\"max\": N})"))?;
    let o = doc.expect(found, "phase", "an object")?;
    doc.known_keys(&o.unknown, &PHASE_KEYS, "phase")?;
    let clamped = doc.boolean(o.clamped, true, "phase", "clamped")?;
    let max = o
        .max
        .found()
        .ok_or_else(|| doc.err("phase", "missing `max`"))?;
    let max = doc.whole(max, 1, 1 << 20, "phase.max")? as u32;
    let pieces = match doc.optional(o.pieces, "phase", "pieces", "an object")? {
        None => None,
        Some(p) => {
            doc.known_keys(&p.unknown, &PIECE_KEYS, "phase.pieces")?;
            let mut w = [0u32; 5];
            for (k, (x, n)) in p.weights().into_iter().zip(PIECE_KEYS).enumerate() {
                if let Some(x) = x.found() {
                    w[k] = doc.whole(x, 0, 1 << 16, &join("phase.pieces", n))? as u32;
                }
            }
            Some(w)
        }
    };
    Ok((max, pieces, clamped))
}

/// The manifest's `scale`: its `max`, if declared.
fn scale(doc: &Doc, scale: Field<RawScale>) -> Result<Option<u32>, TraceError> {
    let Some(o) = doc.optional(scale, "$", "scale", "an object")? else {
        return Ok(None);
    };
    doc.known_keys(&o.unknown, &SCALE_KEYS, "scale")?;
    let max = o
        .max
        .found()
        .ok_or_else(|| doc.err("scale", "missing `max`"))?;
    Ok(Some(doc.whole(max, 1, 1 << 20, "scale.max")? as u32))
}

fn features(doc: &Doc, features: Field<Vec<Field<String>>>) -> Result<Vec<String>, TraceError> {
    let Some(list) = doc.optional(features, "$", "features", "an array")? else {
        return Ok(Vec::new());
    };
    if list.len() > u16::MAX as usize {
        return Err(doc.err("features", format!("more than {} features", u16::MAX)));
    }
    list.into_iter()
        .enumerate()
        .map(|(i, f)| match f.read() {
            Ok(s) if is_identifier(&s) => Ok(s),
            f => Err(doc.err(
                &at("features", i),
                format!(
                    "expected a name (letters, digits, `_`), found {}",
                    f.map_or_else(|v| v, Value::from)
                ),
            )),
        })
        .collect()
}

/// The parameters, their weights and their elements (the trace indices; sums not yet set).
type Params = (Vec<ParamDecl>, Vec<WeightInfo>, Vec<Element>);

/// The manifest's `params`.
fn params(doc: &Doc, params: Field<Vec<Field<RawParam>>>) -> Result<Params, TraceError> {
    let found = params
        .found()
        .ok_or_else(|| doc.err("$", "missing `params`"))?;
    let list = doc.expect(found, "params", "an array")?;
    let mut params = Vec::with_capacity(list.len());
    let mut weights = Vec::new();
    let mut elements = Vec::new();
    for (i, v) in list.into_iter().enumerate() {
        let path = at("params", i);
        let p = param(doc, v, &path, elements.len(), weights.len(), &mut weights)?;
        if elements.len() + p.len() > MAX_ELEMENTS {
            return Err(doc.err(&path, format!("more than {MAX_ELEMENTS} elements in all")));
        }
        for _ in 0..p.len() {
            let w = p.first_weight + (elements.len() - p.first_index as usize) * p.per_element();
            elements.push(Element {
                weight: w as u32,
                tapered: p.tapered,
                sum: None,
                param: i as u32,
            });
        }
        params.push(p);
    }
    Ok((params, weights, elements))
}

/// One parameter; its weights are appended to `weights`.
fn param(
    doc: &Doc,
    v: Field<RawParam>,
    path: &str,
    first_index: usize,
    first_weight: usize,
    weights: &mut Vec<WeightInfo>,
) -> Result<ParamDecl, TraceError> {
    let o = doc.expect(v.read(), path, "an object")?;
    doc.known_keys(&o.unknown, &PARAM_KEYS, path)?;
    let name = doc.required_string(o.name, path, "name")?;
    if !is_identifier(&name) {
        return Err(doc.err(
            &join(path, "name"),
            format!("{name:?} is not a name (letters, digits, `_`, not starting with a digit)"),
        ));
    }
    let shape = shape(doc, o.shape, &join(path, "shape"))?;
    let bounds = bounds(doc, o.bounds, &join(path, "bounds"))?;
    let sum = match doc.string(o.sum, path, "sum")? {
        Some(s) if s.is_empty() => return Err(doc.err(&join(path, "sum"), "an empty sum name")),
        s => s,
    };
    let catalogue = doc.string(o.catalogue, path, "catalogue")?;
    if let Some(c) = catalogue.as_deref() {
        if eval::catalogue::find(c).is_none() {
            let known: Vec<&str> = eval::catalogue::groups().iter().map(|g| g.name).collect();
            return Err(doc.err(
                &join(path, "catalogue"),
                format!("no catalogue group `{c}` (known: {})", known.join(", ")),
            ));
        }
    }
    let p = ParamDecl {
        name,
        shape,
        tapered: doc.boolean(o.tapered, true, path, "tapered")?,
        integer: doc.boolean(o.integer, true, path, "integer")?,
        bounds,
        frozen: doc.boolean(o.frozen, false, path, "frozen")?,
        sum,
        catalogue,
        first_index: first_index as u32,
        first_weight,
    };
    let value = o
        .value
        .found()
        .and_then(Result::ok)
        .ok_or_else(|| doc.err(path, format!("missing `value` (shape {:?})", p.shape)))?;
    let mut flat = Vec::with_capacity(p.len() * p.per_element());
    values(doc, &p, &value, 0, &join(path, "value"), &mut flat)?;
    push_weights(&p, flat, weights);
    Ok(p)
}

/// A parameter's `shape` (at `path`): whole numbers, at most [`MAX_ELEMENTS`] in all.
fn shape(doc: &Doc, shape: Field<Vec<Field<u64>>>, path: &str) -> Result<Vec<usize>, TraceError> {
    let shape = match shape.found() {
        None => Vec::new(),
        Some(s) => doc
            .expect(s, path, "an array")?
            .into_iter()
            .enumerate()
            .map(|(i, n)| {
                doc.whole(n.read(), 1, MAX_ELEMENTS as u64, &at(path, i))
                    .map(|n| n as usize)
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    if shape
        .iter()
        .try_fold(1usize, |a, &n| {
            a.checked_mul(n).filter(|&x| x <= MAX_ELEMENTS)
        })
        .is_none()
    {
        return Err(doc.err(path, format!("more than {MAX_ELEMENTS} elements")));
    }
    Ok(shape)
}

/// A parameter's `bounds` (at `path`): `[low, high]`, or none if absent or null.
fn bounds(
    doc: &Doc,
    bounds: Field<Vec<Field<f64>>>,
    path: &str,
) -> Result<Option<(f64, f64)>, TraceError> {
    let list = match bounds.found() {
        None | Some(Err(Value::Null)) => return Ok(None),
        Some(b) => doc.expect(b, path, "an array")?,
    };
    let [lo, hi] = <[Field<f64>; 2]>::try_from(list).map_err(|list| {
        doc.err(
            path,
            format!("expected [low, high], found {} numbers", list.len()),
        )
    })?;
    let (lo, hi) = (
        doc.number(lo.read(), &at(path, 0))?,
        doc.number(hi.read(), &at(path, 1))?,
    );
    if lo > hi {
        return Err(doc.err(path, format!("low {lo} is above high {hi}")));
    }
    Ok(Some((lo, hi)))
}

/// The weights of parameter `p`, its values `flat` (row-major, `[mg, eg]` per tapered
/// element), appended to `weights`.
fn push_weights(p: &ParamDecl, flat: Vec<f64>, weights: &mut Vec<WeightInfo>) {
    for (k, x) in flat.into_iter().enumerate() {
        let element = p.element_name(k / p.per_element());
        let (name, twin) = match (p.tapered, k % 2) {
            (false, _) => (element, None),
            (true, 0) => (element + ".mg", Some(p.first_weight + k + 1)),
            (true, _) => (element + ".eg", None),
        };
        weights.push(WeightInfo {
            name,
            group: p.name.clone(),
            init: x,
            bounds: p.bounds,
            frozen: p.frozen,
            integer: p.integer,
            twin,
        });
    }
}

/// The values of dimension `dim` onwards, appended to `out` row-major (`[mg, eg]` for a
/// tapered element).
fn values(
    doc: &Doc,
    p: &ParamDecl,
    v: &Value,
    dim: usize,
    path: &str,
    out: &mut Vec<f64>,
) -> Result<(), TraceError> {
    if dim < p.shape.len() {
        let list = v.as_array().ok_or_else(|| {
            doc.err(
                path,
                format!(
                    "expected an array of {} (shape {:?}), found {}",
                    p.shape[dim],
                    p.shape,
                    kind(v)
                ),
            )
        })?;
        if list.len() != p.shape[dim] {
            return Err(doc.err(
                path,
                format!(
                    "{} entries, the shape {:?} says {}",
                    list.len(),
                    p.shape,
                    p.shape[dim]
                ),
            ));
        }
        for (i, x) in list.iter().enumerate() {
            values(doc, p, x, dim + 1, &at(path, i), out)?;
        }
        return Ok(());
    }
    let mut push = |x: &Value, path: &str| -> Result<(), TraceError> {
        // An `integer` parameter may hold a fraction: a run's unrounded optimum
        // (`weights.json`) read back as start weights; the engine's value is its rounding.
        let x = doc.number(x.as_f64().ok_or_else(|| x.clone()), path)?;
        if let Some((lo, hi)) = p.bounds {
            if !(lo..=hi).contains(&x) {
                return Err(doc.err(path, format!("{x} is outside the bounds [{lo}, {hi}]")));
            }
        }
        out.push(x);
        Ok(())
    };
    if p.tapered {
        match v.as_array() {
            Some(pair) if pair.len() == 2 => {
                push(&pair[0], &at(path, 0))?;
                push(&pair[1], &at(path, 1))
            }
            _ => Err(doc.err(
                path,
                format!(
                    "a tapered element is an [mg, eg] pair, found {v} (or say \"tapered\": false)"
                ),
            )),
        }
    } else {
        push(v, path)
    }
}

/// Parameter and feature names: unique, and none of the reserved words.
fn check_names(doc: &Doc, params: &[ParamDecl], features: &[String]) -> Result<(), TraceError> {
    let mut seen: HashMap<&str, String> = HashMap::new();
    let named = params
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name.as_str(), join(&at("params", i), "name")))
        .chain(
            features
                .iter()
                .enumerate()
                .map(|(i, f)| (f.as_str(), at("features", i))),
        );
    for (name, path) in named {
        if RESERVED.contains(&name) {
            return Err(doc.err(
                &path,
                format!(
                    "`{name}` is reserved in expressions (reserved: {})",
                    RESERVED.join(", ")
                ),
            ));
        }
        if let Some(first) = seen.get(name) {
            return Err(doc.err(&path, format!("duplicate name `{name}` (first at {first})")));
        }
        seen.insert(name, path);
    }
    Ok(())
}

/// The distinct sums named by parameters, in order of first appearance.
fn sum_slots(params: &[ParamDecl]) -> Vec<String> {
    let mut sums: Vec<String> = Vec::new();
    for s in params.iter().filter_map(|p| p.sum.as_ref()) {
        if !sums.contains(s) {
            sums.push(s.clone());
        }
    }
    sums
}
