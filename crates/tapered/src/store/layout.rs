//! [`Layout`]: how a set's positions are stored, the positions and bytes of each store and the
//! fallbacks by store and reason. Names only the leaves [`StoreKind`] and [`Reason`].

use serde::{Deserialize, Serialize};

use super::kind::StoreKind;
use super::reason::Reason;

/// One store's share of a set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreSize {
    /// The store.
    pub store: StoreKind,
    /// Positions it holds.
    pub positions: usize,
    /// Heap bytes it holds (not counting the labels).
    pub bytes: usize,
}

/// Positions kept in a slower store than the one tried first, for one reason.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fallback {
    /// Where they are kept.
    pub store: StoreKind,
    /// Why the faster store refused them.
    pub reason: Reason,
    /// How many.
    pub positions: usize,
    /// The parameter (weight index) of the first refused term, where a term caused it.
    #[serde(default)]
    pub param: Option<u32>,
    /// That term's coefficient.
    #[serde(default)]
    pub coefficient: Option<f64>,
}

/// How a set's positions are stored: see [`CompiledSet::layout`](crate::CompiledSet::layout).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Layout {
    /// The non-empty stores, in section order.
    pub stores: Vec<StoreSize>,
    /// The fallbacks, by store and reason.
    pub fallbacks: Vec<Fallback>,
    /// Heap bytes of the labels.
    pub label_bytes: usize,
}

impl Layout {
    /// Positions in `store`.
    pub fn positions(&self, store: StoreKind) -> usize {
        self.stores
            .iter()
            .filter(|s| s.store == store)
            .map(|s| s.positions)
            .sum()
    }

    /// Positions that fell back to a slower store, for any reason.
    pub fn fallen_back(&self) -> usize {
        self.fallbacks.iter().map(|f| f.positions).sum()
    }

    /// One message per fallback (store and reason), with its count, the bytes a position
    /// of that store takes, the parameter that caused it (as `#index`) and the fix: empty
    /// when every position is where it was meant to go. [`warnings_named`](Self::warnings_named)
    /// names the parameters.
    pub fn warnings(&self) -> Vec<String> {
        self.warnings_named(&|i| format!("#{i}"))
    }

    /// [`warnings`](Self::warnings), each parameter named by `name(index)`.
    pub fn warnings_named(&self, name: &dyn Fn(u32) -> String) -> Vec<String> {
        self.fallbacks
            .iter()
            .map(|f| {
                let size = self.stores.iter().find(|s| s.store == f.store);
                let each = size.map_or(0, |s| s.bytes / s.positions.max(1));
                format!(
                    "{} positions kept as {} instead of a compact store (about {each} bytes \
                     each: the same values, only more memory and slower passes); reason: {}{}",
                    f.positions,
                    f.store,
                    f.reason,
                    culprit(f, name)
                )
            })
            .collect()
    }
}

/// What a fallback's message adds to its reason: the parameter and coefficient of the first
/// refused term and how to let such positions in.
fn culprit(f: &Fallback, name: &dyn Fn(u32) -> String) -> String {
    let p = f.param.map(|p| format!("`{}`", name(p)));
    let c = f.coefficient.map_or(String::new(), |c| c.to_string());
    let subject = p.as_deref().unwrap_or("a parameter");
    let first = match (&p, f.coefficient) {
        (Some(p), Some(c)) => format!(" (first: parameter {p}, coefficient {c})"),
        (Some(p), None) => format!(" (first: parameter {p})"),
        _ => String::new(),
    };
    let fix = match f.reason {
        Reason::NoTwinPair => format!(
            "{subject} is in no (middlegame, endgame) pair and the untapered parameters do not \
             all fit beside the pairs ({MAX} addressable): declare {subject} as a tapered pair",
            MAX = super::packing::MAX_PAIRS
        ),
        Reason::NonIntegerCoefficient => format!(
            "the count {c} of {subject} is not a whole number: trace whole counts (scale \
             {subject}'s count up and its value down by the same factor)"
        ),
        Reason::CoefficientOutOfRange => format!(
            "the count {c} of {subject} is beyond what the compact stores pack for one \
             parameter (the phased store: one entry of -64..=63 up to 512 pairs, halving as \
             they double; the head stores: 16 such entries): split {subject} into several \
             elements, or scale its count down and its value up"
        ),
        Reason::IndexOutOfRange => format!(
            "{subject} is beyond the 65,536 weights a compact store addresses, or a sum has \
             more than 65,535 terms: declare fewer weights"
        ),
        Reason::ConstantTerm => {
            "trace the constant as a 32-bit float (a whole number of centipawns is one)".into()
        }
        Reason::NonLinearWithoutSplit => {
            "declare the evaluation's non-linear part as terms of a head (the manifest's \
             `terms` and `eval`)"
                .into()
        }
        Reason::UnusableSplit => {
            "the head and its inputs do not fit the store (more than 16,384 parameter pairs, or \
             a head of other inputs): fewer pairs"
                .into()
        }
        Reason::MixedPhases => {
            "record the row's pairs with one phase factor (one middlegame and one endgame \
             factor a row)"
                .into()
        }
        Reason::StoreFull => "record the positions in several smaller sets".into(),
    };
    format!("{first}; fix: {fix}")
}
