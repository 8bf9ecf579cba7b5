//! Weights as JSON, by parameter name: `{"model": "psqt", "params": {"material.pawn.mg": 100.0, ...}}`.
//!
//! Reading is strict: unknown, missing or duplicate names, non-finite or non-numeric values, and
//! values beyond [`MAX_WEIGHT`] in magnitude,
//! are refused with a message naming every offending parameter. Duplicate keys are detected by
//! a hand-written visitor (a plain `serde_json::Map` would silently keep the last one).

use std::collections::HashSet;
use std::fmt;
use std::fs;
use std::path::Path;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

use crate::error::ParamError;
use crate::kind::ModelKind;
use crate::model::Model;
use crate::terms::LATER_GROUPS;

/// The largest weight magnitude read or written: a billion centipawns is far beyond any
/// meaningful evaluation term, so a larger value is a corrupt or diverged file, refused by name
/// rather than searched with (scores would overflow the engine's integers).
pub const MAX_WEIGHT: f64 = 1e9;

/// How many names an error message lists before summarising the rest.
const LIST_AT_MOST: usize = 20;

/// The weights as pretty JSON, one parameter per line, in index order.
///
/// A non-finite weight is written as `null`, which [`weights_from_json`] refuses by name.
///
/// # Panics
///
/// If `w.len() != model.len()` (a programming error).
///
/// ```
/// use eval::{weights_from_json, weights_to_json, Model, ModelKind};
///
/// let model = Model::new(ModelKind::Psqt);
/// let mut w = model.default_weights();
/// w[model.index_of("pst.knight.mg.e4").unwrap()] = 12.5;
/// let text = weights_to_json(&model, &w);
/// assert!(text.contains("\"pst.knight.mg.e4\": 12.5"));
/// let (back, w2) = weights_from_json(&text).unwrap();
/// assert_eq!(back.kind(), ModelKind::Psqt);
/// assert_eq!(w2, w);
/// ```
pub fn weights_to_json(model: &Model, w: &[f64]) -> String {
    assert_eq!(w.len(), model.len(), "one weight per parameter");
    let mut out = String::with_capacity(40 * w.len());
    out.push_str("{\n  \"model\": ");
    out.push_str(&json_string(model.kind().name()));
    out.push_str(",\n  \"params\": {");
    for (i, (p, &v)) in model.params().iter().zip(w).enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("\n    ");
        out.push_str(&json_string(&p.name));
        out.push_str(": ");
        // serde_json writes the shortest representation that reads back exactly; NaN and
        // infinities become `null`.
        out.push_str(&serde_json::to_string(&v).unwrap_or_else(|_| "null".to_string()));
    }
    out.push_str("\n  }\n}\n");
    out
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

/// Reads weights from JSON text; the model is the one named in the text.
///
/// Refuses unknown, missing and duplicate parameter names, non-finite or non-numeric values and
/// values beyond [`MAX_WEIGHT`] in magnitude, naming each of them.
pub fn weights_from_json(text: &str) -> Result<(Model, Vec<f64>), ParamError> {
    let raw: RawFile = serde_json::from_str(text).map_err(|e| ParamError::Json(e.to_string()))?;
    let kind: ModelKind = raw.model.parse()?;
    let model = Model::new(kind);
    let mut w = vec![f64::NAN; model.len()];
    let mut seen = vec![false; model.len()];
    let (mut unknown, mut duplicate, mut non_finite) = (Vec::new(), Vec::new(), Vec::new());
    let mut huge = Vec::new();
    let mut duplicate_set = HashSet::new();
    for (name, value) in raw.params {
        let Some(i) = model.index_of(&name) else {
            if !unknown.contains(&name) {
                unknown.push(name);
            }
            continue;
        };
        if seen[i] {
            if duplicate_set.insert(i) {
                duplicate.push(name);
            }
            continue;
        }
        seen[i] = true;
        match value.as_f64() {
            Some(v) if v.is_finite() && v.abs() <= MAX_WEIGHT => w[i] = v,
            Some(v) if v.is_finite() => huge.push(format!("{name} = {value}")),
            _ => non_finite.push(format!("{name} = {value}")),
        }
    }
    // A group added to the model after files were written may be absent as a whole: such a
    // file reads with the group at its defaults, which add nothing to the evaluation.
    for group in LATER_GROUPS {
        let members = || {
            model
                .params()
                .iter()
                .enumerate()
                .filter(|(_, p)| p.group == group)
        };
        if members().all(|(i, _)| !seen[i]) {
            for (i, p) in members() {
                w[i] = p.init;
                seen[i] = true;
            }
        }
    }
    let missing: Vec<String> = model
        .params()
        .iter()
        .zip(&seen)
        .filter(|(_, &s)| !s)
        .map(|(p, _)| p.name.clone())
        .collect();

    let mut problems = Vec::new();
    for (what, list) in [
        ("unknown parameters", &unknown),
        ("missing parameters", &missing),
        ("duplicate parameters", &duplicate),
        ("non-finite or non-numeric values", &non_finite),
        ("values beyond +-1e9", &huge),
    ] {
        if !list.is_empty() {
            problems.push(format!("{} {what}: {}", list.len(), name_list(list)));
        }
    }
    if problems.is_empty() {
        Ok((model, w))
    } else {
        Err(ParamError::Invalid {
            model: kind.name().to_string(),
            details: problems.join("; "),
        })
    }
}

