//! [`ModelKind`]: which evaluation model, by name.

use std::fmt;
use std::str::FromStr;

use crate::error::ParamError;

/// Which evaluation model: selectable by name (`"psqt"` or `"full"`).
///
/// ```
/// use eval::ModelKind;
///
/// let kind: ModelKind = "full".parse().unwrap();
/// assert_eq!(kind, ModelKind::Full);
/// assert_eq!(kind.to_string(), "full");
/// assert!("nnue".parse::<ModelKind>().unwrap_err().to_string().contains("psqt, full"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ModelKind {
    /// Material plus a 64-square table per piece type, middlegame and endgame, tapered by a
    /// fixed game phase: linear in the weights (778 parameters).
    #[default]
    Psqt,
    /// `psqt` plus the other terms of the term list (mobility, pawn structure, bishop pair,
    /// rooks and queens on open files, non-linear king safety, tempo, threats, ...) and tunable
    /// game-phase weights.
    Full,
}

impl ModelKind {
    /// Every model, in the order their names are listed.
    pub const ALL: [ModelKind; 2] = [ModelKind::Psqt, ModelKind::Full];

    /// The model's name, as parsed by [`FromStr`].
    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Psqt => "psqt",
            ModelKind::Full => "full",
        }
    }
}

impl fmt::Display for ModelKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ModelKind {
    type Err = ParamError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ModelKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| ParamError::UnknownModel(s.to_string()))
    }
}
