//! An objective evaluated by what changes: [`Columns`], the index of the positions each weight
//! changes (built once from the set, [`CompiledSet::reads`]), and [`Kept`], every position's
//! current evaluation and loss, so that moving one weight re-evaluates only its column
//! ([`Kept::try_weight`]) and keeping the move updates only those positions
//! ([`Kept::keep`]). What the integer polish after rounding (`texel::finish`) is made of: a
//! sweep of tries costs about one pass in all, not one pass a try.
//!
//! **Exact.** A position outside a weight's column does not read the weight, so its score is
//! the same bits whatever the weight ([`CompiledSet::reads`]); a position in it is scored
//! afresh with [`CompiledSet::score`], the function [`CompiledSet::scores`] fills the kept
//! evaluations with. So the kept evaluations are always exactly the scores at the current
//! weights, and a try's loss change is exactly the sum of its positions' changes: the same
//! decision as comparing two passes' losses, up to the order of the sum.
//!
//! **Compact.** A column lists its positions in increasing order, as the gaps between them in
//! LEB128 (one byte for a gap below 128: about a byte a position a column for dense columns),
//! cut into *parts*, one per block of positions, which a try evaluates in parallel. The two
//! weights of a tapered element (a `.mg` and its `.eg` twin) are read by the same positions
//! in every store, so they share one column (the union of theirs, which is exact too).
//! Positions whose store cannot tell what they read are in every column
//! ([`Columns::everywhere`]).

use rayon::prelude::*;
use tape::Scratch;
use tapered::{CompiledSet, Stop};

use crate::objective::Objective;

/// No column: a weight outside the index.
const NONE: u32 = u32::MAX;

/// The fewest positions a block (a part of a column; a work item of a try).
const MIN_BLOCK: usize = 1 << 12;

/// Blocks built at a time (each holds its columns' bytes until they are appended).
const WAVE: usize = 16;

/// The positions each weight changes; see the module documentation.
#[derive(Clone, Debug, Default)]
pub struct Columns {
    /// Per weight of the set, its column (`NONE`: not indexed).
    col_of: Vec<u32>,
    /// Column `c`'s parts are `parts[col_parts[c]..col_parts[c + 1]]`.
    col_parts: Vec<usize>,
    parts: Vec<Part>,
    /// Column `c` holds `entries[c]` positions.
    entries: Vec<usize>,
    /// Every column's gaps, part after part.
    bytes: Vec<u8>,
    /// Positions in every column (their store cannot tell what they read), ascending.
    everywhere: Vec<u32>,
    /// Positions a block.
    block: usize,
    /// Positions of the set.
    len: usize,
}

/// A column's positions in one block: `count` gaps at `bytes[start..]`, the first from the
/// block's first position.
#[derive(Clone, Copy, Debug)]
struct Part {
    block: u32,
    count: u32,
    start: usize,
}

/// A block's columns while it is built: each column's bytes, count and next position.
struct BlockCols {
    bytes: Vec<Vec<u8>>,
    count: Vec<u32>,
    next: Vec<u32>,
    everywhere: Vec<u32>,
}

/// Appends `v` in LEB128 (seven bits a byte, low first, the high bit set on all but the last).
#[inline(always)]
fn put(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The positions of a part: `count` gaps from `bytes`, the first counted from `first`.
#[inline(always)]
fn positions(bytes: &[u8], first: usize, count: usize) -> impl Iterator<Item = usize> + '_ {
    let (mut at, mut next) = (0usize, first);
    (0..count).map(move |_| {
        let mut v = 0usize;
        let mut shift = 0;
        loop {
            let b = bytes[at];
            at += 1;
            v |= usize::from(b & 0x7f) << shift;
            if b < 0x80 {
                break;
            }
            shift += 7;
        }
        let i = next + v;
        next = i + 1;
        i
    })
}

impl Columns {
    /// The index of `set` for the weights `weights` (indices into the set's parameters): for
    /// each, the positions that read it. `twins[m] = Some(e)` (as
    /// [`CompiledSet::compact_phased`] takes the pairing; may be empty): `m` and `e` share one
    /// column when both are indexed. One read of every position, in parallel; `None` when
    /// `stop` says so.
    pub fn build(
        set: &CompiledSet,
        weights: &[usize],
        twins: &[Option<usize>],
        stop: Stop<'_>,
    ) -> Option<Columns> {
        let block = (set.len() / 256).max(MIN_BLOCK);
        Columns::build_in_blocks(set, weights, twins, stop, block)
    }

