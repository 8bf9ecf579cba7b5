//! The transposition table: a fixed-size, always-replace-unless-deeper hash table of search
//! results keyed by Zobrist hash.

use shakmaty::Move;

use crate::score::MATE_BOUND;

/// What a stored score says about the true score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true score.
    Exact,
    /// The true score is at least this (fail high).
    Lower,
    /// The true score is at most this (fail low).
    Upper,
}

/// One stored search result.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// Full Zobrist key, to detect index collisions.
    pub key: u64,
    /// Best (or refuting) move found, if any.
    pub best: Option<Move>,
    /// Score, mate scores stored relative to this node (see [`to_tt`]).
    pub score: i32,
    /// Remaining depth the score was searched to.
    pub depth: i16,
    /// Kind of score.
    pub bound: Bound,
    /// Search generation that wrote the entry.
    pub generation: u8,
}

/// A transposition table.
///
/// ```
/// use engine::search::tt::{Bound, TranspositionTable};
/// let mut tt = TranspositionTable::new(1);
/// tt.store(42, None, 17, 3, Bound::Exact, 0);
/// assert_eq!(tt.probe(42, 0).unwrap().score, 17);
/// assert!(tt.probe(43, 0).is_none());
/// ```
#[derive(Clone, Debug)]
pub struct TranspositionTable {
    entries: Vec<Option<Entry>>,
    generation: u8,
}

impl TranspositionTable {
    /// A table of about `megabytes` MiB (at least 1024 entries).
    pub fn new(megabytes: usize) -> Self {
        let size = std::mem::size_of::<Option<Entry>>();
        let n = (megabytes.saturating_mul(1 << 20) / size).max(1024);
        Self {
            entries: vec![None; n],
            generation: 0,
        }
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table has no slots (never: at least 1024).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forget everything.
    pub fn clear(&mut self) {
        self.entries.iter_mut().for_each(|e| *e = None);
        self.generation = 0;
    }

    /// Start a new search: older entries become preferred victims.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    fn index(&self, key: u64) -> usize {
        // Multiply-shift: the high bits of key * len spread keys evenly over the slots.
        ((u128::from(key) * self.entries.len() as u128) >> 64) as usize
    }

    /// The entry for `key`, with its mate score made relative to `ply` from the root.
    pub fn probe(&self, key: u64, ply: usize) -> Option<Entry> {
        let e = self.entries[self.index(key)]?;
        (e.key == key).then(|| Entry {
            score: from_tt(e.score, ply),
            ..e
        })
    }

    /// Store a result found `ply` plies from the root.
    pub fn store(
        &mut self,
        key: u64,
        best: Option<Move>,
        score: i32,
        depth: i32,
        bound: Bound,
        ply: usize,
    ) {
        let i = self.index(key);
        let generation = self.generation;
        let slot = &mut self.entries[i];
        if let Some(old) = slot {
            let keep_deeper =
                old.generation == generation && old.key != key && i32::from(old.depth) > depth;
            if keep_deeper {
                return;
            }
        }
        let best = best.or_else(|| slot.filter(|o| o.key == key).and_then(|o| o.best));
        *slot = Some(Entry {
            key,
            best,
            score: to_tt(score, ply),
            depth: depth.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
            bound,
            generation,
        });
    }
}

/// Mate scores are stored as distance from the stored node, not from the root.
pub fn to_tt(score: i32, ply: usize) -> i32 {
    let ply = ply as i32;
    if score >= MATE_BOUND {
        score + ply
    } else if score <= -MATE_BOUND {
        score - ply
    } else {
        score
    }
}

/// Inverse of [`to_tt`].
pub fn from_tt(score: i32, ply: usize) -> i32 {
    let ply = ply as i32;
    if score >= MATE_BOUND {
        score - ply
    } else if score <= -MATE_BOUND {
        score + ply
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::MATE;

    #[test]
    fn mate_scores_round_trip() {
        for ply in [0, 1, 7, 40] {
            for s in [MATE - 3, -(MATE - 5), 120, -40] {
                assert_eq!(from_tt(to_tt(s, ply), ply), s);
            }
        }
    }

    #[test]
    fn deeper_entries_survive_collisions_in_one_search() {
        let mut tt = TranspositionTable::new(0);
        let n = tt.len() as u64;
        // Two keys mapping to slot 0: both below 2^64 / n.
        let (a, b) = (1, (u64::MAX / n) / 2);
        tt.store(a, None, 5, 8, Bound::Exact, 0);
        tt.store(b, None, 6, 2, Bound::Exact, 0);
        assert_eq!(tt.probe(a, 0).map(|e| e.score), Some(5));
        tt.new_search();
        tt.store(b, None, 6, 2, Bound::Exact, 0);
        assert_eq!(tt.probe(b, 0).map(|e| e.score), Some(6));
    }
}
