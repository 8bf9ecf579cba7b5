//! SPSA: the gain schedules, the perturbations, the step, bounds, resumption and bad input.

use engine::spsa::{Gains, Spsa, SpsaError, SpsaState};

fn gains() -> Gains {
    Gains {
        a: 2.0,
        c: 3.0,
        big_a: 10.0,
        alpha: 0.602,
        gamma: 0.101,
    }
}

#[test]
fn schedules_follow_spall() {
    let g = gains();
    // a_k = a / (k + 1 + A)^alpha, c_k = c / (k + 1)^gamma, k from 0.
    assert!((g.a_k(0) - 2.0 / 11f64.powf(0.602)).abs() < 1e-15);
    assert!((g.a_k(89) - 2.0 / 100f64.powf(0.602)).abs() < 1e-15);
    assert_eq!(g.c_k(0), 3.0);
    assert!((g.c_k(99) - 3.0 / 100f64.powf(0.101)).abs() < 1e-15);
    // Both decrease.
    assert!(g.a_k(1000) < g.a_k(10) && g.c_k(1000) < g.c_k(10));
    let d = Gains::for_iterations(2000);
    assert_eq!((d.big_a, d.alpha, d.gamma, d.c), (200.0, 0.602, 0.101, 1.0));
    assert!((d.a_k(0) / (2.0 * d.c_k(0)) - Gains::FIRST_STEP).abs() < 1e-12);
    assert_eq!(Gains::for_iterations(3).big_a, 1.0);
}

#[test]
fn gains_out_of_range_are_named() {
    for (g, name) in [
        (Gains { a: 0.0, ..gains() }, "a"),
        (
            Gains {
                c: f64::NAN,
                ..gains()
            },
            "c",
        ),
        (
            Gains {
                big_a: -1.0,
                ..gains()
            },
            "A",
        ),
        (
            Gains {
                alpha: 3.0,
                ..gains()
            },
            "alpha",
        ),
        (
            Gains {
                gamma: -0.1,
                ..gains()
            },
            "gamma",
        ),
    ] {
        match Spsa::new(g, vec![1.0], 1) {
            Err(SpsaError::Gain { name: n, .. }) => assert_eq!(n, name),
            other => panic!("{name}: {other:?}"),
        }
    }
    assert!(matches!(
        Spsa::new(gains(), vec![1.0, 0.0], 1),
        Err(SpsaError::Scale { index: 1, .. })
    ));
    assert!(matches!(
        Spsa::bounded(gains(), vec![1.0], vec![(2.0, 1.0)], 1),
        Err(SpsaError::Bounds { index: 0, .. })
    ));
}

#[test]
fn signs_are_balanced_and_seeded() {
    let s = Spsa::new(gains(), vec![1.0; 1000], 42).unwrap();
    let plus = s.signs(0).iter().filter(|&&d| d > 0.0).count();
    assert!((400..600).contains(&plus), "{plus} of 1000 positive");
    let other = Spsa::new(gains(), vec![1.0; 1000], 43).unwrap();
    assert_ne!(s.signs(0), other.signs(0));
    // Over iterations each coordinate is perturbed both ways.
    let ups = (0..200).filter(|&k| s.signs(k)[7] > 0.0).count();
    assert!((60..140).contains(&ups), "{ups}");
}

#[test]
fn probe_and_step_are_exact() {
    let s = Spsa::new(gains(), vec![4.0, 0.5], 9).unwrap();
    let mut state = SpsaState::new(vec![100.0, -1.0]);
    let p = s.probe(&state);
    let c0 = 3.0;
    for j in 0..2 {
        let d = p.delta[j] * c0 * s.scales[j];
        assert_eq!(p.plus[j], state.x[j] + d);
        assert_eq!(p.minus[j], state.x[j] - d);
    }
    let before = state.x.clone();
    s.update(&mut state, &p, 0.25).unwrap();
    for (j, b) in before.iter().enumerate() {
        let want = b + s.scales[j] * gains().a_k(0) * 0.25 * p.delta[j] / (2.0 * c0);
        assert!((state.x[j] - want).abs() < 1e-12, "{j}");
    }
    assert_eq!(state.iteration, 1);
    assert_eq!(state.results, [0.25]);
    // A zero result moves nothing but counts.
    let p = s.probe(&state);
    let x = state.x.clone();
    s.update(&mut state, &p, 0.0).unwrap();
    assert_eq!(state.x, x);
    assert_eq!(state.iteration, 2);
}

