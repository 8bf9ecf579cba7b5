//! One catalogue group's counts over a set of positions, kept sparse (8 bytes a nonzero element
//! of a position): computed one group at a time from the packed boards, in parallel.

use data::PackedBoard;
use eval::catalogue::{Count, Group};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// Positions per parallel work item.
const CHUNK: usize = 1 << 13;

/// One work item's row lengths and entries.
type Chunk = (Vec<u32>, Vec<(u32, i32)>);

/// A group's net counts (White's less Black's) by position.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Features {
    /// Position `i`'s entries are `entries[start[i]..start[i + 1]]`.
    pub start: Vec<u32>,
    /// `(element, white - black)`, nonzero.
    pub entries: Vec<(u32, i32)>,
}

impl Features {
    /// `group`'s counts of every board (a board that does not decode has none).
    pub fn extract(group: &Group, boards: &[PackedBoard]) -> Features {
        let chunks: Vec<Chunk> = boards
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut lens = Vec::with_capacity(chunk.len());
                let mut entries = Vec::new();
                let mut counts: Vec<Count> = Vec::new();
                for b in chunk {
                    counts.clear();
                    if let Ok(pos) = b.to_position() {
                        group.counts(&pos, &mut counts);
                    }
                    let before = entries.len();
                    entries.extend(
                        counts
                            .iter()
                            .filter(|c| c.net() != 0)
                            .map(|c| (c.element, c.net())),
                    );
                    lens.push((entries.len() - before) as u32);
                }
                (lens, entries)
            })
            .collect();
        let mut out = Features {
            start: vec![0],
            entries: Vec::new(),
        };
        for (lens, entries) in chunks {
            for l in lens {
                let last = out.start[out.start.len() - 1];
                out.start.push(last + l);
            }
            out.entries.extend(entries);
        }
        out
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// Whether there is no position.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Position `i`'s entries.
    pub fn row(&self, i: usize) -> &[(u32, i32)] {
        &self.entries[self.start[i] as usize..self.start[i + 1] as usize]
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.start.len() * 4 + self.entries.len() * 8
    }

    /// The control: position `i` gets the counts of position `perm[i]`, `perm` a permutation
    /// drawn from `seed` (ChaCha8): the same counts, on the wrong positions.
    pub fn shuffled(&self, seed: u64) -> Features {
        let mut perm: Vec<usize> = (0..self.len()).collect();
        perm.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
        let mut out = Features {
            start: vec![0],
            entries: Vec::with_capacity(self.entries.len()),
        };
        for &j in &perm {
            out.entries.extend_from_slice(self.row(j));
            out.start.push(out.entries.len() as u32);
        }
        out
    }
}
