//! Parameter descriptions and freezing by group or name pattern.

use serde::{Deserialize, Serialize};

/// What the optimisers need to know of one parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamSpec {
    /// Unique name, e.g. `"mg.knight"` or `"pst.mg.pawn.e4"`.
    pub name: String,
    /// Group, e.g. `"material"`; `--freeze GROUP` freezes the whole group.
    pub group: String,
    /// Starting value.
    pub init: f64,
    /// Inclusive bounds, if the parameter has any (particle swarm searches inside them).
    pub bounds: Option<(f64, f64)>,
}

impl ParamSpec {
    /// A parameter with no bounds.
    pub fn new(name: impl Into<String>, group: impl Into<String>, init: f64) -> Self {
        ParamSpec {
            name: name.into(),
            group: group.into(),
            init,
            bounds: None,
        }
    }
}

/// The indices of the parameters left free when every parameter whose group equals one of
/// `patterns`, or whose name matches one as a glob ([`fsutil::glob_match`]), is frozen.
///
/// ```
/// use optim::{free_indices, ParamSpec};
/// let params = vec![
///     ParamSpec::new("pawn", "material", 100.0),
///     ParamSpec::new("pst.a1", "pst", 0.0),
///     ParamSpec::new("pst.b1", "pst", 0.0),
/// ];
/// assert_eq!(free_indices(&params, &["material".to_string()]), vec![1, 2]);
/// assert_eq!(free_indices(&params, &["*.a1".to_string()]), vec![0, 2]);
/// ```
pub fn free_indices(params: &[ParamSpec], patterns: &[String]) -> Vec<usize> {
    params
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            !patterns
                .iter()
                .any(|pat| *pat == p.group || fsutil::glob_match(pat, &p.name))
        })
        .map(|(i, _)| i)
        .collect()
}