#[test]
fn bad_steps_are_refused() {
    let s = Spsa::new(gains(), vec![1.0], 1).unwrap();
    let mut state = SpsaState::new(vec![0.0]);
    let p = s.probe(&state);
    assert_eq!(s.update(&mut state, &p, 1.5), Err(SpsaError::Result(1.5)));
    assert!(matches!(
        s.update(&mut state, &p, f64::NAN),
        Err(SpsaError::Result(_))
    ));
    s.update(&mut state, &p, 0.5).unwrap();
    // The same probe again is stale.
    assert_eq!(
        s.update(&mut state, &p, 0.5),
        Err(SpsaError::StaleProbe { probe: 0, state: 1 })
    );
    let mut wide = SpsaState::new(vec![0.0, 0.0]);
    assert!(matches!(
        s.update(&mut wide, &p, 0.5),
        Err(SpsaError::Dimension { .. })
    ));
}

#[test]
fn bounds_hold_for_points_and_probes() {
    let s = Spsa::bounded(gains(), vec![10.0, 10.0], vec![(0.0, 5.0), (-1e9, 1e9)], 5).unwrap();
    let mut state = SpsaState::new(vec![4.0, 0.0]);
    for _ in 0..50 {
        let p = s.probe(&state);
        assert!(p.plus[0] >= 0.0 && p.plus[0] <= 5.0 && p.minus[0] >= 0.0 && p.minus[0] <= 5.0);
        // Always reward coordinate 0 going up.
        let r = if p.plus[0] > p.minus[0] { 1.0 } else { -1.0 };
        s.update(&mut state, &p, r).unwrap();
        assert!((0.0..=5.0).contains(&state.x[0]));
    }
    assert_eq!(state.x[0], 5.0);
}

/// A noisy comparison of two points of a concave function, from a seeded generator that
/// depends on the iteration only (as games from a seed do).
fn noisy(k: u64, plus: &[f64], minus: &[f64]) -> f64 {
    let f = |x: &[f64]| -> f64 { -(x[0] - 20.0).powi(2) / 400.0 - (x[1] + 10.0).powi(2) / 400.0 };
    let noise = ((k.wrapping_mul(2_654_435_761) % 1000) as f64 / 1000.0 - 0.5) * 0.2;
    (f(plus) - f(minus) + noise).clamp(-1.0, 1.0)
}

#[test]
fn a_resumed_run_equals_an_uninterrupted_one() {
    // Larger steps than the default's: a result of 1 moves a coordinate by its perturbation.
    let mut gains = Gains::for_iterations(300);
    gains.a *= 1.0 / Gains::FIRST_STEP;
    let s = Spsa::new(gains, vec![2.0, 2.0], 11).unwrap();
    let run = |state: &mut SpsaState, until: u64| {
        while state.iteration < until {
            let p = s.probe(state);
            let r = noisy(state.iteration, &p.plus, &p.minus);
            s.update(state, &p, r).unwrap();
        }
    };
    let mut whole = SpsaState::new(vec![0.0, 0.0]);
    run(&mut whole, 300);
    let mut first = SpsaState::new(vec![0.0, 0.0]);
    run(&mut first, 137);
    // Saved and read back, as a state file is.
    let text = serde_json::to_string(&first).unwrap();
    let mut resumed: SpsaState = serde_json::from_str(&text).unwrap();
    run(&mut resumed, 300);
    assert_eq!(resumed, whole);
    // And the run climbed towards the maximum at (20, -10) from (0, 0).
    assert!(whole.x[0] > 10.0 && whole.x[1] < -5.0, "{:?}", whole.x);
}
