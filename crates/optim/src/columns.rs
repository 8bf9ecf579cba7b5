//! An objective evaluated by what changes: [`Columns`], the index of the positions each weight
//! changes (built once from the set, [`CompiledSet::reads`] and
//! [`CompiledSet::tapered_terms`]), and [`Kept`], the weights and every position's evaluation,
//! so that moving one weight re-evaluates only its column ([`Kept::try_weight`]) and
//! keeping the move updates only those positions ([`Kept::keep`]). What the integer polish
//! after rounding (`texel::finish`) is made of: a sweep of tries costs about one pass in all,
//! not one pass a try.
//!
//! **Two kinds of entries.** A linear row of the phased store, `c + sum_k s_k (a w[m_k] + b
//! w[e_k])`, moves by `d s_k a` when `w[m_k]` moves by `d` (`d s_k b` for `w[e_k]`, `d s_k (a
//! + b)` for a single): its entry in the column holds `s_k` (a small integer) and the row's
//! factors are kept once a row, so a try moves its kept evaluation without reading the row.
//! Any other position's entry is its number alone, and a try scores it afresh with
//! [`CompiledSet::score`] (a head store replays its head; the cost is the position's).
//!
//! **Exact.** A position outside a weight's column does not read the weight, so its score is
//! the same whatever the weight ([`CompiledSet::reads`]). A position scored afresh gets the
//! bits [`CompiledSet::scores`] gives; a linear row's kept evaluation moves by the step times
//! its coefficient, the score's value up to the rounding of that addition. A try's loss change
//! is the sum of its positions' changes: the decision of comparing two passes' losses, up to
//! the order of the sum (and those roundings).
//!
//! **Compact.** A column lists its positions in increasing order, as the gaps between them in
//! LEB128 (one byte for a gap below 128), a linear entry followed by its coefficient (one
//! byte), cut into *parts*, one per block of positions and kind of entry, which a try
//! evaluates in parallel. The two weights of a tapered element (a `.mg` and its `.eg` twin)
//! are read by the same positions in every store, so they share one column (the union of
//! theirs). Positions whose store cannot tell what they read are in every column
//! ([`Columns::everywhere`]). About 2 bytes a (position, pair) for a linear manifest (4ku's
//! 1,000,000 positions of 31 pairs each: about 65 MB), and 2 a position for the factors.

use std::collections::HashMap;

use rayon::prelude::*;
use tape::Scratch;
use tapered::{CompiledSet, Stop};

use crate::objective::Objective;

/// No column: a weight outside the index.
const NONE: u32 = u32::MAX;

/// The fewest positions a block (a part of a column; a work item of a try).
const MIN_BLOCK: usize = 1 << 12;

/// The most positions a block (a block's factors are numbered by a `u16`).
const MAX_BLOCK: usize = 1 << 16;

/// The fewest positions a try evaluates in parallel.
const PARALLEL: usize = 1 << 17;

/// The most blocks built at a time (each holds its columns' entries until they are appended,
/// about 4 bytes a (position, column) while it is built): two a thread, at most this many.
const WAVE: usize = 16;

/// How a linear row's evaluation moves with a weight: by its middlegame factor `a`, its
/// endgame factor `b`, or both (a single).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// No linear row reads the weight.
    None,
    Mg,
    Eg,
    Single,
    /// Read both ways: its linear rows are scored afresh (never with a consistent pairing).
    Mixed,
}

impl Role {
    /// `self` having seen the weight read as `other`.
    fn and(self, other: Role) -> Role {
        match self {
            Role::None => other,
            r if r == other => r,
            _ => Role::Mixed,
        }
    }
}

/// The positions each weight changes; see the module documentation.
#[derive(Clone, Debug, Default)]
pub struct Columns {
    /// Per weight of the set, its column (`NONE`: not indexed).
    col_of: Vec<u32>,
    /// Per weight, how linear rows read it.
    role: Vec<Role>,
    /// Column `c`'s parts are `parts[col_parts[c]..col_parts[c + 1]]`.
    col_parts: Vec<usize>,
    parts: Vec<Part>,
    /// Column `c` holds `entries[c]` positions.
    entries: Vec<usize>,
    /// Positions in every column (their store cannot tell what they read), ascending.
    everywhere: Vec<u32>,
    /// Per block, the distinct `[a, b]` factors of its linear rows; per position, its number
    /// among its block's (0 for the others).
    factors: Vec<Vec<[f64; 2]>>,
    factor_of: Vec<u16>,
    /// Positions a block.
    block: usize,
    /// Positions of the set.
    len: usize,
    /// The fewest positions a try evaluates in parallel ([`PARALLEL`]).
    parallel: usize,
}

