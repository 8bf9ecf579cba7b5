//! The integer polish that costs what it changes ([`texel::finish::polish`]: a column index
//! and kept evaluations) keeps exactly the steps of the polish it replaced, which scored every
//! try on a whole pass of the training set: kept here as the reference, and both run from the
//! same weights on a linear and a non-linear traced fixture.

use crate::fixture;

use fixture::{write, Fixture, Kind};
use optim::Objective;
use tapered::Stop;
use texel::finish::{polish, Polish, POLISH_PATIENCE, POLISH_SWEEPS};
use texel::setup::{prepare_as, SetupOptions, TraceOptions};
use texel::traced::Traced;
use texel::Tunable;

/// What the reference polish did: the loss, steps kept, sweeps and passes.
struct Reference {
    loss: f64,
    moves: usize,
    sweeps: usize,
    passes: usize,
}

/// The polish before the column index, unbounded: each sweep's gradient, then a step of 1
/// against it on each movable weight by slope, largest first, each scored on a whole pass
/// and kept if the data loss drops, until [`POLISH_PATIENCE`] refusals in a row; at most
/// [`POLISH_SWEEPS`] sweeps, ending at one that keeps nothing.
fn reference(train: &Objective, wi: &mut [f64], movable: &[usize], loss: f64) -> Reference {
    let coords: Vec<(usize, usize)> = train
        .free()
        .iter()
        .enumerate()
        .filter(|(_, i)| movable.contains(i))
        .map(|(k, &i)| (i, k))
        .collect();
    let mut out = Reference {
        loss,
        moves: 0,
        sweeps: 0,
        passes: 0,
    };
    let bounds = train.bounds();
    while out.sweeps < POLISH_SWEEPS {
        out.sweeps += 1;
        out.passes += 1;
        let (_, g) = train.value_and_gradient(&train.reduce(wi));
        let mut order = coords.clone();
        order.sort_by(|a, b| g[b.1].abs().total_cmp(&g[a.1].abs()));
        let (mut kept, mut refused) = (0, 0);
        for (i, k) in order {
            if refused >= POLISH_PATIENCE {
                break;
            }
            if g[k] == 0.0 || !g[k].is_finite() {
                continue;
            }
            let old = wi[i];
            let v = old - g[k].signum();
            if bounds
                .get(k)
                .is_some_and(|&(lo, hi)| !(lo..=hi).contains(&v))
            {
                continue;
            }
            out.passes += 1;
            wi[i] = v;
            let l = train.data_loss(wi);
            if l < out.loss {
                out.loss = l;
                kept += 1;
                refused = 0;
            } else {
                wi[i] = old;
                refused += 1;
            }
        }
        out.moves += kept;
        if kept == 0 {
            break;
        }
    }
    out
}

fn options(f: &Fixture) -> SetupOptions<TraceOptions> {
    crate::fixture::run_options(&f.manifest, &f.traces, Some(0.0))
}

/// Both polishes from `start` (rounded): the same weights, steps and sweeps, the same loss up
/// to the order of its sum; with and without twins sharing a column.
fn same_steps(kind: Kind, n: usize, seed: u64, shift: impl Fn(usize) -> f64) {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), kind, n, seed, None);
    let setup = prepare_as::<Traced>(&options(&f), Stop::Never).unwrap();
    let train = &setup.train;
    let start: Vec<f64> = (setup.start.iter().enumerate())
        .map(|(k, v)| (v + shift(k)).round())
        .collect();
    let loss = train.data_loss(&start);
    let movable: Vec<usize> = (0..start.len()).collect();
    let mut want = start.clone();
    let r = reference(train, &mut want, &movable, loss);
    assert!(
        r.moves > 10 && r.sweeps >= 2,
        "{} moves, {} sweeps",
        r.moves,
        r.sweeps
    );
    let unbounded = Polish {
        passes: usize::MAX,
        seconds: None,
        ..Polish::default()
    };
    let twins = setup.model.phase_pairs();
    for twins in [&twins[..], &[]] {
        let mut got = start.clone();
        let p = polish(train, &mut got, &movable, twins, loss, &unbounded);
        assert_eq!(got, want, "{kind:?}: other steps kept");
        assert_eq!((p.moves, p.sweeps, p.cut), (r.moves, r.sweeps, None));
        assert_eq!(p.tries, r.passes - r.sweeps, "the same tries");
        assert!(
            (p.loss - r.loss).abs() <= 1e-14 * r.loss,
            "{} against {}",
            p.loss,
            r.loss
        );
        assert_eq!(p.loss, train.data_loss(&got));
        // A try costs its column: never more than a pass a try (the index costs two), and
        // less where the columns are sparse (the linear fixture's table; the non-linear
        // fixture's weights are each in most positions).
        let most = if kind == Kind::Linear {
            r.passes / 2
        } else {
            r.passes + 2
        };
        assert!(
            p.passes <= most,
            "{kind:?}: {} passes against the reference's {}",
            p.passes,
            r.passes
        );
    }
}

#[test]
fn keeps_the_steps_of_a_pass_a_try_on_a_linear_manifest() {
    same_steps(Kind::Linear, 3000, 11, |k| 3.3 * ((k * 7 % 5) as f64 - 2.0));
}

#[test]
fn keeps_the_steps_of_a_pass_a_try_through_declared_terms() {
    same_steps(Kind::NonLinear, 3000, 12, |k| {
        2.7 * ((k * 3 % 4) as f64 - 1.5)
    });
}