    /// [`build`](Self::build) with `block` positions a block.
    fn build_in_blocks(
        set: &CompiledSet,
        weights: &[usize],
        twins: &[Option<usize>],
        stop: Stop<'_>,
        block: usize,
    ) -> Option<Columns> {
        let n = set.params();
        let mut col_of = vec![NONE; n];
        let mut cols = 0u32;
        for &j in weights.iter().filter(|&&j| j < n) {
            if col_of[j] != NONE {
                continue;
            }
            col_of[j] = cols;
            let twin = twins.get(j).copied().flatten();
            if let Some(e) = twin.filter(|&e| e < n && weights.contains(&e)) {
                col_of[e] = cols;
            }
            cols += 1;
        }
        let cols = cols as usize;
        let len = set.len();
        let block = block.max(1);
        let blocks = len.div_ceil(block);
        let mut out = Columns {
            col_of,
            col_parts: Vec::new(),
            parts: Vec::new(),
            entries: vec![0; cols],
            bytes: Vec::new(),
            everywhere: Vec::new(),
            block,
            len,
        };
        // Parts by column as the blocks come in, then laid out column by column.
        let mut by_col: Vec<Vec<(u32, u32, Vec<u8>)>> = vec![Vec::new(); cols];
        let mut sizes = vec![0usize; cols];
        for wave in (0..blocks).step_by(WAVE) {
            let built: Vec<BlockCols> = (wave..(wave + WAVE).min(blocks))
                .into_par_iter()
                .map(|b| {
                    if stop.now() {
                        return None;
                    }
                    Some(out.build_block(set, b, cols))
                })
                .collect::<Option<_>>()?;
            for (k, bc) in built.into_iter().enumerate() {
                let b = (wave + k) as u32;
                out.everywhere.extend_from_slice(&bc.everywhere);
                for (c, (bytes, count)) in bc.bytes.into_iter().zip(bc.count).enumerate() {
                    if count > 0 {
                        sizes[c] += bytes.len();
                        out.entries[c] += count as usize;
                        by_col[c].push((b, count, bytes));
                    }
                }
            }
        }
        out.bytes.reserve_exact(sizes.iter().sum());
        out.col_parts.push(0);
        for parts in by_col {
            for (block, count, bytes) in parts {
                out.parts.push(Part {
                    block,
                    count,
                    start: out.bytes.len(),
                });
                out.bytes.extend_from_slice(&bytes);
            }
            out.col_parts.push(out.parts.len());
        }
        Some(out)
    }

    /// Block `b`'s columns.
    fn build_block(&self, set: &CompiledSet, b: usize, cols: usize) -> BlockCols {
        let (first, end) = (b * self.block, ((b + 1) * self.block).min(self.len));
        let mut bc = BlockCols {
            bytes: vec![Vec::new(); cols],
            count: vec![0; cols],
            next: vec![first as u32; cols],
            everywhere: Vec::new(),
        };
        let (mut read, mut mine) = (Vec::new(), Vec::new());
        for i in first..end {
            read.clear();
            if !set.reads(i, &mut read) {
                bc.everywhere.push(i as u32);
                continue;
            }
            mine.clear();
            mine.extend(
                read.iter()
                    .map(|&j| self.col_of.get(j as usize).copied().unwrap_or(NONE))
                    .filter(|&c| c != NONE),
            );
            mine.sort_unstable();
            mine.dedup();
            for &c in &mine {
                let c = c as usize;
                put(&mut bc.bytes[c], i as u32 - bc.next[c]);
                bc.next[c] = i as u32 + 1;
                bc.count[c] += 1;
            }
        }
        bc
    }

    /// Positions weight `j`'s column holds, with those in every column ([`everywhere`]); 0 for
    /// a weight outside the index.
    ///
    /// [`everywhere`]: Self::everywhere
    pub fn entries(&self, j: usize) -> usize {
        match self.col_of.get(j).copied() {
            Some(c) if c != NONE => self.entries[c as usize] + self.everywhere.len(),
            _ => 0,
        }
    }

    /// Whether weight `j` has a column.
    pub fn indexes(&self, j: usize) -> bool {
        self.col_of.get(j).is_some_and(|&c| c != NONE)
    }

    /// Positions whose store cannot tell what they read: they are in every column.
    pub fn everywhere(&self) -> usize {
        self.everywhere.len()
    }

    /// Bytes of heap memory held.
    pub fn heap_bytes(&self) -> usize {
        self.col_of.capacity() * 4
            + self.col_parts.capacity() * std::mem::size_of::<usize>()
            + self.parts.capacity() * std::mem::size_of::<Part>()
            + self.entries.capacity() * std::mem::size_of::<usize>()
            + self.bytes.capacity()
            + self.everywhere.capacity() * 4
    }