/// A column's positions in one block, of one kind: `count` entries in `bytes`, the first gap
/// from the block's first position; `unit` above 0: linear entries, each a gap and a
/// coefficient in units of `unit` (see [`Entries::finish`]). Each part owns its bytes, so
/// that laying the parts out by column moves no byte.
#[derive(Clone, Debug)]
struct Part {
    block: u32,
    count: u32,
    unit: u8,
    bytes: Box<[u8]>,
}

/// The first byte of a linear entry whose gap and coefficient do not fit one byte: the gap
/// (LEB128) and the coefficient (`i8`) follow.
const ESCAPE: u8 = 0xf0;

/// A block's columns while it is built: each column's bytes, count and next position, for
/// its linear and its other entries; its factors, roles seen and positions in every column.
struct BlockCols {
    linear: Vec<Entries>,
    other: Vec<Entries>,
    factors: Vec<[f64; 2]>,
    factor_of: Vec<u16>,
    roles: Vec<(u32, Role)>,
    everywhere: Vec<u32>,
}

impl BlockCols {
    /// Position `i`'s marks (column, linear coefficient) as entries of its block (starting at
    /// `first`): a pair's two weights in one column give one entry; anything else twice in a
    /// column (a pairing other than the rows') is scored afresh. Sorts `marks`.
    fn push_marks(&mut self, first: u32, i: u32, marks: &mut Marks) {
        marks.sort_unstable_by_key(|m| m.0);
        let mut k = 0;
        while k < marks.len() {
            let c = marks[k].0;
            let run = marks[k..].iter().take_while(|m| m.0 == c).count();
            let same = marks[k..k + run].iter().all(|m| m.1 == marks[k].1);
            let linear = if run <= 2 && same { marks[k].1 } else { None };
            let to = if linear.is_some() {
                &mut self.linear[c as usize]
            } else {
                &mut self.other[c as usize]
            };
            to.push(first, i, linear);
            k += run;
        }
    }
}

/// One column's entries of one kind in a block: the other kind's bytes as they come, the
/// linear kind's (gap, coefficient) until [`finish`](Self::finish) encodes them.
#[derive(Clone, Default)]
struct Entries {
    bytes: Vec<u8>,
    /// (gap, coefficient): a gap within a block fits 16 bits ([`MAX_BLOCK`]).
    pending: Vec<(u16, i8)>,
    count: u32,
    next: u32,
}

impl Entries {
    /// Appends position `i` (after the last one appended, or at or after the block's first
    /// position `first` for the first), with its coefficient `s` for a linear entry.
    fn push(&mut self, first: u32, i: u32, s: Option<i8>) {
        let from = if self.count == 0 { first } else { self.next };
        match s {
            // `from` and `i` lie in one block of at most `MAX_BLOCK` positions.
            Some(s) => self.pending.push(((i - from) as u16, s)),
            None => put(&mut self.bytes, i - from),
        }
        self.next = i + 1;
        self.count += 1;
    }

    /// The bytes and the unit of the entries. A linear entry is one byte where its gap is at
    /// most 14 and its coefficient `-8..=7` times the unit (the largest common divisor of the
    /// part's coefficients: 8 for 4ku's rank and file tables): the gap in the high nibble,
    /// the coefficient in units plus 8 in the low one; else [`ESCAPE`], the gap (LEB128) and
    /// the coefficient (`i8`). About a byte a linear entry in dense columns. Unit 0 for the
    /// other kind.
    fn finish(mut self) -> (Vec<u8>, u8) {
        if self.pending.is_empty() {
            return (self.bytes, 0);
        }
        let unit = self
            .pending
            .iter()
            .fold(0u32, |g, &(_, s)| gcd(g, u32::from(s.unsigned_abs())))
            .max(1);
        for &(gap, s) in &self.pending {
            let q = i32::from(s) / unit as i32;
            if gap <= 14 && (-8..=7).contains(&q) {
                self.bytes.push(((gap as u8) << 4) | (q + 8) as u8);
            } else {
                self.bytes.push(ESCAPE);
                put(&mut self.bytes, u32::from(gap));
                self.bytes.push(s as u8);
            }
        }
        (self.bytes, unit as u8)
    }
}

