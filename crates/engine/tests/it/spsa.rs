//! SPSA's chess side: the basis over a model's weights, the pairing of an iteration's games,
//! resumption (a resumed run plays the same games and ends at the same point as one that ran
//! through) and interruption.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::sync::Mutex;

use engine::play::openings::RandomOpenings;
use engine::play::options::PlayOptions;
use engine::spsa::{
    comparison, run_spsa, Basis, BasisKind, Gains, OpeningSource, Spsa, SpsaEnd, SpsaEvent,
    SpsaPlan, SpsaState, Subject, SCALE_C,
};
use engine::ModelEvaluator;

fn psqt_start() -> ModelEvaluator {
    ModelEvaluator::default_material()
}

#[test]
fn the_tables_basis_of_a_model() {
    let subject = Subject::Model(psqt_start());
    let t = subject.tunables();
    let basis = Basis::new(BasisKind::Tables, &t, 5.0, true);
    let names: Vec<&str> = basis.directions.iter().map(|d| d.name.as_str()).collect();
    // 10 piece values, a rank slope and a centre for each of 12 tables, the scale.
    assert_eq!(basis.len(), 10 + 24 + 1, "{names:?}");
    for want in [
        "material.knight.mg",
        "pst.knight.mg:rank",
        "pst.king.eg:centre",
        "scale",
    ] {
        assert!(names.contains(&want), "{want} in {names:?}");
    }
    // At the origin the weights are the start.
    let x0 = vec![0.0; basis.len()];
    let start: Vec<f64> = t.iter().map(|t| t.start).collect();
    assert_eq!(basis.weights(&t, &x0), start);
    // Ten along the knights' middlegame rank slope: +10 on rank 8, -10 on rank 1, nothing
    // to the endgame table.
    let j = names
        .iter()
        .position(|n| *n == "pst.knight.mg:rank")
        .unwrap();
    let mut x = x0.clone();
    x[j] = 10.0;
    let w = basis.weights(&t, &x);
    let at = |n: &str| subject_index(&t, n);
    assert!((w[at("pst.knight.mg.a8")] - 10.0).abs() < 1e-12);
    assert!((w[at("pst.knight.mg.h1")] + 10.0).abs() < 1e-12);
    assert_eq!(w[at("pst.knight.eg.a8")], 0.0);
    // The centre: d4 up, a1 down.
    let j = names
        .iter()
        .position(|n| *n == "pst.knight.mg:centre")
        .unwrap();
    let mut x = x0.clone();
    x[j] = 3.0;
    let w = basis.weights(&t, &x);
    assert!((w[at("pst.knight.mg.d4")] - 3.0).abs() < 1e-12);
    assert!((w[at("pst.knight.mg.a1")] + 3.0).abs() < 1e-12);
    // The scale: 10 units is 10% of every whole-number weight, the phase weights untouched.
    let s = basis.directions.iter().find(|d| d.name == "scale").unwrap();
    assert_eq!(s.c, SCALE_C);
    let mut x = x0.clone();
    x[basis.len() - 1] = 10.0;
    let w = basis.weights(&t, &x);
    let rook = at("material.rook.mg");
    assert!((w[rook] - start[rook] * 1.1).abs() < 1e-9);
    // One per parameter: as many coordinates as parameters, each its own.
    let each = Basis::new(BasisKind::Each, &t, 5.0, false);
    assert_eq!(each.len(), t.len());
    assert!(each
        .directions
        .iter()
        .enumerate()
        .all(|(i, d)| d.entries == [(i, 1.0)]));
}

fn subject_index(t: &[engine::spsa::Tunable], name: &str) -> usize {
    t.iter()
        .position(|t| t.name == name)
        .unwrap_or_else(|| panic!("{name}"))
}

#[test]
fn weights_stay_within_the_parameters_bounds() {
    let mut t = Subject::Model(psqt_start()).tunables();
    let q = subject_index(&t, "material.queen.mg");
    t[q].upper = 1000.0;
    let basis = Basis::new(BasisKind::Each, &t, 5.0, false);
    let mut x = vec![0.0; basis.len()];
    x[q] = 500.0;
    assert_eq!(basis.weights(&t, &x)[q], 1000.0);
}

fn plan(iterations: u64, pairs: usize) -> SpsaPlan {
    let subject = Subject::Model(psqt_start());
    let t = subject.tunables();
    let mut basis = Basis::new(BasisKind::Tables, &t, 20.0, true);
    basis.directions.retain(|d| d.name.starts_with("material"));
    let scales = basis.directions.iter().map(|d| d.c).collect();
    SpsaPlan {
        spsa: Spsa::new(Gains::for_iterations(iterations), scales, 5).unwrap(),
        basis,
        iterations,
        pairs,
        openings: OpeningSource::Random(RandomOpenings {
            seed: 3,
            ..RandomOpenings::default()
        }),
        options: PlayOptions::default().nodes(300),
    }
}

