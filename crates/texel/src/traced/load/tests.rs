//! The streamed load against reading every trace first: the same sets whatever the batch size,
//! with `first` and `limit`; strict mode, verification across batches, Ctrl-C; without a
//! validation fraction, one pass over the files giving what two would.

use std::path::{Path, PathBuf};

use tapered::CompiledSet;
use trace::{read_traces, Manifest, ReadOptions, Trace};

use super::{load_in_batches, start_weights, two_passes, Read, Sets, Traced, BATCH};
use crate::setup::{SetupOptions, SplitOptions, TraceOptions};

type Opts = SetupOptions<TraceOptions>;
use crate::traced::record_traces;
use crate::TexelError;

/// Material and a 64-square table, tapered; phase 0..=24.
fn manifest_json() -> String {
    let squares: Vec<String> = (0..64)
        .map(|i| format!("[{}, {}]", i % 7 - 3, i % 5 - 2))
        .collect();
    format!(
        r#"{{"format": "gradtune-manifest", "version": 1, "engine": "load-test",
  "score": "white", "phase": {{"max": 24}},
  "params": [
    {{"name": "material", "shape": [6], "value": [[82, 94], [337, 281], [365, 297], [477, 512], [1025, 936], [0, 0]]}},
    {{"name": "square", "shape": [64], "value": [{}]}}
  ]}}"#,
        squares.join(", ")
    )
}

/// The repository's labelled EPD fixture as traces under [`MANIFEST`]: games of 7 positions
/// (every fifth game without its `game` operation, so numbered by the reader), every third
/// position with a constant, every fifth with a decimal count (a sparse row; the others on the
/// phased store), each with the engine's `eval` rebuilt from the manifest. The manifest's path and the traces'.
fn write_set(dir: &Path) -> (PathBuf, PathBuf) {
    let mpath = dir.join("manifest.json");
    let json = manifest_json();
    std::fs::write(&mpath, &json).unwrap();
    let m = Manifest::from_json(&json, "manifest.json").unwrap();
    let epd = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/quiet-labeled-1k.epd");
    let (samples, _) = data::load(&epd, &data::LoadOptions::default()).unwrap();
    let w = m.initial_weights();
    let mut text = String::from("# load test\n");
    for (i, s) in samples.iter().enumerate() {
        let mut coeffs: Vec<(u32, f32, f32)> = Vec::new();
        let mut phase = 0;
        for (sq, p) in s.board.pieces() {
            let white = p.color.is_white();
            let (w_, b_) = if white { (1.0, 0.0) } else { (0.0, 1.0) };
            coeffs.push((p.role as u32 - 1, w_, b_));
            coeffs.push((6 + sq as u32, w_, b_));
            phase += [0, 1, 1, 2, 4, 0][p.role as usize - 1];
        }
        coeffs.sort_by_key(|c| c.0);
        let mut merged: Vec<(u32, f32, f32)> = Vec::new();
        for c in coeffs {
            match merged.last_mut() {
                Some(l) if l.0 == c.0 => {
                    l.1 += c.1;
                    l.2 += c.2;
                }
                _ => merged.push(c),
            }
        }
        if i % 5 == 1 {
            // A decimal count: kept as a sparse row, not on the phased store.
            merged[0].1 += 0.5;
        }
        let game = (i / 7) as u32;
        let mut t = Trace {
            board: s.board,
            result: s.result,
            score: None,
            game,
            white_to_move: s.board.turn().is_white(),
            phase: phase.min(24) as f32,
            scale: None,
            constant: if i % 3 == 0 {
                (i % 11) as f32 - 5.0
            } else {
                0.0
            },
            eval: None,
            coeffs: merged,
            features: Vec::new(),
        };
        t.eval = Some(m.evaluate::<f64>(&t, &w).unwrap().round() as f32);
        let mut line = trace::to_line(&t, &m);
        if game % 5 == 4 {
            line = line.replace(&format!(" game {game};"), "");
        }
        text += &line;
        text.push('\n');
    }
    let tpath = dir.join("traces.txt");
    std::fs::write(&tpath, text).unwrap();
    (mpath, tpath)
}