/// The largest common divisor.
fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
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

/// A LEB128 number at `bytes[*at..]`, `*at` moved past it.
#[inline(always)]
fn get(bytes: &[u8], at: &mut usize) -> usize {
    let mut v = 0usize;
    let mut shift = 0;
    loop {
        let b = bytes[*at];
        *at += 1;
        v |= usize::from(b & 0x7f) << shift;
        if b < 0x80 {
            return v;
        }
        shift += 7;
    }
}

/// A coefficient that a linear entry can hold: a whole number in `i8`'s range.
fn small(s: f64) -> Option<i8> {
    (s.fract() == 0.0 && (-128.0..=127.0).contains(&s)).then_some(s as i8)
}

/// A position's entries while a block is built: (column, coefficient if linear).
type Marks = Vec<(u32, Option<i8>)>;

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
        let block = (set.len() / 256).clamp(MIN_BLOCK, MAX_BLOCK);
        Columns::build_in_blocks(set, weights, twins, stop, block, true)
    }

    /// [`build`](Self::build) with `block` positions a block; `linear`: linear rows get linear
    /// entries (else every entry is scored afresh).
    fn build_in_blocks(
        set: &CompiledSet,
        weights: &[usize],
        twins: &[Option<usize>],
        stop: Stop<'_>,
        block: usize,
        linear: bool,
    ) -> Option<Columns> {
        let n = set.params();
        let (col_of, members) = column_members(n, weights, twins);
        let cols = members.len();
        let len = set.len();
        let block = block.clamp(1, MAX_BLOCK);
        let blocks = len.div_ceil(block);
        let mut out = Columns {
            col_of,
            role: vec![Role::None; n],
            col_parts: Vec::new(),
            parts: Vec::new(),
            entries: vec![0; cols],
            everywhere: Vec::new(),
            factors: Vec::with_capacity(blocks),
            factor_of: Vec::with_capacity(len),
            block,
            len,
            parallel: PARALLEL,
        };
        // Parts by column as the blocks come in, then laid out column by column.
        let mut by_col: Vec<Vec<Part>> = vec![Vec::new(); cols];
        let wave_len = (2 * rayon::current_num_threads()).clamp(2, WAVE);
        for wave in (0..blocks).step_by(wave_len) {
            let built: Vec<BlockCols> = (wave..(wave + wave_len).min(blocks))
                .into_par_iter()
                .map(|b| (!stop.now()).then(|| out.build_block(set, &members, b, linear)))
                .collect::<Option<_>>()?;
            for (k, bc) in built.into_iter().enumerate() {
                out.absorb((wave + k) as u32, bc, &mut by_col);
            }
        }
        if out.role.contains(&Role::Mixed) {
            // A weight read both ways by linear rows (no consistent pairing): every entry is
            // scored afresh instead, exact whatever the rows.
            return Columns::build_in_blocks(set, weights, twins, stop, block, false);
        }
        out.col_parts.push(0);
        for parts in by_col {
            out.parts.extend(parts);
            out.col_parts.push(out.parts.len());
        }
        Some(out)
    }

    /// Takes block `b`'s columns in: its factors and roles into the index, its parts into
    /// `by_col` (laid out column by column once every block is in).
    fn absorb(&mut self, b: u32, bc: BlockCols, by_col: &mut [Vec<Part>]) {
        self.everywhere.extend_from_slice(&bc.everywhere);
        self.factors.push(bc.factors);
        self.factor_of.extend_from_slice(&bc.factor_of);
        for (j, r) in bc.roles {
            self.role[j as usize] = self.role[j as usize].and(r);
        }
        let kinds = bc.linear.into_iter().zip(bc.other);
        for (c, (lin, other)) in kinds.enumerate() {
            for e in [lin, other].into_iter().filter(|e| e.count > 0) {
                self.entries[c] += e.count as usize;
                let count = e.count;
                let (bytes, unit) = e.finish();
                by_col[c].push(Part {
                    block: b,
                    count,
                    unit,
                    bytes: bytes.into_boxed_slice(),
                });
            }
        }
    }

    /// Block `b`'s columns (`members[c]`: column `c`'s weights), linear rows as linear entries
    /// if `linear`.
    fn build_block(
        &self,
        set: &CompiledSet,
        members: &[Vec<u32>],
        b: usize,
        linear: bool,
    ) -> BlockCols {
        let cols = members.len();
        let (first, end) = (b * self.block, ((b + 1) * self.block).min(self.len));
        let mut bc = BlockCols {
            linear: vec![Entries::default(); cols],
            other: vec![Entries::default(); cols],
            factors: Vec::new(),
            factor_of: Vec::with_capacity(end - first),
            roles: Vec::new(),
            everywhere: Vec::new(),
        };
        let mut numbers: HashMap<[u64; 2], u16> = HashMap::new();
        let mut seen: HashMap<u32, Role> = HashMap::new();
        let (mut terms, mut read, mut marks): (_, _, Marks) = (Vec::new(), Vec::new(), Vec::new());
        let col = |j: u32| self.col_of.get(j as usize).copied().unwrap_or(NONE);
        for i in first..end {
            marks.clear();
            terms.clear();
            let factors = if linear {
                set.tapered_terms(i, &mut terms)
            } else {
                None
            };
            if let Some(f) = factors {
                let next = bc.factors.len() as u16;
                let k = *numbers.entry(f.map(f64::to_bits)).or_insert(next);
                if k == next {
                    bc.factors.push(f);
                }
                bc.factor_of.push(k);
                mark_linear(&terms, members, &col, &mut seen, &mut marks);
            } else {
                bc.factor_of.push(0);
                read.clear();
                if !set.reads(i, &mut read) {
                    bc.everywhere.push(i as u32);
                    continue;
                }
                marks.extend(read.iter().map(|&j| (col(j), None)).filter(|m| m.0 != NONE));
            }
            bc.push_marks(first as u32, i as u32, &mut marks);
        }
        bc.roles = seen.into_iter().collect();
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

    /// Entries of weight `j`'s column whose evaluation moves without being scored afresh
    /// (linear rows of the phased store).
    pub fn linear_entries(&self, j: usize) -> usize {
        match self.col_of.get(j).copied() {
            Some(c) if c != NONE => {
                let parts = &self.parts[self.col_parts[c as usize]..self.col_parts[c as usize + 1]];
                parts
                    .iter()
                    .filter(|p| p.unit > 0)
                    .map(|p| p.count as usize)
                    .sum()
            }
            _ => 0,
        }
    }

    /// Bytes of heap memory held.
    pub fn heap_bytes(&self) -> usize {
        self.col_of.capacity() * 4
            + self.role.capacity()
            + self.col_parts.capacity() * std::mem::size_of::<usize>()
            + self.parts.capacity() * std::mem::size_of::<Part>()
            + self.entries.capacity() * std::mem::size_of::<usize>()
            + self.parts.iter().map(|p| p.bytes.len()).sum::<usize>()
            + self.everywhere.capacity() * 4
            + (self.factors.iter())
                .map(|f| f.capacity() * 16)
                .sum::<usize>()
            + self.factor_of.capacity() * 2
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
                bytes: &p.bytes,
                first: p.block as usize * self.block,
                count: p.count as usize,
                unit: p.unit,
                factors: &self.factors[p.block as usize],
            })
            .collect();
        items.extend(self.everywhere.chunks(self.block).map(Item::List));
        items
    }

    /// How a linear entry of weight `j` with coefficient `s` moves per unit of `j`, with the
    /// row's factors `f`.
    #[inline(always)]
    fn coefficient(&self, j: usize, s: f64, [a, b]: [f64; 2]) -> f64 {
        match self.role[j] {
            Role::Mg => s * a,
            Role::Eg => s * b,
            Role::Single => s * (a + b),
            // No linear entry reads such a weight (see `build_in_blocks`).
            Role::None | Role::Mixed => f64::NAN,
        }
    }
}

