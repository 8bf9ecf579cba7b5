//! [`Group`] and [`Count`], and the helpers every family's module builds its groups with.

use shakmaty::{Chess, Color, Square};

/// One element's counts in a position: how many times the feature occurs for White and for
/// Black (Black's squares mirrored vertically, so that both sides share one table).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    /// The element's index in [`Group::elements`].
    pub element: u32,
    /// White's count.
    pub white: i32,
    /// Black's count.
    pub black: i32,
}

impl Count {
    /// White's count less Black's: the element's coefficient from White's point of view.
    pub fn net(&self) -> i32 {
        self.white - self.black
    }
}

/// A group of candidate terms.
pub struct Group {
    /// The group's name (`knight_table`, `mobility_knight`, ...): what a manifest's parameter
    /// declares to be a port of it.
    pub name: &'static str,
    /// One line for people.
    pub summary: &'static str,
    /// The elements' names, in index order (`b1`, `3`, `rank5`, ...).
    pub elements: Vec<String>,
    /// The `full` model's group whose extraction it shares, if any.
    pub full_group: Option<&'static str>,
    /// The counts of a position, into the list (cleared first).
    pub(super) extract: fn(&Chess, &mut Vec<Count>),
}

impl std::fmt::Debug for Group {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Group")
            .field("name", &self.name)
            .field("elements", &self.elements.len())
            .field("full_group", &self.full_group)
            .finish()
    }
}

impl Group {
    /// The counts of `pos`: every element with a nonzero count for either side, in increasing
    /// element order, each element once. `out` is cleared first.
    pub fn counts(&self, pos: &Chess, out: &mut Vec<Count>) {
        out.clear();
        (self.extract)(pos, out);
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.elements.len()
    }

    /// Whether the group has no element (never, for the catalogue's groups).
    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }
}

/// The indices of the set bits of `bb`, lowest first.
pub(super) fn bits(mut bb: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let i = bb.trailing_zeros() as usize;
        // `i` is 64 once no bit is left.
        (bb != 0).then(|| {
            bb &= bb - 1;
            i
        })
    })
}

/// `color`'s count `n` of `element` (the other side's 0).
pub(super) fn side(color: Color, element: u32, n: i32) -> Count {
    match color {
        Color::White => Count {
            element,
            white: n,
            black: 0,
        },
        Color::Black => Count {
            element,
            white: 0,
            black: n,
        },
    }
}

/// Sorts `out` by element and merges repeated elements: the form [`Group::counts`] promises.
pub(super) fn normalise(out: &mut Vec<Count>) {
    out.sort_unstable_by_key(|c| c.element);
    out.dedup_by(|next, kept| {
        if next.element == kept.element {
            kept.white += next.white;
            kept.black += next.black;
            true
        } else {
            false
        }
    });
    out.retain(|c| c.white != 0 || c.black != 0);
}

/// The 64 squares' names, a1 .. h8.
pub(super) fn square_names() -> Vec<String> {
    Square::ALL.iter().map(|s| s.to_string()).collect()
}
