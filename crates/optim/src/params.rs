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

/// Whether `text` matches the glob `pattern` (`*` any run of characters, `?` any one).
///
/// ```
/// assert!(optim::glob_match("pst.*.e4", "pst.mg.e4"));
/// assert!(optim::glob_match("mg.?awn", "mg.pawn"));
/// assert!(!optim::glob_match("pst.*", "material.pawn"));
/// ```
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

/// The indices of the parameters left free when every parameter whose group equals one of
/// `patterns`, or whose name matches one as a glob, is frozen.
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
                .any(|pat| *pat == p.group || glob_match(pat, &p.name))
        })
        .map(|(i, _)| i)
        .collect()
}
