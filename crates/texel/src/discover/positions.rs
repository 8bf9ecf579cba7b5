//! The positions `tune discover` fits on, kept compactly (about 48 bytes each): the packed board
//! (a group's counts are computed from it when needed), the base score, the result, the game
//! and the taper; loaded from gradtune's own models on data files or from an engine's traces.

use std::path::PathBuf;

use data::{PackedBoard, Sample};
use eval::Model;
use rayon::prelude::*;
use shakmaty::Chess;
use tapered::Stop;
use trace::{Manifest, ReadOptions, Trace, TraceStream};

use crate::TexelError;

/// Positions, column by column.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Positions {
    /// The boards.
    pub boards: Vec<PackedBoard>,
    /// The base score: the model's evaluation, White's view, in its own units.
    pub base: Vec<f64>,
    /// The result, White's view, `0..=1`.
    pub result: Vec<f32>,
    /// The game id.
    pub game: Vec<u32>,
    /// The middlegame's share ([`eval::catalogue::taper`]).
    pub rho: Vec<f32>,
}

/// One position's columns.
type Row = (PackedBoard, f64, f32, u32, f32);

impl Positions {
    /// The number of positions.
    pub fn len(&self) -> usize {
        self.base.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.base.is_empty()
    }

    fn push(&mut self, r: Row) {
        self.boards.push(r.0);
        self.base.push(r.1);
        self.result.push(r.2);
        self.game.push(r.3);
        self.rho.push(r.4);
    }

    /// The positions at `keep` (in that order).
    pub fn select(&self, keep: &[usize]) -> Positions {
        let mut out = Positions::default();
        for &i in keep {
            out.push((
                self.boards[i],
                self.base[i],
                self.result[i],
                self.game[i],
                self.rho[i],
            ));
        }
        out
    }

    /// Splits by game as the tuning runs do ([`data::valid_games`], same fraction and seed):
    /// `(training, held out)`, each in the input order.
    pub fn split(&self, valid_fraction: f64, seed: u64) -> (Positions, Positions) {
        let valid = data::valid_games(self.game.clone(), valid_fraction, seed);
        let (v, t): (Vec<usize>, Vec<usize>) =
            (0..self.len()).partition(|&i| valid.binary_search(&self.game[i]).is_ok());
        (self.select(&t), self.select(&v))
    }

    /// The number of distinct games.
    pub fn games(&self) -> usize {
        let mut g = self.game.clone();
        g.sort_unstable();
        g.dedup();
        g.len()
    }
}

/// A position's columns, from its board and base score.
fn row(board: PackedBoard, pos: &Chess, base: f64, result: f64, game: u32) -> Row {
    let rho = eval::catalogue::taper(pos) as f32;
    (board, base, result as f32, game, rho)
}

/// gradtune's own `model` at weights `w` on `samples` (its static evaluation, White's view);
/// samples whose board does not decode are left out (the second value counts them).
pub fn from_samples(model: &Model, w: &[f64], samples: &[Sample]) -> (Positions, usize) {
    let rows: Vec<Option<Row>> = samples
        .par_iter()
        .map(|s| {
            let pos = s.position().ok()?;
            let q = model.evaluate_f64(&pos, w);
            Some(row(s.board, &pos, q, s.result, s.game))
        })
        .collect();
    collect(rows)
}

/// Keeps the rows that are there; counts the others.
fn collect(rows: Vec<Option<Row>>) -> (Positions, usize) {
    let mut out = Positions::default();
    let mut skipped = 0;
    for r in rows {
        match r {
            Some(r) => out.push(r),
            None => skipped += 1,
        }
    }
    (out, skipped)
}

/// One trace's columns: its board and the traced model's evaluation at `w`
/// ([`Manifest::evaluate_real`], what a tuning run fits), White's view.
fn trace_row(m: &Manifest, w: &[f64], t: &Trace) -> Option<Row> {
    let pos = t.position().ok()?;
    let q = m.evaluate_real::<f64>(t, w).ok()?;
    q.is_finite()
        .then(|| row(t.board, &pos, q, t.result, t.game))
}

/// An engine's traced model at the manifest's values on its trace `files`, read a batch at a
/// time (only the compact columns are kept), asking `stop` between batches. Returns the
/// positions, the traces left out (board or evaluation failed) and the reader's report.
pub fn from_traces(
    manifest: &Manifest,
    files: &[PathBuf],
    strict: bool,
    stop: Stop,
) -> Result<(Positions, usize, trace::ReadReport), TexelError> {
    let w = manifest.initial_weights();
    let mut stream = TraceStream::open(files, manifest, ReadOptions { strict });
    let mut batch = Vec::new();
    let mut out = Positions::default();
    let mut skipped = 0;
    while stream.next_batch(1 << 16, &mut batch)? > 0 {
        if stop.now() {
            return Err(TexelError::Interrupted);
        }
        let rows: Vec<Option<Row>> = batch
            .par_iter()
            .map(|t| trace_row(manifest, &w, t))
            .collect();
        let (p, s) = collect(rows);
        skipped += s;
        for i in 0..p.len() {
            out.push((p.boards[i], p.base[i], p.result[i], p.game[i], p.rho[i]));
        }
        batch.clear();
    }
    Ok((out, skipped, stream.into_report()))
}
