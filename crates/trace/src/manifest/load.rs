//! JSON to [`Manifest`]: the document's structure, the parameters and their values, the
//! names and sums; expressions are resolved in [`super::resolve`].

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::json::{at, is_identifier, join, kind, Doc};
use super::{centre, resolve, Element, Manifest, ParamDecl, ScoreConvention, WeightInfo};
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
    let root = doc.object(&json, "$")?;
    doc.known_keys(
        root,
        &[
            "format", "version", "engine", "score", "phase", "scale", "params", "features",
            "terms", "eval", "centre",
        ],
        "$",
    )?;
    match doc.required_string(root, "format", "$")? {
        "gradtune-manifest" => {}
        f => {
            return Err(doc.err(
                "format",
                format!("expected \"gradtune-manifest\", found {f:?}"),
            ))
        }
    }
    match root.get("version") {
        Some(v) if v.as_u64() == Some(1) => {}
        Some(v) => {
            return Err(doc.err(
                "version",
                format!("version {v} is not supported (this gradtune reads version 1)"),
            ))
        }
        None => return Err(doc.err("$", "missing `version` (1)")),
    }
    let engine = doc.required_string(root, "engine", "$")?.to_string();
    let score = match doc.required_string(root, "score", "$")? {
        "white" => ScoreConvention::White,
        "side_to_move" => ScoreConvention::SideToMove,
        s => {
            return Err(doc.err(
                "score",
                format!("expected \"white\" or \"side_to_move\", found {s:?}"),
            ))
        }
    };
    let (phase_max, phase_pieces, phase_clamped) = phase(&doc, root)?;
    let scale_max = match root.get("scale") {
        None => None,
        Some(v) => {
            let o = doc.object(v, "scale")?;
            doc.known_keys(o, &["max"], "scale")?;
            let max = o
                .get("max")
                .ok_or_else(|| doc.err("scale", "missing `max`"))?;
            Some(doc.whole(max, 1, 1 << 20, "scale.max")? as u32)
        }
    };
    let features = features(&doc, root)?;
    let params_json = root
        .get("params")
        .ok_or_else(|| doc.err("$", "missing `params`"))?;
    let list = doc.array(params_json, "params")?;
    let mut params = Vec::with_capacity(list.len());
    let mut weights = Vec::new();
    let mut elements = Vec::new();
    for (i, v) in list.iter().enumerate() {
        let path = at("params", i);
        let p = param(&doc, v, &path, elements.len(), weights.len(), &mut weights)?;
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
    check_names(&doc, &params, &features)?;
    let centre = centre::parse(&doc, root, &params)?;
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
        json: json.clone(),
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
    resolve::terms_and_eval(&doc, root, &mut m)?;
    Ok(m)
}

/// The manifest's `phase`: its `max`, its `pieces` (if given) and whether it is `clamped`.
fn phase(
    doc: &Doc,
    root: &Map<String, Value>,
) -> Result<(u32, Option<[u32; 5]>, bool), TraceError> {
    let v = root
        .get("phase")
        .ok_or_else(|| doc.err("$", "missing `phase` ({\"max\": N})"))?;
    let o = doc.object(v, "phase")?;
    doc.known_keys(o, &["max", "pieces", "clamped"], "phase")?;
    let clamped = doc.boolean(o, "clamped", true, "phase")?;
    let max = o
        .get("max")
        .ok_or_else(|| doc.err("phase", "missing `max`"))?;
    let max = doc.whole(max, 1, 1 << 20, "phase.max")? as u32;
    let pieces = match o.get("pieces") {
        None => None,
        Some(v) => {
            let p = doc.object(v, "phase.pieces")?;
            let names = ["pawn", "knight", "bishop", "rook", "queen"];
            doc.known_keys(p, &names, "phase.pieces")?;
            let mut w = [0u32; 5];
            for (k, n) in names.iter().enumerate() {
                if let Some(x) = p.get(*n) {
                    w[k] = doc.whole(x, 0, 1 << 16, &join("phase.pieces", n))? as u32;
                }
            }
            Some(w)
        }
    };
    Ok((max, pieces, clamped))
}