/// A work item of a try: a part of a column, or a list of positions.
#[derive(Clone, Copy)]
enum Item<'a> {
    /// `count` entries from `bytes`, the first gap from position `first`; linear entries in
    /// units of `unit` (above 0), `factors` the block's.
    Part {
        bytes: &'a [u8],
        first: usize,
        count: usize,
        unit: u8,
        factors: &'a [[f64; 2]],
    },
    List(&'a [u32]),
}

impl<'a> Item<'a> {
    /// Calls `f(i, s)` on each of its positions in increasing order, `s` a linear entry's
    /// coefficient (`None` for the others).
    #[inline(always)]
    fn each(self, mut f: impl FnMut(usize, Option<f64>)) {
        match self {
            Item::Part {
                bytes,
                first,
                count,
                unit: 0,
                ..
            } => {
                let (mut at, mut next) = (0, first);
                for _ in 0..count {
                    let i = next + get(bytes, &mut at);
                    next = i + 1;
                    f(i, None);
                }
            }
            Item::Part {
                bytes,
                first,
                count,
                unit,
                ..
            } => {
                let (mut at, mut next) = (0, first);
                for _ in 0..count {
                    let b = bytes[at];
                    at += 1;
                    let (gap, s) = if b < ESCAPE {
                        let q = i32::from(b & 0x0f) - 8;
                        (usize::from(b >> 4), f64::from(q * i32::from(unit)))
                    } else {
                        let gap = get(bytes, &mut at);
                        at += 1;
                        (gap, f64::from(bytes[at - 1] as i8))
                    };
                    let i = next + gap;
                    next = i + 1;
                    f(i, Some(s));
                }
            }
            Item::List(list) => list.iter().for_each(|&i| f(i as usize, None)),
        }
    }

