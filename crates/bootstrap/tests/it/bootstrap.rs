//! A bootstrap end to end at tiny settings, its continuation after an interruption, and its
//! refusals.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use bootstrap::state::State;
use bootstrap::{run, BootstrapError, Options, Settings};

/// Reference weights for the ladder: a `psqt` generation the repository carries
/// (`data/bootstrap-defaults-gen16.json`), so the test needs nothing beside the checkout.
fn reference() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../data")
        .join(format!("{REFERENCE}.json"));
    assert!(p.is_file(), "{} is missing", p.display());
    p
}

/// The reference's name in the ladder (its file stem).
const REFERENCE: &str = "bootstrap-defaults-gen16";

/// Seconds, not minutes: 8 games of 300 nodes, a gate of at most 4 openings, ladders of 2.
fn tiny() -> Settings {
    Settings {
        games: 8,
        nodes: 300,
        max_iters: 20,
        // Too few games to hold some out: keep the last iterate, so the gate sees new weights.
        valid_fraction: 0.0,
        gate_openings: 4,
        gate_batch: 2,
        gate_nodes: 300,
        ladder_openings: 2,
        ladder_nodes: 300,
        reference: Some(reference()),
        seed: 7,
        ..Settings::default()
    }
}

fn temp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("bootstrap-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&p).ok();
    p
}

fn go(out: &Path, generations: u32) -> Result<bootstrap::Outcome, BootstrapError> {
    let opts = Options {
        out: out.to_path_buf(),
        generations,
        settings: tiny(),
    };
    run(&opts, &|_| {}, &Arc::new(AtomicBool::new(false)))
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Two generations, uninterrupted: computed once, shared by the tests.
fn uninterrupted() -> &'static Path {
    static OUT: OnceLock<PathBuf> = OnceLock::new();
    OUT.get_or_init(|| {
        let out = temp("whole");
        let o = go(&out, 2).unwrap();
        assert!(!o.interrupted);
        out
    })
}

#[test]
fn two_generations_write_data_weights_matches_and_ladder() {
    let out = uninterrupted();
    let state = State::read(&out.join("state.json")).unwrap();
    assert_eq!(state.generations.len(), 3, "generations 0, 1 and 2");
    for g in 0..=2u32 {
        let dir = out.join(format!("gen{g:03}"));
        assert!(dir.join("weights.json").is_file(), "gen {g}: weights");
        assert!(dir.join("generation.json").is_file(), "gen {g}: record");
        if g > 0 {
            assert!(dir.join("data.gtc.zst").is_file(), "gen {g}: data");
            assert!(
                dir.join("tune/summary.json").is_file(),
                "gen {g}: tuning run"
            );
            let rec = &state.generations[g as usize];
            assert_eq!(rec.data.as_ref().unwrap().games, 8);
            let gate = &rec.gate.as_ref().unwrap().result;
            assert!(gate.games > 0 && gate.games <= 8 && gate.games.is_multiple_of(2));
            assert_eq!(gate.nodes, Some(300));
            assert!(gate.sprt.is_some());
            // The kept weights are the candidate's or the previous generation's.
            let kept = read(&dir.join("weights.json"));
            match rec.gate.as_ref().unwrap().keep {
                bootstrap::gate::Keep::New => {
                    assert_eq!(rec.best, g);
                    assert_eq!(kept, read(&dir.join("tune/weights.json")));
                }
                bootstrap::gate::Keep::Old => {
                    assert_eq!(
                        kept,
                        read(&out.join(format!("gen{:03}/weights.json", g - 1)))
                    );
                }
            }
        }
        let rec = &state.generations[g as usize];
        let r = rec.vs_reference.as_ref().expect("a reference match");
        assert_eq!(r.games, 4);
        assert_eq!(r.opponent, REFERENCE);
    }
    assert_eq!(
        state.generations[2].tuning.as_ref().unwrap().window,
        vec![1, 2],
        "the window holds the data of generations 1 and 2"
    );
    let md = read(&out.join("ladder.md"));
    assert!(md.contains("| 0 | gen 0 (start) |"), "{md}");
    assert!(md.contains("| 2 |"), "{md}");
    assert!(md.contains(&format!("vs {REFERENCE}")), "{md}");
    assert!(read(&out.join("ladder.svg")).starts_with("<svg"));
    let ladder: serde_json::Value = serde_json::from_str(&read(&out.join("ladder.json"))).unwrap();
    assert_eq!(ladder.as_array().map(Vec::len), Some(3));
    // Nothing left half-written: no temporary file of an atomic write remains.
    let temps: Vec<_> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') && n.contains(".tmp"))
        .collect();
    assert!(temps.is_empty(), "{temps:?}");
}