fn name_list(names: &[String]) -> String {
    let mut s = names
        .iter()
        .take(LIST_AT_MOST)
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > LIST_AT_MOST {
        s.push_str(&format!(" and {} more", names.len() - LIST_AT_MOST));
    }
    s
}

/// Reads a weights file (see [`weights_from_json`]); errors name the file.
pub fn load_weights(path: &Path) -> Result<(Model, Vec<f64>), ParamError> {
    let text = fs::read_to_string(path).map_err(|error| ParamError::Io {
        action: "read",
        path: path.to_path_buf(),
        error,
    })?;
    weights_from_json(&text).map_err(|e| ParamError::File {
        path: path.to_path_buf(),
        error: Box::new(e),
    })
}

/// Reads a weights file for the model `kind`: the file's own weights when it is of that
/// model, else its weights carried over by name ([`Model::carry_over`]: `psqt` weights start a
/// `full` model); an error naming the file when they do not carry over (`full` into `psqt`).
///
/// ```no_run
/// let (model, w) = eval::load_weights_as("psqt-weights.json".as_ref(), eval::ModelKind::Full)?;
/// assert_eq!(model.kind(), eval::ModelKind::Full);
/// # Ok::<(), eval::ParamError>(())
/// ```
pub fn load_weights_as(path: &Path, kind: ModelKind) -> Result<(Model, Vec<f64>), ParamError> {
    let (from, w) = load_weights(path)?;
    if from.kind() == kind {
        return Ok((from, w));
    }
    let model = Model::new(kind);
    match model.carry_over(&from, &w) {
        Some(w) => Ok((model, w)),
        None => Err(ParamError::File {
            path: path.to_path_buf(),
            error: Box::new(ParamError::Invalid {
                model: from.kind().name().to_string(),
                details: format!(
                    "{from_kind} weights do not carry over into the model asked for, {kind} \
                     (psqt weights start a full model, not the other way): ask for {from_kind} \
                     or start from {kind} weights",
                    from_kind = from.kind()
                ),
            }),
        }),
    }
}

/// Writes a weights file (see [`weights_to_json`]). Refuses a weight vector of the wrong length
/// or with non-finite values or values beyond [`MAX_WEIGHT`] (naming them), so every file
/// written can be read back. The file
/// is replaced atomically ([`fsutil::atomic`]).
pub fn save_weights(path: &Path, model: &Model, w: &[f64]) -> Result<(), ParamError> {
    if w.len() != model.len() {
        return Err(ParamError::Length {
            model: model.kind().name().to_string(),
            expected: model.len(),
            got: w.len(),
        });
    }
    let bad: Vec<String> = model
        .params()
        .iter()
        .zip(w)
        .filter(|(_, v)| !(v.is_finite() && v.abs() <= MAX_WEIGHT))
        .map(|(p, v)| format!("{} = {v:e}", p.name))
        .collect();
    if !bad.is_empty() {
        return Err(ParamError::Invalid {
            model: model.kind().name().to_string(),
            details: format!(
                "{} non-finite values or values beyond +-1e9: {}",
                bad.len(),
                name_list(&bad)
            ),
        });
    }
    fsutil::atomic::write(path, weights_to_json(model, w)).map_err(|error| ParamError::Io {
        action: "write",
        path: path.to_path_buf(),
        error,
    })
}

/// The file as parsed, keeping every `params` entry in order (duplicates included).
struct RawFile {
    model: String,
    params: Vec<(String, Value)>,
}

impl<'de> Deserialize<'de> for RawFile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(FileVisitor)
    }
}

struct FileVisitor;

impl<'de> Visitor<'de> for FileVisitor {
    type Value = RawFile;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(r#"an object {"model": "...", "params": {"name": value, ...}}"#)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawFile, A::Error> {
        let mut model: Option<String> = None;
        let mut params: Option<Vec<(String, Value)>> = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "model" if model.is_some() => return Err(de::Error::duplicate_field("model")),
                "params" if params.is_some() => return Err(de::Error::duplicate_field("params")),
                "model" => model = Some(map.next_value()?),
                "params" => params = Some(map.next_value::<ParamList>()?.0),
                other => return Err(de::Error::unknown_field(other, &["model", "params"])),
            }
        }
        Ok(RawFile {
            model: model.ok_or_else(|| de::Error::missing_field("model"))?,
            params: params.ok_or_else(|| de::Error::missing_field("params"))?,
        })
    }
}

struct ParamList(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for ParamList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ParamListVisitor)
    }
}

struct ParamListVisitor;

impl<'de> Visitor<'de> for ParamListVisitor {
    type Value = ParamList;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object mapping parameter names to numbers")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ParamList, A::Error> {
        let mut out = Vec::with_capacity(map.size_hint().unwrap_or(1024));
        while let Some(key) = map.next_key::<String>()? {
            let value: Value = map
                .next_value()
                .map_err(|e| de::Error::custom(format!("value of parameter `{key}`: {e}")))?;
            out.push((key, value));
        }
        Ok(ParamList(out))
    }
}