fn options(manifest: &Path, files: &[PathBuf]) -> Opts {
    let mut opts = SetupOptions::new(TraceOptions::new(manifest.to_path_buf(), files.to_vec()));
    opts.split.valid_fraction = 0.2;
    opts.split.seed = 7;
    opts
}

/// `opts` with its split changed by `change`.
fn with(mut opts: Opts, change: impl FnOnce(&mut SplitOptions)) -> Opts {
    change(&mut opts.split);
    opts
}

/// The sets as loading did before streaming: every trace read, cut to `first`, split by game,
/// cut to `limit` proportionally, each side recorded whole.
fn whole(opts: &Opts) -> (CompiledSet, CompiledSet) {
    let t = &opts.source;
    let traced = Traced::load(&t.manifest).unwrap();
    let start = match &opts.weights {
        Some(p) => start_weights(&traced.manifest, p).unwrap(),
        None => traced.manifest.initial_weights(),
    };
    let (mut traces, _) = read_traces(&t.files, &traced.manifest, &ReadOptions::default()).unwrap();
    if let Some(first) = opts.split.first {
        traces.truncate(first);
    }
    let games = traces.iter().map(|t| t.game).collect();
    let valid_games = data::valid_games(games, opts.split.valid_fraction, opts.split.seed);
    let (mut valid, mut train): (Vec<Trace>, Vec<Trace>) = traces
        .into_iter()
        .partition(|t| valid_games.binary_search(&t.game).is_ok());
    let [t, v] = opts.split.quotas([train.len() as u64, valid.len() as u64]);
    train.truncate(t as usize);
    valid.truncate(v as usize);
    (
        record_traces(&traced, &train, &start, None),
        record_traces(&traced, &valid, &start, None),
    )
}

/// Same positions, labels and evaluations at the start weights, bit for bit.
fn assert_same(a: &CompiledSet, b: &CompiledSet, start: &[f64], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: positions");
    assert_eq!(a.targets(), b.targets(), "{what}: labels");
    let (mut x, mut y) = (vec![0.0; a.len()], vec![0.0; b.len()]);
    a.scores(start, &mut x);
    b.scores(start, &mut y);
    let bits = |v: &[f64]| v.iter().map(|s| s.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(&x),
        bits(&y),
        "{what}: evaluations at the start weights"
    );
}

#[test]
fn streamed_sets_are_those_of_a_whole_load_whatever_the_batch() {
    let dir = tempfile::tempdir().unwrap();
    let (mpath, tpath) = write_set(dir.path());
    // The same file twice: the second's games numbered on past the first's.
    let files = [tpath.clone(), tpath];
    let cases = [
        options(&mpath, &files),
        with(options(&mpath, &files), |s| {
            s.first = Some(1234);
        }),
        with(options(&mpath, &files), |s| {
            s.limit = Some(777);
        }),
        with(options(&mpath, &files), |s| {
            s.first = Some(1500);
            s.limit = Some(600);
        }),
    ];
    for (c, opts) in cases.iter().enumerate() {
        let (train, valid) = whole(opts);
        assert!(
            !train.is_empty() && !valid.is_empty(),
            "case {c}: both sides"
        );
        assert!(train.phased_len() > 0 && train.phased_len() < train.len());
        for batch in [1, 3, 64, BATCH] {
            let loaded = load_in_batches(opts, &|| false, batch).unwrap();
            let what = format!("case {c}, batch {batch}");
            assert_same(
                &loaded.train,
                &train,
                &loaded.start,
                &format!("{what}, training"),
            );
            assert_same(
                &loaded.valid,
                &valid,
                &loaded.start,
                &format!("{what}, validation"),
            );
            assert!(
                loaded.notes.iter().any(|n| n.starts_with("verified: ")),
                "{what}: {:?}",
                loaded.notes
            );
        }
    }
}