    /// The block's factors (none for a list).
    fn factors(self) -> &'a [[f64; 2]] {
        match self {
            Item::Part { factors, .. } => factors,
            Item::List(_) => &[],
        }
    }
}

/// The weights and every position's evaluation of an [`Objective`]'s set, kept up to date one
/// column at a time; see the module documentation. A position's data loss is computed from its
/// kept evaluation when a try needs it (the same bits each time: no vector of losses is held,
/// 8 bytes a position less at the polish's peak).
#[derive(Clone, Debug)]
pub struct Kept<'a> {
    objective: &'a Objective,
    w: Vec<f64>,
    q: Vec<f64>,
}

/// A try of one weight's new value: the change of the summed data loss over the positions it
/// changes, and their new losses (and evaluations scored afresh) for [`Kept::keep`].
#[derive(Clone, Debug)]
pub struct Try {
    /// The weight tried, its value and its step from the kept one.
    weight: usize,
    value: f64,
    step: f64,
    /// Sum over the column of (new loss - kept loss): below 0, the move lowers the data loss.
    pub change: f64,
    /// Positions evaluated.
    pub evaluated: usize,
    /// Per work item, the evaluations of its positions scored afresh (a linear entry's is
    /// moved again by [`Kept::keep`], and every loss computed again from its evaluation: the
    /// same arithmetic, so nothing else is held a position).
    new: Vec<Vec<f64>>,
}

