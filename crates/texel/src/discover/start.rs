//! Starting an engine's ports of catalogue groups at the values a `tune discover` run fitted
//! (`tune loop --discovered`, `tune lbfgs --trace --discovered`).
//!
//! The author ranks the catalogue on the engine's traces, writes the chosen groups in the
//! engine as parameters that declare them (`"catalogue": "<group>"`), at 0 or at the value of
//! a term the engine had as a constant, so that the engine plays as before; then tunes from
//! there. The ranking fitted each group on top of the engine's evaluation as it was, so the
//! start of a port is its current value plus the ranking's: the groups the greedy selection
//! added take their values of its joint fit ([`Discovery::chosen`]), any other ranked group
//! its fit alone. The values are in the engine's units as the ranking computed them: the
//! middlegame and endgame halves weighted by gradtune's phase of the board, without an
//! engine's endgame scale, so a start, which the tuning then refits.
//!
//! [`Discovery::chosen`]: super::Discovery::chosen

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use trace::Manifest;

use crate::TexelError;

/// What a start needs of a `discover.json`: each group's values alone and the joint values of
/// the groups chosen.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Discovered {
    /// Every group ranked, with its values fitted alone.
    #[serde(default)]
    groups: Vec<Named>,
    /// The groups the greedy selection added, with their joint values.
    #[serde(default)]
    chosen: Vec<Joint>,
}

#[derive(Clone, Debug, Deserialize)]
struct Named {
    name: String,
    values: BTreeMap<String, [f64; 2]>,
}

#[derive(Clone, Debug, Deserialize)]
struct Joint {
    group: String,
    values: BTreeMap<String, [f64; 2]>,
}

/// Where one port's start came from.
#[derive(Clone, Debug, PartialEq)]
pub struct PortStart {
    /// The manifest's parameter.
    pub param: String,
    /// The catalogue group it declares.
    pub group: String,
    /// `chosen` (the greedy selection's joint fit), `alone` (the group's own fit), or why it
    /// kept its manifest value (`not ranked`, `not tapered`).
    pub source: &'static str,
    /// The largest change of one weight (engine units).
    pub largest: f64,
}

impl Discovered {
    /// Reads `discover.json`.
    pub fn load(path: &Path) -> Result<Discovered, TexelError> {
        let text = std::fs::read_to_string(path).map_err(|e| TexelError::io(path, e))?;
        Discovered::from_json(&text).map_err(|e| {
            TexelError::Config(format!("{}: not a discover.json: {e}", path.display()))
        })
    }

    /// Parses a `discover.json` document.
    pub fn from_json(text: &str) -> Result<Discovered, String> {
        let d: Discovered = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if d.groups.is_empty() && d.chosen.is_empty() {
            return Err("it names no group".to_string());
        }
        Ok(d)
    }

    /// The values for `group`, and where they come from.
    fn values(&self, group: &str) -> Option<(&BTreeMap<String, [f64; 2]>, &'static str)> {
        if let Some(j) = self.chosen.iter().find(|j| j.group == group) {
            return Some((&j.values, "chosen"));
        }
        self.groups
            .iter()
            .find(|g| g.name == group)
            .map(|g| (&g.values, "alone"))
    }

    /// Adds the ranking's values to the weights `w` (of `m`) of every parameter that declares a
    /// catalogue group the ranking fitted; rounded to integers where the parameter is. One
    /// [`PortStart`] a port, in manifest order. A ranking whose elements are not the group's
    /// (another catalogue's file) is an error.
    pub fn apply(&self, m: &Manifest, w: &mut [f64]) -> Result<Vec<PortStart>, TexelError> {
        let mut out = Vec::new();
        for p in m.params() {
            let Some(group) = trace::port_group(p).map_err(TexelError::Config)? else {
                continue;
            };
            let mut start = PortStart {
                param: p.name.clone(),
                group: group.name.to_string(),
                source: "not ranked",
                largest: 0.0,
            };
            let Some((values, source)) = self.values(group.name) else {
                out.push(start);
                continue;
            };
            if !p.tapered {
                start.source = "not tapered";
                out.push(start);
                continue;
            }
            for (e, element) in group.elements.iter().enumerate() {
                let v = values.get(element).ok_or_else(|| {
                    TexelError::Config(format!(
                        "the ranking's `{}` has no element `{element}`: another catalogue's",
                        group.name
                    ))
                })?;
                for (h, x) in v.iter().enumerate() {
                    let k = p.first_weight + 2 * e + h;
                    let Some(slot) = w.get_mut(k) else {
                        return Err(TexelError::Config(format!(
                            "weight {k} of `{}` is past the weights given",
                            p.name
                        )));
                    };
                    let old = *slot;
                    *slot += x;
                    if p.integer {
                        *slot = slot.round();
                    }
                    start.largest = start.largest.max((*slot - old).abs());
                }
            }
            start.source = source;
            out.push(start);
        }
        Ok(out)
    }
}

/// Writes the manifest `manifest` to `to` (atomically) with its ports of catalogue groups
/// started at the values of the `discover.json` in `found` ([`Discovered::apply`]); an error if
/// the manifest declares no port.
pub fn write_started(
    manifest: &Path,
    found: &Path,
    to: &Path,
) -> Result<Vec<PortStart>, TexelError> {
    let m = Manifest::load(manifest)?;
    let mut w = m.initial_weights();
    let ports = Discovered::load(found)?.apply(&m, &mut w)?;
    if ports.is_empty() {
        return Err(no_port(&m, found));
    }
    let json = serde_json::to_string_pretty(&m.to_json_with(&w))? + "\n";
    crate::output::write(to, &json)?;
    Ok(ports)
}

/// The error of a `--discovered` given with a manifest that ports no catalogue group.
pub(crate) fn no_port(m: &Manifest, found: &Path) -> TexelError {
    TexelError::Config(format!(
        "--discovered {}: the manifest {} declares no port of a catalogue group \
         (a parameter with \"catalogue\": \"<group>\"; docs/discover.md)",
        found.display(),
        m.origin()
    ))
}

impl std::fmt::Display for PortStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.source {
            "chosen" | "alone" => write!(
                f,
                "{} (port of `{}`) starts at the ranking's values ({}; largest change {:.1})",
                self.param,
                self.group,
                if self.source == "chosen" {
                    "the greedy selection's joint fit"
                } else {
                    "its fit alone: not among the groups the ranking fitted jointly"
                },
                self.largest
            ),
            why => write!(
                f,
                "{} (port of `{}`) keeps its manifest values: {why}",
                self.param, self.group
            ),
        }
    }
}