/// The fixture's traces with `bad` lines (1-based) replaced by a malformed trace.
fn with_bad_lines(dir: &Path, bad: &[usize]) -> (PathBuf, PathBuf) {
    let (mpath, tpath) = write_set(dir);
    let text = std::fs::read_to_string(&tpath).unwrap();
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if bad.contains(&(i + 1)) {
                "4k3/8/8/8/8/8/3P4/4K3 w - - [1.0]; phase 30".to_string()
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&tpath, lines.join("\n")).unwrap();
    (mpath, tpath)
}

#[test]
fn strict_stops_at_the_first_malformed_line_and_otherwise_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    let (mpath, tpath) = with_bad_lines(dir.path(), &[300, 700]);
    let files = [tpath.clone()];
    let strict = with(options(&mpath, &files), |s| {
        s.strict = true;
    });
    match load_in_batches(&strict, &|| false, 50) {
        Err(TexelError::Trace(trace::TraceError::Input { location, message })) => {
            assert_eq!(location, format!("{}:300", tpath.display()));
            assert!(message.contains("`phase` 30 out of range"), "{message}");
        }
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("a malformed line passed in strict mode"),
    }
    let lenient = options(&mpath, &files);
    let loaded = load_in_batches(&lenient, &|| false, 50).unwrap();
    let note = &loaded.notes[0];
    assert!(note.contains("998 traces kept"), "{note}");
    assert!(note.contains("2 skipped as malformed"), "{note}");
    assert!(
        note.contains(&format!("{}:700: ", tpath.display())),
        "{note}"
    );
    assert_eq!(loaded.train.len() + loaded.valid.len(), 998);
}

#[test]
fn a_mismatch_in_a_later_batch_fails_verification_numbered_in_the_whole_set() {
    let dir = tempfile::tempdir().unwrap();
    let (mpath, tpath) = write_set(dir.path());
    let text = std::fs::read_to_string(&tpath).unwrap();
    // Line 1 is the comment: trace #600 is line 602.
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 601 {
                let (head, tail) = l.split_once("; eval ").unwrap();
                let (_, rest) = tail.split_once(';').unwrap();
                format!("{head}; eval 9999;{rest}")
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&tpath, lines.join("\n")).unwrap();
    let opts = options(&mpath, &[tpath]);
    let Err(TexelError::Config(msg)) = load_in_batches(&opts, &|| false, 100) else {
        panic!("a set with a mismatch passed verification");
    };
    assert!(msg.contains("1 of 1000 positions differ"), "{msg}");
    assert!(msg.contains("worst: #600 engine 9999"), "{msg}");
}

#[test]
fn a_stop_between_batches_interrupts_the_load() {
    let dir = tempfile::tempdir().unwrap();
    let (mpath, tpath) = write_set(dir.path());
    let opts = options(&mpath, &[tpath]);
    let asked = std::sync::atomic::AtomicUsize::new(0);
    // Yes from the fifth question on: during the first pass with batches of 100.
    let stop = || asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= 4;
    assert!(matches!(
        load_in_batches(&opts, &stop, 100),
        Err(TexelError::Interrupted)
    ));
    assert_eq!(asked.load(std::sync::atomic::Ordering::Relaxed), 5);
}

/// [`two_passes`] on `opts`, whatever its validation fraction: the notes and the two sets.
fn in_two_passes(opts: &Opts, batch: usize) -> Result<Sets, TexelError> {
    let t = &opts.source;
    let traced = Traced::load(&t.manifest).unwrap();
    let start = traced.manifest.initial_weights();
    let read = Read {
        traced: &traced,
        start: &start,
        t,
        split: &opts.split,
        progress: &opts.progress,
        stop: &|| false,
        batch,
    };
    two_passes(&read)
}

/// `options` without a validation fraction: every trace a training one.
fn no_validation(manifest: &Path, files: &[PathBuf]) -> Opts {
    with(options(manifest, files), |s| {
        s.valid_fraction = 0.0;
    })
}

