//! The runner of `tune label` and `tune trace` stops when asked, wherever it is: a stop that
//! finds the window's first position already written (here: before any position is read)
//! ends the run once the workers have left, instead of polling for answers that never come.

use crate::fake_engine;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::time::Duration;

use data::Sample;
use engine::play::label::{label, LabelInput, LabelSettings};
use engine::play::runner::Source;
use engine::play::uci_client::EngineSpec;
use engine::SearchLimits;

fn positions(n: usize) -> LabelInput {
    let samples: Vec<Sample> = (0..n)
        .map(|g| Sample::from_position(&shakmaty::Chess::default(), 0.5, None, g as u32))
        .collect();
    let source = Source {
        path: PathBuf::from("in.epd"),
        start: 0,
        len: n,
    };
    LabelInput::from_samples(samples, vec![source])
}

#[test]
fn a_run_stopped_before_its_first_position_ends_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let settings = LabelSettings {
        engine: EngineSpec::new(fake_engine::fake_engine(dir.path(), &[])),
        limits: SearchLimits::depth(1),
        timeout: Duration::from_secs(10),
        jobs: 2,
        fresh: false,
    };
    let out = dir.path().join("out.epd");
    let (tx, rx) = mpsc::channel();
    let input = positions(50);
    let run_out = out.clone();
    // In a thread of its own: a runner that never returns fails the test instead of hanging it.
    std::thread::spawn(move || {
        let stop = AtomicBool::new(true);
        let r = label(&input, &settings, &run_out, &mut |_| {}, &stop);
        let _ = tx.send(r.map(|o| (o.interrupted, o.written, o.answered)));
    });
    let outcome = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the stopped run returns")
        .expect("a stopped run is not an error");
    let (interrupted, written, answered) = outcome;
    assert!(interrupted, "the run says it was interrupted");
    assert!(
        !written && !out.exists(),
        "nothing is written to the output"
    );
    assert_eq!(answered, 0);
}
