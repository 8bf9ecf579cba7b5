//! What a term of the evaluation is ([`Term`]), what it sees of the position ([`Context`]), how
//! it declares its parameters ([`ParamBuilder`]), and the `terms!` macro that turns the term
//! list (`terms/mod.rs`) into `full`'s layout, its extraction and its group lists.

use std::fmt::Debug;

use shakmaty::{Board, Chess, Color, Position};

use crate::features::Sink;
use crate::param_info::ParamInfo;

/// One term of the evaluation: its parameters and the features of a position that multiply
/// them. Implemented by a unit struct in a module of its own under `terms/`, listed once in
/// `terms/mod.rs`.
///
/// Everything is static (associated functions and constants, no `self`): the list is expanded
/// into straight-line calls, so the extraction the search runs is one monomorphised, inlined
/// function with no dynamic dispatch.
pub(crate) trait Term {
    /// The indices of the term's parameters, as [`declare`](Term::declare) made them (usually
    /// the index of the first parameter of each family).
    type Layout: Debug;

    /// The parameter groups the term declares, in the order it declares them (a parameter's
    /// group is the first component of its name). Each group belongs to exactly one term
    /// (tested).
    const GROUPS: &'static [&'static str];

    /// Whether the term was added to `full` after weights files of it were written. Its groups
    /// are then [`LATER_GROUPS`](crate::LATER_GROUPS): a file without any of their parameters
    /// reads with them at their defaults, which must add nothing (0 for a linear term), so the
    /// file evaluates and plays as it did. Such a term comes after every term before it in the
    /// list, so its middlegame and endgame terms come after theirs in the sums and, at 0, leave
    /// the sums as they were bit for bit.
    const ADDED_LATER: bool;

    /// Declares the term's parameters (names, defaults, bounds, twins) and returns where they
    /// are.
    fn declare(b: &mut ParamBuilder) -> Self::Layout;

    /// Hands the position's terms to `sink`, in a fixed order: `(parameter index, coefficient)`
    /// pairs that depend on the position only, never on the weights.
    fn extract(ctx: &mut Context<'_>, layout: &Self::Layout, sink: &mut impl Sink);
}

/// The squares each side attacks, by kind of attacker (index 0 White, 1 Black), filled by the
/// `pieces` term's loop, which computes every piece's attacks anyway (all 0 for the terms
/// before it in the list).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AttackMaps {
    /// Attacked by a pawn.
    pub(crate) pawn: [u64; 2],
    /// Attacked by a knight or a bishop.
    pub(crate) minor: [u64; 2],
    /// Attacked by a rook.
    pub(crate) rook: [u64; 2],
    /// Attacked by anything (pawns, pieces, the king).
    pub(crate) all: [u64; 2],
}

/// What a term's extraction sees: the position, and what earlier terms of the list computed
/// for later ones.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Context<'a> {
    /// The position.
    pub(crate) pos: &'a Chess,
    /// The attack maps, filled by the `pieces` term.
    pub(crate) maps: AttackMaps,
}

impl<'a> Context<'a> {
    /// The context of `pos` before any term has run.
    #[inline(always)]
    pub(crate) fn new(pos: &'a Chess) -> Self {
        Context {
            pos,
            maps: AttackMaps::default(),
        }
    }

    /// The board.
    #[inline(always)]
    pub(crate) fn board(&self) -> &'a Board {
        self.pos.board()
    }

    /// The side to move.
    #[inline(always)]
    pub(crate) fn turn(&self) -> Color {
        self.pos.turn()
    }
}

/// Builds a model's parameter list, term by term, in index order.
#[derive(Debug, Default)]
pub(crate) struct ParamBuilder {
    params: Vec<ParamInfo>,
    /// The index range each term declared, in the order of [`term`](ParamBuilder::term) calls.
    spans: Vec<(usize, usize)>,
}

impl ParamBuilder {
    /// Declares the parameters of term `T` and returns its layout.
    pub(crate) fn term<T: Term>(&mut self) -> T::Layout {
        let start = self.params.len();
        let layout = T::declare(self);
        self.spans.push((start, self.params.len()));
        layout
    }

    /// The index the next parameter will get.
    pub(crate) fn next_index(&self) -> u32 {
        self.params.len() as u32
    }

    /// The index of the parameter called `name`, declared by an earlier term (for a term whose
    /// extraction adds to another term's parameters).
    pub(crate) fn index_of(&self, name: &str) -> Option<u32> {
        self.params
            .iter()
            .position(|p| p.name == name)
            .map(|i| i as u32)
    }

