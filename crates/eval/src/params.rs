//! The index layout of both models, built from the term list.
//!
//! Every parameter has a stable, readable name; the index layout below is derived from the same
//! builder that makes the names, so names and indices cannot drift apart. The `psqt` layout is a
//! prefix of the `full` layout: the first parameters of `full` are exactly those of `psqt`.

use shakmaty::Square;

use crate::kind::ModelKind;
use crate::param_info::{ParamInfo, PHASE_NAMES, ROLE_NAMES};
use crate::terms::mobility::MOBILITY_MAX;
use crate::terms::psqt::{Psqt, PsqtLayout};
use crate::terms::{self, FullLayout, ParamBuilder};

/// Where a model's parameters are: `psqt`'s one term, or every term of `full`'s list.
#[derive(Debug)]
pub(crate) enum Layout {
    /// The `psqt` model.
    Psqt(PsqtLayout),
    /// The `full` model.
    Full(FullLayout),
}

impl Layout {
    /// The material and piece-square tables, which both models have, at the same indices.
    pub(crate) fn psqt(&self) -> &PsqtLayout {
        match self {
            Layout::Psqt(l) => l,
            Layout::Full(l) => &l.psqt,
        }
    }
}

/// Builds the parameter list and layout of a model: `psqt` is the first term of `full`'s list
/// alone, `full` the whole list (`terms/mod.rs`).
pub(crate) fn build(kind: ModelKind) -> (Layout, Vec<ParamInfo>) {
    let mut b = ParamBuilder::default();
    let layout = match kind {
        ModelKind::Psqt => Layout::Psqt(b.term::<Psqt>()),
        ModelKind::Full => Layout::Full(terms::declare(&mut b)),
    };
    (layout, b.finish().0)
}

/// [`Model::smoothing_pairs`](crate::Model::smoothing_pairs), from the layout [`build`] makes:
/// the tables are `pst + (role * 2 + phase) * 64 + square`, and a mobility table's count `c` in
/// phase `p` is `mobility[m] + 2 c + p`.
pub(crate) fn smoothing_pairs(layout: &Layout) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for role in 0..ROLE_NAMES.len() {
        let pawn = role == 0;
        for phase in 0..PHASE_NAMES.len() {
            let table = layout.psqt().pst as usize + (role * PHASE_NAMES.len() + phase) * 64;
            for sq in Square::ALL {
                if pawn && matches!(u32::from(sq.rank()), 0 | 7) {
                    continue;
                }
                for to in shakmaty::attacks::king_attacks(sq) {
                    if to > sq && !(pawn && matches!(u32::from(to.rank()), 0 | 7)) {
                        pairs.push((table + usize::from(sq), table + usize::from(to)));
                    }
                }
            }
        }
    }
    if let Layout::Full(layout) = layout {
        for (m, &max) in MOBILITY_MAX.iter().enumerate() {
            let base = layout.mobility[m] as usize;
            for count in 0..max {
                for phase in 0..PHASE_NAMES.len() {
                    pairs.push((base + 2 * count + phase, base + 2 * (count + 1) + phase));
                }
            }
        }
    }
    pairs
}

/// The term list ([`crate::terms`]) as the layouts are built from it.
#[cfg(test)]
mod tests {
    use crate::terms::{declare, ParamBuilder, TERMS};
    use crate::LATER_GROUPS;

    /// Each term declares exactly the groups it says, in that order, and no other term's: a
    /// group is one term's, so a group absent from a file is one term absent.
    #[test]
    fn each_term_declares_its_own_groups() {
        let mut b = ParamBuilder::default();
        declare(&mut b);
        let (params, spans) = b.finish();
        assert_eq!(spans.len(), TERMS.len());
        assert_eq!(spans.last().map(|s| s.1), Some(params.len()));
        let mut seen: Vec<&str> = Vec::new();
        for (term, &(start, end)) in TERMS.iter().zip(&spans) {
            let mut groups: Vec<&str> = Vec::new();
            for p in &params[start..end] {
                if !groups.contains(&p.group.as_str()) {
                    groups.push(&p.group);
                }
            }
            assert_eq!(groups, term.groups, "term `{}`", term.name);
            for g in groups {
                assert!(!seen.contains(&g), "group `{g}` of two terms");
                seen.push(g);
            }
        }
    }

    /// The groups added later are those of the terms so marked, in the order of the list; the
    /// first three are the ones added before the list existed.
    #[test]
    fn later_groups_follow_from_the_list() {
        let later: Vec<&str> = TERMS
            .iter()
            .filter(|t| t.added_later)
            .flat_map(|t| t.groups.iter().copied())
            .collect();
        assert_eq!(LATER_GROUPS.to_vec(), later);
        assert_eq!(LATER_GROUPS[..3], ["threats", "push_threats", "outposts"]);
    }

    /// `psqt` is the first term alone: its parameters are `full`'s first ones.
    #[test]
    fn psqt_is_a_prefix_of_full() {
        let (_, psqt) = crate::params::build(crate::ModelKind::Psqt);
        let (_, full) = crate::params::build(crate::ModelKind::Full);
        assert_eq!(psqt[..], full[..psqt.len()]);
    }
}
