//! The Texel and WukongJS position filters, through the evaluation's quiescence search.

use eval::{Model, ModelKind};
use shakmaty::Chess;

use crate::DataError;

/// Which positions to keep (or what to keep in their place).
///
/// ```
/// use data::Filter;
/// assert_eq!("qleaf".parse::<Filter>()?, Filter::QuiescenceLeaf);
/// assert_eq!("Quiet".parse::<Filter>()?, Filter::Quiet);
/// assert!("loud".parse::<Filter>().is_err());
/// # Ok::<(), data::DataError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Filter {
    /// Keep every position.
    #[default]
    None,
    /// Keep only quiet positions: the static evaluation equals the quiescence score (Texel).
    Quiet,
    /// Replace each position by the leaf of its quiescence principal variation (WukongJS,
    /// RuyTune). Positions whose quiescence search finds a mate are dropped.
    QuiescenceLeaf,
}

impl std::str::FromStr for Filter {
    type Err = DataError;

    /// `none`, `quiet`, or `qleaf` (also `quiescence-leaf`).
    fn from_str(s: &str) -> Result<Filter, DataError> {
        match s.to_ascii_lowercase().as_str() {
            "none" => Ok(Filter::None),
            "quiet" => Ok(Filter::Quiet),
            "qleaf" | "quiescence-leaf" | "leaf" => Ok(Filter::QuiescenceLeaf),
            _ => Err(DataError::Invalid(format!(
                "unknown filter {s:?} (none, quiet, qleaf)"
            ))),
        }
    }
}

/// What the filter did with a position.
pub enum Filtered {
    /// Keep this position (the original, or its quiescence leaf).
    Keep(Chess),
    /// Drop it, for this reason.
    Drop(&'static str),
}

/// A filter with the evaluation it searches with.
///
/// ```
/// use data::filter::{Filter, Filtered, Filterer};
/// use eval::ModelKind;
/// use shakmaty::{fen::Fen, CastlingMode, Chess, Position};
///
/// // White to move can take a hanging queen: not quiet; its quiescence leaf has no queen.
/// let pos: Chess = "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1"
///     .parse::<Fen>()?
///     .into_position(CastlingMode::Standard)?;
/// let quiet = Filterer::new(Filter::Quiet, ModelKind::Psqt, None)?;
/// assert!(matches!(quiet.apply(pos.clone()), Filtered::Drop(_)));
/// let leaf = Filterer::new(Filter::QuiescenceLeaf, ModelKind::Psqt, None)?;
/// let Filtered::Keep(l) = leaf.apply(pos) else { panic!() };
/// assert_eq!(l.board().queens().count(), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Filterer {
    filter: Filter,
    model: Model,
    weights: Vec<f64>,
}

impl Filterer {
    /// A filter evaluating with `model` and `weights` (the model's defaults when `None`).
    pub fn new(
        filter: Filter,
        model: ModelKind,
        weights: Option<&[f64]>,
    ) -> Result<Filterer, DataError> {
        let model = Model::new(model);
        let weights = match weights {
            Some(w) if w.len() != model.default_weights().len() => {
                return Err(DataError::Invalid(format!(
                    "{} filter weights for a model of {}",
                    w.len(),
                    model.default_weights().len()
                )))
            }
            Some(w) => w.to_vec(),
            None => model.default_weights(),
        };
        Ok(Filterer {
            filter,
            model,
            weights,
        })
    }

    /// Applies the filter to one position.
    pub fn apply(&self, pos: Chess) -> Filtered {
        match self.filter {
            Filter::None => Filtered::Keep(pos),
            Filter::Quiet => {
                if eval::is_quiet(&self.model, &pos, &self.weights) {
                    Filtered::Keep(pos)
                } else {
                    Filtered::Drop("not quiet")
                }
            }
            Filter::QuiescenceLeaf => {
                let q = eval::quiesce(&self.model, &pos, &self.weights);
                if q.score.abs() >= eval::MATE - 1000.0 {
                    Filtered::Drop("mate in quiescence")
                } else {
                    Filtered::Keep(q.leaf)
                }
            }
        }
    }
}
