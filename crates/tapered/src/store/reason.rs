//! [`Reason`]: why a faster store refused a position, and the count of a store's fallbacks by
//! reason. A leaf: it imports nothing of the crate.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Why a faster store refused a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The evaluation is not linear in the weights and was recorded without a split into sums
    /// and a head.
    NonLinearWithoutSplit,
    /// The split cannot be used at all: no (middlegame, endgame) pairs or too many, the twins
    /// not two distinct sums, more than 16 head inputs, or a head weight or pairing that does
    /// not match the parameters.
    UnusableSplit,
    /// A term names a parameter that is in no (middlegame, endgame) pair, or the twin sums do
    /// not match term by term with equal coefficients.
    NoTwinPair,
    /// A coefficient is not an integer (phased rows: not an integer multiple of one phase).
    NonIntegerCoefficient,
    /// An integer coefficient outside the store's range (per pair `-64..=63` up to 512
    /// pairs, less for more; `i16` for the other sums) or zero once merged by pair.
    CoefficientOutOfRange,
    /// A parameter index beyond `u16`, or more than 65,535 terms in one sum.
    IndexOutOfRange,
    /// A linear row whose constant term is not a 32-bit float (the phased store keeps
    /// constants as `f32`; a trace's `const` always is one).
    ConstantTerm,
    /// A linear row whose pairs are tapered by different factors.
    MixedPhases,
    /// The store's arena would outgrow its 32-bit offsets (phased store: or its table of
    /// 65,536 distinct factors is full).
    StoreFull,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Reason::NonLinearWithoutSplit => "non-linear evaluation without a split",
            Reason::UnusableSplit => "the split does not fit the store",
            Reason::NoTwinPair => "no twin (middlegame, endgame) pair",
            Reason::NonIntegerCoefficient => "non-integer coefficient",
            Reason::CoefficientOutOfRange => "coefficient out of range",
            Reason::IndexOutOfRange => "parameter index or term count out of u16 range",
            Reason::ConstantTerm => "constant not exact as a 32-bit float",
            Reason::MixedPhases => "pairs tapered by different factors",
            Reason::StoreFull => "compact store full (32-bit offsets, or 65,536 distinct factors)",
        })
    }
}

/// Counts `reasons` (one per position; `None`: not a fallback) by reason, in [`Reason`] order.
pub(crate) fn count_reasons(reasons: impl Iterator<Item = Option<Reason>>) -> Vec<(Reason, usize)> {
    let mut counts: Vec<(Reason, usize)> = Vec::new();
    for r in reasons.flatten() {
        match counts.iter_mut().find(|c| c.0 == r) {
            Some(c) => c.1 += 1,
            None => counts.push((r, 1)),
        }
    }
    counts.sort_unstable();
    counts
}

/// A refusal: the [`Reason`], and the parameter and coefficient that caused it when one did
/// (the first term that did not fit), so that a message can name the parameter and the fix.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Refusal {
    pub(crate) reason: Reason,
    /// The parameter (weight index) whose term did not fit.
    pub(crate) param: Option<u32>,
    /// Its coefficient, where the coefficient was the trouble.
    pub(crate) coefficient: Option<f64>,
}

impl From<Reason> for Refusal {
    fn from(reason: Reason) -> Refusal {
        Refusal {
            reason,
            param: None,
            coefficient: None,
        }
    }
}

impl Refusal {
    /// `reason`, caused by parameter `param` with coefficient `coefficient`.
    pub(crate) fn at(reason: Reason, param: u32, coefficient: f64) -> Refusal {
        Refusal {
            reason,
            param: Some(param),
            coefficient: Some(coefficient),
        }
    }
}

/// The first refusal of each reason a store met (one with a parameter preferred), kept
/// beside its one byte a position so that a report can name a parameter.
#[derive(Clone, Debug, Default)]
pub(crate) struct Examples(Vec<Refusal>);

impl Examples {
    /// Notes `r` if it is the first of its reason (or the first of it naming a parameter).
    pub(crate) fn note(&mut self, r: Refusal) {
        match self.0.iter_mut().find(|e| e.reason == r.reason) {
            Some(e) if e.param.is_none() && r.param.is_some() => *e = r,
            Some(_) => {}
            None => self.0.push(r),
        }
    }

    /// Notes every example of `other`.
    pub(crate) fn merge(&mut self, other: &Examples) {
        for &r in &other.0 {
            self.note(r);
        }
    }

    /// `counts` (from [`count_reasons`]) with each reason's example.
    pub(crate) fn with(&self, counts: Vec<(Reason, usize)>) -> Vec<(Refusal, usize)> {
        counts
            .into_iter()
            .map(|(reason, n)| {
                let e = self.0.iter().find(|e| e.reason == reason);
                (e.copied().unwrap_or_else(|| reason.into()), n)
            })
            .collect()
    }
}
