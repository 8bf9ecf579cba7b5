//! On every node the search visits from positions of real games (TCEC, the repository's
//! fixture), the engine's static evaluation (`Model::evaluate_f64`, behind `ModelEvaluator`)
//! equals the tuner's `Model::evaluate::<f64>` bit for bit, for both models; and the engine's
//! search finds the same moves, scores, PVs and node counts as with the reference path (a full
//! `Model::evaluate` per node, `eval::quiesce_window` at the leaves).

use std::fs::File;
use std::io::BufReader;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::common;

use engine::{Evaluator, ModelEvaluator, Quiet, SearchLimits, Searcher};
use eval::{Model, ModelKind};
use pgn_reader::{Reader, SanPlus, Visitor};
use shakmaty::{Chess, Position};

/// Every 12th position from ply 8 on of the first games of the TCEC fixture.
fn tcec_positions(max: usize) -> Vec<Chess> {
    struct Sampler;
    impl Visitor for Sampler {
        type Tags = ();
        type Movetext = (Chess, usize, Vec<Chess>);
        type Output = Vec<Chess>;
        fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
            ControlFlow::Continue(())
        }
        fn begin_movetext(&mut self, _: ()) -> ControlFlow<Self::Output, Self::Movetext> {
            ControlFlow::Continue((Chess::default(), 0, Vec::new()))
        }
        fn san(&mut self, mt: &mut Self::Movetext, san: SanPlus) -> ControlFlow<Self::Output> {
            let (pos, ply, out) = mt;
            let m = san.san.to_move(pos).expect("legal move in the TCEC games");
            pos.play_unchecked(m);
            *ply += 1;
            if *ply >= 8 && *ply % 12 == 8 {
                out.push(pos.clone());
            }
            ControlFlow::Continue(())
        }
        fn end_game(&mut self, mt: Self::Movetext) -> Self::Output {
            mt.2
        }
    }
    let path = common::fixture("tcec-standard-300.pgn.zst");
    let file = File::open(&path).unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
    let mut reader = Reader::new(zstd::Decoder::new(BufReader::new(file)).unwrap());
    let mut out = Vec::new();
    while out.len() < max {
        match reader.read_game(&mut Sampler) {
            Ok(Some(positions)) => out.extend(positions),
            Ok(None) => break,
            Err(e) => panic!("cannot read {}: {e}", path.display()),
        }
    }
    out.truncate(max);
    assert_eq!(out.len(), max, "too few TCEC positions");
    out
}

/// The model's default weights plus a fixed, irregular perturbation.
fn weights(model: &Model) -> Vec<f64> {
    let w = model.default_weights();
    w.iter()
        .enumerate()
        .map(|(i, &x)| x + ((i * 29) % 17) as f64 * 2.3 - 19.0)
        .collect()
}

/// The engine's evaluator, checking every static evaluation against `Model::evaluate`.
struct Checked {
    fast: ModelEvaluator,
    evaluations: AtomicU64,
}

impl Evaluator for Checked {
    fn evaluate(&self, pos: &Chess) -> f64 {
        let fast = self.fast.evaluate(pos);
        let reference: f64 = self.fast.model().evaluate(pos, self.fast.weights());
        assert_eq!(
            fast.to_bits(),
            reference.to_bits(),
            "{}: fast {fast} != reference {reference} at {}",
            self.fast.model().kind(),
            shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal)
        );
        self.evaluations.fetch_add(1, Ordering::Relaxed);
        fast
    }

    fn quiesce(&self, pos: &Chess, alpha: f64, beta: f64) -> Quiet {
        // The engine's leaf search, with every stand-pat evaluation checked.
        let q = eval::quiesce_score(pos, alpha, beta, |p| self.evaluate(p));
        Quiet {
            score: q.score,
            nodes: q.nodes,
        }
    }
}

/// The path before the speed work: a full evaluation per node, `quiesce_window` at the leaves.
struct Reference {
    model: Model,
    w: Vec<f64>,
}

impl Evaluator for Reference {
    fn evaluate(&self, pos: &Chess) -> f64 {
        self.model.evaluate(pos, &self.w)
    }

    fn quiesce(&self, pos: &Chess, alpha: f64, beta: f64) -> Quiet {
        let q = eval::quiesce_window(&self.model, pos, &self.w, alpha, beta);
        Quiet {
            score: q.score,
            nodes: q.nodes,
        }
    }
}

fn check_model(kind: ModelKind, positions: &[Chess]) {
    let model = Model::new(kind);
    let w = weights(&model);
    let checked = Checked {
        fast: ModelEvaluator::new(model.clone(), w.clone()).unwrap(),
        evaluations: AtomicU64::new(0),
    };
    let reference = Reference { model, w };
    let limits = SearchLimits::nodes(3_000);
    let mut fast_search = Searcher::new(&checked, 1);
    let mut reference_search = Searcher::new(&reference, 1);
    let mut nodes = 0;
    for pos in positions {
        let a = fast_search.search(pos, &[], &limits);
        let b = reference_search.search(pos, &[], &limits);
        assert_eq!(
            (a.best_move, a.score, a.depth, a.nodes, &a.pv),
            (b.best_move, b.score, b.depth, b.nodes, &b.pv),
            "{kind}: searches differ"
        );
        nodes += a.nodes;
    }
    let evaluations = checked.evaluations.load(Ordering::Relaxed);
    assert!(
        evaluations > nodes / 2,
        "{kind}: only {evaluations} evaluations checked in {nodes} nodes"
    );
}

#[test]
fn fast_evaluation_equals_the_model_on_every_node_psqt() {
    check_model(ModelKind::Psqt, &tcec_positions(60));
}

#[test]
fn fast_evaluation_equals_the_model_on_every_node_full() {
    check_model(ModelKind::Full, &tcec_positions(60));
}
