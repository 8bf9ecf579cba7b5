//! [`Factors`]: a phased store's distinct `[a, b]` factors, which its rows name by a `u16`
//! (a phase and a scale take a few thousand values, so two bytes a row instead of sixteen).

use std::collections::HashMap;

/// Most distinct factor pairs a store holds.
const MAX_FACTORS: usize = 1 << 16;

/// The distinct `[middlegame, endgame]` factors of a store's rows, numbered in order of first
/// use, exact (told apart by their bits). The index that finds a factor pair's number is only
/// kept while rows are added: [`shrink`](Factors::shrink) drops it, the next
/// [`intern`](Factors::intern) rebuilds it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Factors {
    table: Vec<[f64; 2]>,
    index: HashMap<[u64; 2], u16>,
    /// Whether `index` holds every entry of `table`.
    indexed: bool,
}

impl Factors {
    /// The number of `ab`, added if new; `None` if the table is full ([`MAX_FACTORS`]).
    pub(crate) fn intern(&mut self, ab: [f64; 2]) -> Option<u16> {
        if !self.indexed {
            for (k, ab) in self.table.iter().enumerate() {
                self.index.entry(ab.map(f64::to_bits)).or_insert(k as u16);
            }
            self.indexed = true;
        }
        let key = ab.map(f64::to_bits);
        if let Some(&k) = self.index.get(&key) {
            return Some(k);
        }
        if self.table.len() >= MAX_FACTORS {
            return None;
        }
        let k = self.table.len() as u16;
        self.table.push(ab);
        self.index.insert(key, k);
        Some(k)
    }

    /// Factors number `k`.
    #[inline(always)]
    pub(crate) fn get(&self, k: u16) -> [f64; 2] {
        self.table[usize::from(k)]
    }

    /// The numbers of `other`'s factors in this table (added where new); `None` if they do
    /// not all fit.
    pub(crate) fn merge(&mut self, other: &Factors) -> Option<Vec<u16>> {
        other.table.iter().map(|&ab| self.intern(ab)).collect()
    }

    /// Bytes of heap memory held (the index's slots estimated at 25 bytes each).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.table.capacity() * 16 + self.index.capacity() * 25
    }

    /// Releases spare capacity and the index (rebuilt if a row is added again).
    pub(crate) fn shrink(&mut self) {
        self.table.shrink_to_fit();
        self.index = HashMap::new();
        self.indexed = false;
    }
}