#[test]
fn without_validation_one_pass_gives_the_sets_and_notes_of_two() {
    let dir = tempfile::tempdir().unwrap();
    let (mpath, tpath) = write_set(dir.path());
    let files = [tpath.clone(), tpath];
    let base = no_validation(&mpath, &files);
    let cases = [
        base.clone(),
        with(base.clone(), |s| {
            s.first = Some(1234);
        }),
        with(base.clone(), |s| {
            s.limit = Some(777);
        }),
        with(base.clone(), |s| {
            s.first = Some(1500);
            s.limit = Some(600);
        }),
        with(base.clone(), |s| {
            s.first = Some(300);
            s.limit = Some(5000);
        }),
    ];
    for (c, opts) in cases.iter().enumerate() {
        let (train, valid) = whole(opts);
        assert!(valid.is_empty() && !train.is_empty(), "case {c}");
        for batch in [1, 3, 64, BATCH] {
            let what = format!("case {c}, batch {batch}");
            let once = load_in_batches(opts, &|| false, batch).unwrap();
            assert_same(&once.train, &train, &once.start, &what);
            assert!(once.valid.is_empty(), "{what}");
            let (notes, [train2, valid2]) = in_two_passes(opts, batch).unwrap();
            assert_eq!(once.notes, notes, "{what}: notes");
            assert_same(&once.train, &train2, &once.start, &what);
            assert!(valid2.is_empty(), "{what}");
        }
    }
}

#[test]
fn without_validation_the_files_are_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let (mpath, tpath) = write_set(dir.path());
    let count = |opts: &Opts| {
        let asked = std::sync::atomic::AtomicUsize::new(0);
        let stop = || {
            asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            false
        };
        load_in_batches(opts, &stop, 100).unwrap();
        asked.load(std::sync::atomic::Ordering::Relaxed)
    };
    // The stop is asked once a batch read: 1,000 traces in batches of 100.
    let files = [tpath];
    assert_eq!(count(&no_validation(&mpath, &files)), 10);
    assert_eq!(count(&options(&mpath, &files)), 20);
}

#[test]
fn without_validation_malformed_lines_and_mismatches_are_reported_as_in_two_passes() {
    let dir = tempfile::tempdir().unwrap();
    let (mpath, tpath) = with_bad_lines(dir.path(), &[300, 700]);
    let files = [tpath.clone()];
    let lenient = no_validation(&mpath, &files);
    let once = load_in_batches(&lenient, &|| false, 50).unwrap();
    assert!(
        once.notes[0].contains("998 traces kept"),
        "{:?}",
        once.notes
    );
    assert!(once.notes[0].contains(&format!("{}:700: ", tpath.display())));
    assert_eq!(once.notes, in_two_passes(&lenient, 50).unwrap().0);
    assert_eq!(once.train.len(), 998);
    let strict = with(lenient.clone(), |s| {
        s.strict = true;
    });
    match load_in_batches(&strict, &|| false, 50) {
        Err(TexelError::Trace(trace::TraceError::Input { location, .. })) => {
            assert_eq!(location, format!("{}:300", tpath.display()));
        }
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("a malformed line passed in strict mode"),
    }
    // A mismatch in a later batch: the same refusal as two passes give.
    let text = std::fs::read_to_string(&tpath).unwrap();
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| match l.split_once("; eval ") {
            Some((head, tail)) if i == 601 => {
                let (_, rest) = tail.split_once(';').unwrap();
                format!("{head}; eval 9999;{rest}")
            }
            _ => l.to_string(),
        })
        .collect();
    std::fs::write(&tpath, lines.join("\n")).unwrap();
    let Err(TexelError::Config(msg)) = load_in_batches(&lenient, &|| false, 100) else {
        panic!("a set with a mismatch passed verification");
    };
    assert!(msg.contains("1 of 998 positions differ"), "{msg}");
    let Err(TexelError::Config(two)) = in_two_passes(&lenient, 100) else {
        panic!("two passes let the mismatch pass");
    };
    assert_eq!(msg, two);
}