    /// Declares one parameter (a whole number by nature, no twin); its group is the first
    /// component of `name`. Returns its index.
    pub(crate) fn push(&mut self, name: String, init: f64, bounds: Option<(f64, f64)>) -> u32 {
        let index = self.next_index();
        let group = name.split('.').next().unwrap_or_default().to_string();
        self.params.push(ParamInfo {
            name,
            group,
            init,
            bounds,
            integer: true,
            twin: None,
        });
        index
    }

    /// Marks parameter `index` as not a whole number by nature (a shape constant: integer
    /// output rounds it to fixed point). Returns `index`.
    pub(crate) fn fractional(&mut self, index: u32) -> u32 {
        if let Some(p) = self.params.get_mut(index as usize) {
            p.integer = false;
        }
        index
    }

    /// Makes parameter `eg` the endgame twin of the middlegame parameter `mg`.
    pub(crate) fn twin(&mut self, mg: u32, eg: u32) {
        if let Some(p) = self.params.get_mut(mg as usize) {
            p.twin = Some(eg as usize);
        }
    }

    /// Declares the tapered pair `<prefix>.mg`, `<prefix>.eg` (twins, both starting at `init`);
    /// returns the index of `.mg` (`.eg` is the next one).
    pub(crate) fn pair(&mut self, prefix: &str, init: f64) -> u32 {
        let mg = self.push(format!("{prefix}.mg"), init, None);
        let eg = self.push(format!("{prefix}.eg"), init, None);
        self.twin(mg, eg);
        mg
    }

    /// The parameters declared so far and the span of each term.
    pub(crate) fn finish(self) -> (Vec<ParamInfo>, Vec<(usize, usize)>) {
        (self.params, self.spans)
    }
}

/// One entry of the term list, for the group lists and the checks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TermInfo {
    /// The term's module name.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) name: &'static str,
    /// [`Term::GROUPS`].
    pub(crate) groups: &'static [&'static str],
    /// [`Term::ADDED_LATER`].
    pub(crate) added_later: bool,
}

/// How many groups the terms added later declare.
pub(crate) const fn later_group_count(terms: &[TermInfo]) -> usize {
    let (mut n, mut t) = (0, 0);
    while t < terms.len() {
        if terms[t].added_later {
            n += terms[t].groups.len();
        }
        t += 1;
    }
    n
}

/// The groups of the terms added later, in the order of the list (`N` is
/// [`later_group_count`]).
pub(crate) const fn later_groups<const N: usize>(terms: &[TermInfo]) -> [&'static str; N] {
    let mut out = [""; N];
    let (mut k, mut t) = (0, 0);
    while t < terms.len() {
        if terms[t].added_later {
            let mut g = 0;
            while g < terms[t].groups.len() {
                out[k] = terms[t].groups[g];
                k += 1;
                g += 1;
            }
        }
        t += 1;
    }
    out
}

/// Expands the term list (`name: Type,` per line, in order; each `name` a module of
/// `terms/mod.rs`, declared there by hand) into: `FullLayout` (one field per term, its [`Term::Layout`]), `TERMS`
/// ([`TermInfo`] per term), `declare` (every term's parameters, in order) and `extract` (every
/// term's extraction, in order, inlined).
macro_rules! terms {
    ($($name:ident: $term:ident,)*) => {
        /// Where every term's parameters are: `full`'s layout, one field per term.
        #[derive(Debug)]
        pub(crate) struct FullLayout {
            $(pub(crate) $name: <$name::$term as Term>::Layout,)*
        }

        /// Every term of the list, in order.
        pub(crate) const TERMS: &[TermInfo] = &[$(TermInfo {
            name: stringify!($name),
            groups: <$name::$term as Term>::GROUPS,
            added_later: <$name::$term as Term>::ADDED_LATER,
        },)*];

        /// Declares every term's parameters, in the order of the list.
        pub(crate) fn declare(b: &mut ParamBuilder) -> FullLayout {
            FullLayout {
                $($name: b.term::<$name::$term>(),)*
            }
        }

        /// Every term's extraction, in the order of the list.
        #[inline(always)]
        fn extract(ctx: &mut Context<'_>, layout: &FullLayout, sink: &mut impl Sink) {
            $(<$name::$term as Term>::extract(ctx, &layout.$name, sink);)*
        }
    };
}