/// Stopped after generation 1 with generation 2 half done, then continued: the same ladder
/// and state as the uninterrupted run.
#[test]
fn continuing_after_an_interruption_gives_the_same_ladder() {
    let whole = uninterrupted();
    let out = temp("resumed");
    let o = go(&out, 1).unwrap();
    assert_eq!(o.state.generations.len(), 2);
    // Generation 2 interrupted half way: its directory exists, its data is junk.
    let half = out.join("gen002");
    std::fs::create_dir_all(&half).unwrap();
    std::fs::write(half.join("data.gtc.zst"), b"half a file").unwrap();
    let o = go(&out, 2).unwrap();
    assert!(!o.interrupted);
    assert_eq!(
        read(&out.join("ladder.json")),
        read(&whole.join("ladder.json"))
    );
    assert_eq!(read(&out.join("ladder.md")), read(&whole.join("ladder.md")));
    // The state too, but for the last bits of the tuning losses: the parallel sums of a pass
    // are not bitwise reproducible (their weights stay close enough to play the same games).
    let (mut a, mut b) = (
        State::read(&out.join("state.json")).unwrap(),
        State::read(&whole.join("state.json")).unwrap(),
    );
    for (x, y) in a.generations.iter_mut().zip(&mut b.generations) {
        if let (Some(tx), Some(ty)) = (x.tuning.as_mut(), y.tuning.as_mut()) {
            let close = |p: f64, q: f64| (p - q).abs() <= 1e-12 * p.abs().max(1e-300);
            assert!(
                close(tx.train_loss.0, ty.train_loss.0) && close(tx.train_loss.1, ty.train_loss.1)
            );
            assert!(close(tx.k, ty.k));
            tx.train_loss = ty.train_loss;
            tx.valid_loss = ty.valid_loss;
            tx.k = ty.k;
        }
    }
    assert_eq!(a, b);
    // Running again with nothing left to do changes nothing.
    let o = go(&out, 2).unwrap();
    assert_eq!(o.state.generations.len(), 3);
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn other_settings_are_refused_and_a_set_stop_flag_plays_nothing() {
    let out = temp("refuse");
    // Stopped before it starts: generation 0 (the start weights, no match without a
    // reference) is saved, nothing more is played.
    let opts = Options {
        out: out.clone(),
        generations: 1,
        settings: Settings {
            ladder_openings: 1,
            reference: None,
            ..tiny()
        },
    };
    let o = run(&opts, &|_| {}, &Arc::new(AtomicBool::new(true))).unwrap();
    assert!(o.interrupted);
    assert_eq!(o.state.generations.len(), 1);
    assert!(!out.join("gen001").exists());
    // A continuation with other settings.
    let other = Options {
        settings: Settings {
            games: 9,
            ..opts.settings.clone()
        },
        ..opts.clone()
    };
    let e = run(&other, &|_| {}, &Arc::new(AtomicBool::new(false))).unwrap_err();
    assert!(matches!(e, BootstrapError::SettingsChanged { .. }), "{e}");
    assert!(e.to_string().contains("games: 8 -> 9"), "{e}");
    // Bad options are errors, not panics.
    let bad = Options {
        settings: Settings {
            window: 0,
            ..opts.settings.clone()
        },
        ..opts
    };
    assert!(matches!(
        run(&bad, &|_| {}, &Arc::new(AtomicBool::new(false))),
        Err(BootstrapError::Options(_))
    ));
    std::fs::remove_dir_all(&out).ok();
}

/// With a pool of one, each generation's best also plays the previous best. Seed 4 is one
/// whose generation 1 passes its gate (asserted), so generation 2's games are generation 1's
/// weights against themselves and against generation 0's. Generation 1 has no earlier best:
/// the same games as self-play alone.
#[test]
fn a_pool_plays_the_earlier_bests() {
    let run_with = |name: &str, pool: u32| {
        let out = temp(name);
        let opts = Options {
            out: out.clone(),
            generations: 2,
            settings: Settings {
                pool,
                seed: 4,
                ..tiny()
            },
        };
        let o = run(&opts, &|_| {}, &Arc::new(AtomicBool::new(false))).unwrap();
        (out, o.state.generations)
    };
    let (out, gens) = run_with("pool", 1);
    let (alone, alone_gens) = run_with("pool-alone", 0);
    assert_eq!(gens[1].best, 1, "generation 1 passes its gate at seed 4");
    let data = |g: usize| gens[g].data.as_ref().unwrap();
    assert!(data(1).opponents.is_empty());
    assert_eq!(data(2).opponents, [0]);
    assert_eq!(data(2).opponents, bootstrap::pool_members(&gens[..2], 1));
    assert!(alone_gens[2].data.as_ref().unwrap().opponents.is_empty());
    let data_file = |dir: &Path, g: u32| read_bytes(&dir.join(format!("gen{g:03}/data.gtc.zst")));
    assert_eq!(data_file(&out, 1), data_file(&alone, 1));
    assert_ne!(data_file(&out, 2), data_file(&alone, 2));
    let record = read(&out.join("gen002/generation.json"));
    assert!(record.contains("\"opponents\""), "{record}");
    for dir in [out, alone] {
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// `freeze`: every tuning run holds the frozen parameters at the start's values, so the
/// candidate of generation 1 (`tune/weights.json`) has the start's piece values and tuned
/// tables.
#[test]
fn a_frozen_group_keeps_the_start_values() {
    let out = temp("freeze");
    let opts = Options {
        out: out.clone(),
        generations: 1,
        settings: Settings {
            freeze: vec!["material".to_string()],
            ..tiny()
        },
    };
    run(&opts, &|_| {}, &Arc::new(AtomicBool::new(false))).unwrap();
    let (model, start) = eval::load_weights(&out.join("gen000/weights.json")).unwrap();
    let (_, tuned) = eval::load_weights(&out.join("gen001/tune/weights.json")).unwrap();
    let mut moved = 0;
    for ((p, a), b) in model.params().iter().zip(&start).zip(&tuned) {
        if p.group == "material" {
            assert_eq!(a, b, "{} is frozen", p.name);
        } else if a != b {
            moved += 1;
        }
    }
    assert!(moved > 0, "the tables were tuned");
    let state = read(&out.join("state.json"));
    assert!(state.contains("\"freeze\""), "{state}");
    std::fs::remove_dir_all(&out).ok();
}

fn read_bytes(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn psqt_weights_start_a_full_ladder() {
    // A psqt generation as generation 0 of a full ladder: carried over by name.
    let out = temp("full-from-psqt");
    let opts = Options {
        out: out.clone(),
        generations: 0,
        settings: Settings {
            model: "full".to_string(),
            weights: Some(reference()),
            ..tiny()
        },
    };
    run(&opts, &|_| {}, &Arc::new(AtomicBool::new(false))).unwrap();
    let (model, w) = eval::load_weights(&out.join("gen000/weights.json")).unwrap();
    assert_eq!(model.kind(), eval::ModelKind::Full);
    let (psqt, start) = eval::load_weights(&reference()).unwrap();
    assert_eq!(w, model.carry_over(&psqt, &start).unwrap());
    std::fs::remove_dir_all(&out).ok();
}