#[test]
fn an_iteration_plays_each_opening_with_both_colours() {
    let subject = Subject::Model(psqt_start());
    let plan = plan(1, 3);
    let mut state = SpsaState::new(vec![0.0; plan.basis.len()]);
    let results = Mutex::new(Vec::new());
    let on_event = |e: SpsaEvent<'_>| {
        if let SpsaEvent::Iteration { result, .. } = e {
            results.lock().unwrap().push(result.clone());
        }
    };
    let mut saved = Vec::new();
    let end = run_spsa(&subject, &plan, &mut state, &on_event, &mut |s| {
        saved.push(s.clone());
        Ok(())
    })
    .unwrap();
    assert_eq!(end, SpsaEnd::Done);
    let results = results.into_inner().unwrap();
    let r = &results[0];
    assert_eq!(r.games.len(), 6);
    for (i, pair) in r.games.chunks(2).enumerate() {
        assert_eq!((pair[0].opening, pair[1].opening), (i, i));
        assert!(
            pair[0].a_white && !pair[1].a_white,
            "colours swapped within a pair"
        );
    }
    assert_eq!(r.pairs.iter().sum::<u64>(), 3);
    // The step used the games' score: (wins - losses) / games.
    assert_eq!(state.results, [comparison(r)]);
    assert_eq!(saved, [state.clone()]);
}

#[test]
fn a_resumed_run_equals_an_uninterrupted_one() {
    let subject = Subject::Model(psqt_start());
    let run = |plan: &SpsaPlan, state: &mut SpsaState| {
        run_spsa(&subject, plan, state, &|_| {}, &mut |_| Ok(())).unwrap()
    };
    let whole_plan = plan(4, 1);
    let mut whole = SpsaState::new(vec![0.0; whole_plan.basis.len()]);
    assert_eq!(run(&whole_plan, &mut whole), SpsaEnd::Done);
    // The same run stopped after two iterations (its checkpoint kept), then resumed.
    let mut first = SpsaState::new(vec![0.0; whole_plan.basis.len()]);
    let mut half = whole_plan.clone();
    half.iterations = 2;
    run(&half, &mut first);
    let text = serde_json::to_string(&first).unwrap();
    let mut resumed: SpsaState = serde_json::from_str(&text).unwrap();
    assert_eq!(run(&whole_plan, &mut resumed), SpsaEnd::Done);
    assert_eq!(resumed, whole);
    assert_eq!(whole.iteration, 4);
    // The games decided something: not every iteration a tie, so the point moved.
    assert!(whole.x.iter().any(|&x| x != 0.0), "{whole:?}");
}

#[test]
fn a_stop_drops_the_iteration_under_way() {
    let subject = Subject::Model(psqt_start());
    let stop = Arc::new(AtomicBool::new(false));
    let mut plan = plan(3, 2);
    plan.options = plan.options.interrupt(stop.clone());
    let mut state = SpsaState::new(vec![0.0; plan.basis.len()]);
    // Stop at the first finished game: the iteration is dropped, nothing saved.
    let on_event = |e: SpsaEvent<'_>| {
        if let SpsaEvent::Game(_) = e {
            stop.store(true, Ordering::Relaxed);
        }
    };
    let mut saves = 0;
    let end = run_spsa(&subject, &plan, &mut state, &on_event, &mut |_| {
        saves += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(end, SpsaEnd::Interrupted);
    assert_eq!(saves, 0);
    assert_eq!(state, SpsaState::new(vec![0.0; plan.basis.len()]));
}

#[test]
fn mismatched_plans_are_errors() {
    let subject = Subject::Model(psqt_start());
    let plan = plan(1, 1);
    let mut state = SpsaState::new(vec![0.0; plan.basis.len() + 1]);
    let e = run_spsa(&subject, &plan, &mut state, &|_| {}, &mut |_| Ok(())).unwrap_err();
    assert!(e.to_string().contains("coordinates"), "{e}");
}

#[test]
fn an_engines_tables_by_its_option_names() {
    use engine::spsa::Tunable;
    // A traced engine's options: `pst_2_35_mg` (a table row indexed 0..63), `material_1_mg`,
    // `ks_weight_3` (a series of eight).
    let mut names: Vec<String> = (0..6).map(|p| format!("material_{p}_mg")).collect();
    names.extend((0..64).map(|sq| format!("pst_2_{sq}_mg")));
    names.extend((0..8).map(|i| format!("ks_weight_{i}")));
    let t: Vec<Tunable> = names.iter().map(|n| Tunable::unbounded(n, 0.0)).collect();
    let basis = Basis::new(BasisKind::Tables, &t, 20.0, false);
    let got: Vec<&str> = basis.directions.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        got,
        [
            "material_0_mg",
            "material_1_mg",
            "material_2_mg",
            "material_3_mg",
            "material_4_mg",
            "material_5_mg",
            "pst_2_mg:rank",
            "pst_2_mg:centre",
            "ks_weight:offset",
            "ks_weight:slope",
        ]
    );
    // Square 0 and 63 at the two ends of the rank slope, 27 (d4) and 36 (e5) in the centre.
    let rank = &basis.directions[6];
    let amount = |d: &engine::spsa::Direction, sq: usize| {
        d.entries
            .iter()
            .find(|e| e.0 == 6 + sq)
            .map_or(0.0, |e| e.1)
    };
    assert_eq!((amount(rank, 0), amount(rank, 63)), (-1.0, 1.0));
    let centre = &basis.directions[7];
    assert_eq!((amount(centre, 27), amount(centre, 36)), (1.0, 1.0));
    assert_eq!(amount(centre, 0), -1.0);
}