    /// The work items of weight `j`'s column: its parts, then the positions in every column a
    /// block at a time; each lists its positions in increasing order.
    fn items(&self, j: usize) -> Vec<Item<'_>> {
        let Some(&c) = self.col_of.get(j).filter(|&&c| c != NONE) else {
            return Vec::new();
        };
        let c = c as usize;
        let parts = &self.parts[self.col_parts[c]..self.col_parts[c + 1]];
        let mut items: Vec<Item<'_>> = parts
            .iter()
            .map(|p| Item::Part {
                bytes: &self.bytes[p.start..],
                first: p.block as usize * self.block,
                count: p.count as usize,
            })
            .collect();
        items.extend(self.everywhere.chunks(self.block).map(Item::List));
        items
    }
}

/// A work item of a try: a part of a column, or a list of positions.
#[derive(Clone, Copy)]
enum Item<'a> {
    Part {
        bytes: &'a [u8],
        first: usize,
        count: usize,
    },
    List(&'a [u32]),
}

impl Item<'_> {
    /// Calls `f` on each of its positions, in increasing order.
    #[inline(always)]
    fn each(self, mut f: impl FnMut(usize)) {
        match self {
            Item::Part {
                bytes,
                first,
                count,
            } => positions(bytes, first, count).for_each(f),
            Item::List(list) => list.iter().for_each(|&i| f(i as usize)),
        }
    }
}

/// Every position's evaluation and data loss at the current weights of an [`Objective`]'s
/// set, kept up to date one column at a time; see the module documentation.
#[derive(Clone, Debug)]
pub struct Kept<'a> {
    objective: &'a Objective,
    q: Vec<f64>,
    loss: Vec<f64>,
}

/// A try of one weight's new value: the change of the summed data loss over the positions it
/// changes, and their new evaluations and losses for [`Kept::keep`].
#[derive(Clone, Debug)]
pub struct Try {
    /// The weight tried.
    weight: usize,
    /// Sum over the column of (new loss - kept loss): below 0, the move lowers the data loss.
    pub change: f64,
    /// Positions evaluated.
    pub evaluated: usize,
    /// Per work item, its positions' new (evaluation, loss), in order.
    new: Vec<Vec<(f64, f64)>>,
}

impl<'a> Kept<'a> {
    /// Every position of `objective`'s set evaluated at the full weights `w` (one pass, not
    /// counted in [`Objective::passes`]).
    pub fn new(objective: &'a Objective, w: &[f64]) -> Kept<'a> {
        let set = objective.set();
        let mut q = vec![0.0; set.len()];
        set.scores(w, &mut q);
        let link = objective.cfg.link;
        let t = objective.targets();
        let loss = q
            .par_iter()
            .zip(t)
            .map(|(&q, &t)| link.loss_value(q, t))
            .collect();
        Kept { objective, q, loss }
    }

    /// The kept evaluations.
    pub fn scores(&self) -> &[f64] {
        &self.q
    }

    /// The kept data losses' sum (in position order).
    pub fn loss_sum(&self) -> f64 {
        self.loss.iter().sum()
    }

    /// Weight `j` at the value `w[j]` holds, the others as kept (`w` the full weights the
    /// kept evaluations were made at, but for `j`): the positions of `j`'s column scored
    /// afresh, in parallel, with the change of their summed loss. Nothing is kept until
    /// [`keep`](Self::keep).
    pub fn try_weight(&self, columns: &Columns, w: &[f64], j: usize) -> Try {
        let set = self.objective.set();
        let link = self.objective.cfg.link;
        let t = self.objective.targets();
        let items = columns.items(j);
        let done: Vec<(f64, Vec<(f64, f64)>)> = items
            .par_iter()
            .map_init(Scratch::default, |scratch, item| {
                let (mut change, mut new) = (0.0, Vec::new());
                item.each(|i| {
                    let q = set.score(i, w, scratch);
                    let l = link.loss_value(q, t[i]);
                    change += l - self.loss[i];
                    new.push((q, l));
                });
                (change, new)
            })
            .collect();
        let mut out = Try {
            weight: j,
            change: 0.0,
            evaluated: 0,
            new: Vec::with_capacity(done.len()),
        };
        for (change, new) in done {
            out.change += change;
            out.evaluated += new.len();
            out.new.push(new);
        }
        out
    }

    /// Keeps a try (made at the current kept state): its positions' evaluations and losses
    /// become the kept ones.
    pub fn keep(&mut self, columns: &Columns, tried: Try) {
        for (item, new) in columns.items(tried.weight).into_iter().zip(tried.new) {
            let mut new = new.into_iter();
            item.each(|i| {
                if let Some((q, l)) = new.next() {
                    self.q[i] = q;
                    self.loss[i] = l;
                }
            });
        }
    }
}

#[cfg(test)]
mod tests;