impl<'a> Kept<'a> {
    /// The full weights `w` and every position of `objective`'s set evaluated at them (one
    /// pass, not counted in [`Objective::passes`]).
    pub fn new(objective: &'a Objective, w: &[f64]) -> Kept<'a> {
        let set = objective.set();
        let mut q = vec![0.0; set.len()];
        set.scores(w, &mut q);
        Kept {
            objective,
            w: w.to_vec(),
            q,
        }
    }

    /// The weights kept.
    pub fn weights(&self) -> &[f64] {
        &self.w
    }

    /// The kept evaluations.
    pub fn scores(&self) -> &[f64] {
        &self.q
    }

    /// The kept data losses' sum (in position order).
    pub fn loss_sum(&self) -> f64 {
        let link = self.objective.cfg.link;
        let t = self.objective.targets();
        self.q
            .iter()
            .enumerate()
            .map(|(i, &q)| link.loss_value(q, t.at(i)))
            .sum()
    }

    /// Kept evaluation `i` moved by `step` of weight `j`, a linear entry's coefficient `s`
    /// in a block of `factors`.
    #[inline(always)]
    fn moved(
        &self,
        columns: &Columns,
        (j, step): (usize, f64),
        i: usize,
        s: f64,
        factors: &[[f64; 2]],
    ) -> f64 {
        let f = factors[usize::from(columns.factor_of[i])];
        self.q[i] + step * columns.coefficient(j, s, f)
    }

    /// Weight `j` at `value`, the others as kept: the positions of `j`'s column moved or
    /// scored afresh, in parallel, with the change of their summed loss. Nothing is kept
    /// until [`keep`](Self::keep).
    pub fn try_weight(&self, columns: &Columns, j: usize, value: f64) -> Try {
        let set = self.objective.set();
        let link = self.objective.cfg.link;
        let t = self.objective.targets();
        let step = value - self.w[j];
        let mut w = self.w.clone();
        w[j] = value;
        let items = columns.items(j);
        let one = |scratch: &mut Scratch, item: &Item<'_>| {
            let (mut change, mut evaluated, mut scores) = (0.0, 0, Vec::new());
            let factors = item.factors();
            item.each(|i, s| {
                let q = match s {
                    Some(s) => self.moved(columns, (j, step), i, s, factors),
                    None => {
                        let q = set.score(i, &w, scratch);
                        scores.push(q);
                        q
                    }
                };
                let t = t.at(i);
                change += link.loss_value(q, t) - link.loss_value(self.q[i], t);
                evaluated += 1;
            });
            (change, evaluated, scores)
        };
        // A small try in this thread: waking the pool for it costs more than it saves, and on
        // a busy machine each join waits for a worker's turn.
        let done: Vec<(f64, usize, Vec<f64>)> = if columns.entries(j) < columns.parallel {
            let mut scratch = Scratch::default();
            items.iter().map(|item| one(&mut scratch, item)).collect()
        } else {
            items.par_iter().map_init(Scratch::default, one).collect()
        };
        let mut out = Try {
            weight: j,
            value,
            step,
            change: 0.0,
            evaluated: 0,
            new: Vec::with_capacity(done.len()),
        };
        for (change, evaluated, scores) in done {
            out.change += change;
            out.evaluated += evaluated;
            out.new.push(scores);
        }
        out
    }

    /// Keeps a try (made at the current kept state): its weight's value and its positions'
    /// evaluations become the kept ones.
    pub fn keep(&mut self, columns: &Columns, tried: Try) {
        let (j, step) = (tried.weight, tried.step);
        for (item, scores) in columns.items(j).into_iter().zip(tried.new) {
            let mut scores = scores.into_iter();
            let factors = item.factors();
            item.each(|i, s| {
                let q = match s {
                    Some(s) => Some(self.moved(columns, (j, step), i, s, factors)),
                    None => scores.next(),
                };
                if let Some(q) = q {
                    self.q[i] = q;
                }
            });
        }
        self.w[j] = tried.value;
    }
}

#[cfg(test)]
mod tests;

/// Each weight's column (`NONE` outside the index) and each column's weights: a weight with
/// its twin (its pair's other half) where both are indexed.
fn column_members(
    n: usize,
    weights: &[usize],
    twins: &[Option<usize>],
) -> (Vec<u32>, Vec<Vec<u32>>) {
    let mut col_of = vec![NONE; n];
    let mut members: Vec<Vec<u32>> = Vec::new();
    for &j in weights.iter().filter(|&&j| j < n) {
        if col_of[j] != NONE {
            continue;
        }
        col_of[j] = members.len() as u32;
        let mut mine = vec![j as u32];
        let twin = twins.get(j).copied().flatten();
        if let Some(e) = twin.filter(|&e| e < n && col_of[e] == NONE && weights.contains(&e)) {
            col_of[e] = col_of[j];
            mine.push(e as u32);
        }
        members.push(mine);
    }
    (col_of, members)
}

/// A linear row's marks: each of its terms `(mg, eg, coefficient)` marks the columns of its
/// weights (a linear entry only where the column is this pair's alone), and records the role
/// each weight is read in (`seen`).
fn mark_linear(
    terms: &[(u32, u32, f64)],
    members: &[Vec<u32>],
    col: &dyn Fn(u32) -> u32,
    seen: &mut HashMap<u32, Role>,
    marks: &mut Marks,
) {
    for &(m, e, s) in terms {
        let roles = if m == e {
            [(m, Role::Single), (m, Role::Single)]
        } else {
            [(m, Role::Mg), (e, Role::Eg)]
        };
        for (j, r) in roles {
            let was = seen.entry(j).or_insert(Role::None);
            *was = was.and(r);
        }
        for c in [col(m), col(e)] {
            let own = |c: u32| members[c as usize].iter().all(|&j| j == m || j == e);
            if c != NONE {
                marks.push((c, small(s).filter(|_| own(c))));
            }
        }
    }
}