fn features(doc: &Doc, root: &Map<String, Value>) -> Result<Vec<String>, TraceError> {
    let Some(v) = root.get("features") else {
        return Ok(Vec::new());
    };
    let list = doc.array(v, "features")?;
    if list.len() > u16::MAX as usize {
        return Err(doc.err("features", format!("more than {} features", u16::MAX)));
    }
    list.iter()
        .enumerate()
        .map(|(i, f)| match f.as_str() {
            Some(s) if is_identifier(s) => Ok(s.to_string()),
            _ => Err(doc.err(
                &at("features", i),
                format!("expected a name (letters, digits, `_`), found {f}"),
            )),
        })
        .collect()
}

/// One parameter; its weights are appended to `weights`.
fn param(
    doc: &Doc,
    v: &Value,
    path: &str,
    first_index: usize,
    first_weight: usize,
    weights: &mut Vec<WeightInfo>,
) -> Result<ParamDecl, TraceError> {
    let o = doc.object(v, path)?;
    doc.known_keys(
        o,
        &[
            "name", "shape", "tapered", "integer", "value", "bounds", "frozen", "sum",
        ],
        path,
    )?;
    let name = doc.required_string(o, "name", path)?;
    if !is_identifier(name) {
        return Err(doc.err(
            &join(path, "name"),
            format!("{name:?} is not a name (letters, digits, `_`, not starting with a digit)"),
        ));
    }
    let shape_path = join(path, "shape");
    let shape = match o.get("shape") {
        None => Vec::new(),
        Some(s) => doc
            .array(s, &shape_path)?
            .iter()
            .enumerate()
            .map(|(i, n)| {
                doc.whole(n, 1, MAX_ELEMENTS as u64, &at(&shape_path, i))
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
        return Err(doc.err(&shape_path, format!("more than {MAX_ELEMENTS} elements")));
    }
    let bounds = match o.get("bounds") {
        None | Some(Value::Null) => None,
        Some(b) => {
            let bp = join(path, "bounds");
            let list = doc.array(b, &bp)?;
            if list.len() != 2 {
                return Err(doc.err(
                    &bp,
                    format!("expected [low, high], found {} numbers", list.len()),
                ));
            }
            let (lo, hi) = (
                doc.number(&list[0], &at(&bp, 0))?,
                doc.number(&list[1], &at(&bp, 1))?,
            );
            if lo > hi {
                return Err(doc.err(&bp, format!("low {lo} is above high {hi}")));
            }
            Some((lo, hi))
        }
    };
    let sum = match doc.string(o, "sum", path)? {
        Some("") => return Err(doc.err(&join(path, "sum"), "an empty sum name")),
        s => s.map(str::to_string),
    };
    let p = ParamDecl {
        name: name.to_string(),
        shape,
        tapered: doc.boolean(o, "tapered", true, path)?,
        integer: doc.boolean(o, "integer", true, path)?,
        bounds,
        frozen: doc.boolean(o, "frozen", false, path)?,
        sum,
        first_index: first_index as u32,
        first_weight,
    };
    let value = o
        .get("value")
        .ok_or_else(|| doc.err(path, format!("missing `value` (shape {:?})", p.shape)))?;
    let mut flat = Vec::with_capacity(p.len() * p.per_element());
    values(doc, &p, value, 0, &join(path, "value"), &mut flat)?;
    for (k, x) in flat.into_iter().enumerate() {
        let element = p.element_name(k / p.per_element());
        let (name, twin) = match (p.tapered, k % 2) {
            (false, _) => (element, None),
            (true, 0) => (element + ".mg", Some(first_weight + k + 1)),
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
    Ok(p)
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
        let x = doc.number(x, path)?;
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
