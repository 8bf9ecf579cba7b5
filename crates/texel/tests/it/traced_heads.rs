//! Declared non-linear terms on the sums-scalars-and-head store: every position of the C trace
//! fixture (king safety: a quadratic per side and an attacker-count weight picked per
//! position) and of an Ethereal-shaped manifest (44 king-safety elements through a quadratic
//! per side, a complexity term through `sign` and `max` on the endgame, a per-position scale
//! and constant) is stored there, none falls back, and values and gradients equal the
//! per-position programs of `Manifest::evaluate_real` (the tuning objective) over `Var` within
//! 1e-12 relative, through single positions and through a whole pass; finite differences
//! agree. With Ethereal's truncating divisions (`trunc`) the store holds the real divisions.

use crate::tools;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode, Position};
use tape::{Scratch, Tape};
use tapered::{CompiledSet, StoreKind};
use texel::traced::{record_traces, Traced};
use trace::{Manifest, Trace};

/// `|a - b| <= 1e-12 max(|a|, |b|, 1)`.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

/// FENs of random playouts from the start (10 to 70 plies), from a fixed seed.
fn random_fens(n: usize, seed: u64) -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut pos = Chess::default();
        let plies = rng.gen_range(10..70);
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.gen_range(0..moves.len())];
            pos.play_unchecked(m);
        }
        out.push(Fen::from_position(&pos, EnPassantMode::Legal).to_string());
    }
    out
}

/// Weights near the manifest's values, each moved by up to `spread` (so that sums and
/// branches differ from the recorded ones).
fn moved(m: &Manifest, spread: f64, seed: u64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let w = m.initial_weights();
    w.iter()
        .map(|v| v + rng.gen_range(-spread..spread))
        .collect()
}

/// Checks `set` (recorded from `traces`, each trace's `game` its number) against
/// `Manifest::evaluate_real` over `Var` at `w`: every position on the new store, values and
/// gradients per position and summed by a pass, and finite differences on a few positions.
fn check(m: &Manifest, traces: &[Trace], set: &CompiledSet, w: &[f64]) {
    let layout = set.layout();
    assert_eq!(layout.fallen_back(), 0, "{:?}", layout.warnings());
    assert_eq!(layout.positions(StoreKind::SumsScalarsAndHead), set.len());
    check_values(m, traces, set, w);
}

/// [`check`]'s values, gradients and finite differences, wherever the positions are stored.
fn check_values(m: &Manifest, traces: &[Trace], set: &CompiledSet, w: &[f64]) {
    assert_eq!(set.len(), traces.len(), "every trace is recorded");
    let n = w.len();
    let mut tape = Tape::new();
    let mut scratch = Scratch::default();
    let (mut loss, mut grad) = (0.0, vec![0.0; n]);
    for i in 0..set.len() {
        let t = &traces[set.targets()[i].group as usize];
        let program = tape.record(|rec| {
            let x = rec.inputs(w);
            let q = m.evaluate_real(t, &x).expect("the trace evaluates");
            rec.compile(q)
        });
        let mut want = vec![0.0; n];
        let q = program.value_and_gradient(w, 1.0, &mut Scratch::default(), &mut want);
        let got = set.score(i, w, &mut scratch);
        assert!(
            close(got, q),
            "position {i}: {got} against {q} ({})",
            t.fen()
        );
        let mut g = vec![0.0; n];
        set.add_gradient(i, 1.0, &mut scratch, &mut g);
        for (k, (a, b)) in g.iter().zip(&want).enumerate() {
            assert!(close(*a, *b), "position {i}, weight {k}: {a} against {b}");
        }
        loss += q * q;
        for (s, d) in grad.iter_mut().zip(&want) {
            *s += 2.0 * q * d;
        }
    }
    // A pass (the store's own loop): loss q^2, so dL/dq = 2q.
    let go = AtomicBool::new(false);
    let mut pass_grad = vec![0.0; n];
    let f = |_: usize, q: f64| (q * q, 2.0 * q);
    let pass = set.pass(w, 0..set.len(), None, Some(&mut pass_grad), f, (&go).into());
    let pass = pass.expect("not stopped");
    assert!(close(pass, loss), "pass loss {pass} against {loss}");
    let scale = grad.iter().fold(1.0f64, |a, g| a.max(g.abs()));
    for (k, (a, b)) in pass_grad.iter().zip(&grad).enumerate() {
        assert!(
            (a - b).abs() <= 1e-12 * scale,
            "pass, weight {k}: {a} against {b}"
        );
    }
    // Central differences on the first positions, every weight the position reads.
    for i in 0..set.len().min(20) {
        let mut g = vec![0.0; n];
        set.score(i, w, &mut scratch);
        set.add_gradient(i, 1.0, &mut scratch, &mut g);
        for k in (0..n).filter(|&k| g[k] != 0.0) {
            let h = 1e-4;
            let (mut up, mut down) = (w.to_vec(), w.to_vec());
            up[k] += h;
            down[k] -= h;
            let fd =
                (set.score(i, &up, &mut scratch) - set.score(i, &down, &mut scratch)) / (2.0 * h);
            let tol = 1e-6 * g[k].abs().max(1.0);
            assert!(
                (fd - g[k]).abs() <= tol,
                "position {i}, weight {k}: {fd} against {}",
                g[k]
            );
        }
    }
}

/// The C fixture compiled into `dir`, or `None` (with a message) without a C compiler.
fn compile_fixture(dir: &Path) -> Option<PathBuf> {
    if !tools::have("cc", "this test compiles the C fixture") {
        return None;
    }
    let exe = dir.join("fixture");
    tools::cc_fixture(&exe, &["-O1"]);
    Some(exe)
}

/// The fixture's manifest and its traces of `fens` (each trace's `game` its number).
fn fixture_traces(exe: &Path, fens: &[String]) -> (Manifest, Vec<Trace>) {
    let mut input = String::from("manifest\n");
    for fen in fens {
        input += &format!("position fen {fen}\ntrace\n");
    }
    input += "quit\n";
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the fixture starts");
    // Written from another thread: the answers fill the output pipe meanwhile.
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("the fixture answers");
    writer.join().unwrap().expect("the fixture reads its input");
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let json = lines
        .next()
        .and_then(|l| l.strip_prefix("manifest "))
        .expect("a manifest");
    let m = Manifest::from_json(json, "fixture").expect("the fixture's manifest");
    let traces: Vec<Trace> = lines
        .filter(|l| l.starts_with("trace"))
        .zip(fens)
        .enumerate()
        .map(|(i, (answer, fen))| {
            let line = trace::parse_engine_answer(answer, fen, "[0.5]", &m).expect("an answer");
            let t = trace::parse_line(&line, &m).unwrap().expect("a trace");
            Trace {
                game: i as u32,
                ..t
            }
        })
        .collect();
    assert_eq!(traces.len(), fens.len());
    (m, traces)
}

#[test]
fn the_c_fixtures_king_safety_is_on_the_compact_store_and_exact() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = compile_fixture(dir.path()) else {
        return;
    };
    let (m, traces) = fixture_traces(&exe, &random_fens(400, 7));
    assert!(!m.is_linear());
    let attacked = traces
        .iter()
        .filter(|t| t.features.iter().any(|f| f.1 + f.2 > 0.0));
    assert!(
        attacked.count() > 20,
        "the positions exercise the king safety"
    );
    let traced = Traced::new(m.clone());
    let set = record_traces(&traced, &traces, &m.initial_weights(), None);
    let bytes = set.layout().stores[0].bytes / set.len();
    assert!(bytes <= 200, "{bytes} bytes a position");
    check(&m, &traces, &set, &moved(&m, 20.0, 1));
    check(&m, &traces, &set, &m.initial_weights());
}

/// An Ethereal-shaped manifest: material and a table (linear, tapered), 44 king-safety
/// elements into a per-side sum through Ethereal's quadratic, an attacker-count weight picked
/// per position, 4 complexity elements through `sign(eg) * max(s, -abs(eg))` on the endgame,
/// a scale and constants.
fn ethereal() -> String {
    let zeros = |n: usize| format!("[{}]", vec!["[0, 0]"; n].join(", "));
    let (table, safety) = (zeros(64), zeros(44));
    format!(
        r#"{{"format": "gradtune-manifest", "version": 1, "engine": "ethereal-shaped",
  "score": "white", "phase": {{"max": 256}}, "scale": {{"max": 128}},
  "params": [
    {{"name": "material", "shape": [5], "value": [[80, 100], [320, 300], [330, 320], [450, 520], [900, 950]]}},
    {{"name": "table", "shape": [64], "value": {table}}},
    {{"name": "safety", "shape": [44], "sum": "safety", "integer": false, "value": {safety}}},
    {{"name": "attack_weight", "shape": [8], "tapered": false, "value": [0, 0, 8, 16, 24, 32, 40, 48]}},
    {{"name": "complexity", "shape": [4], "sum": "complexity", "value": [[0, 9], [0, 50], [0, 100], [0, -110]]}}
  ],
  "features": ["attackers"],
  "terms": [
    {{"name": "safety", "sum": "safety", "per_side": true,
     "mg": "-s * max(s, 0) / 720 - attack_weight[attackers] * max(s, 0) / 256 - attackers",
     "eg": "-max(s, 0) / 20"}},
    {{"name": "complexity", "sum": "complexity", "eg": "sign(eg) * max(s, -abs(eg))"}}
  ]}}"#
    )
}

/// Random traces of the Ethereal-shaped manifest (each trace's `game` its number).
fn ethereal_traces(m: &Manifest, n: usize) -> Vec<Trace> {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let fens = random_fens(n, 3);
    fens.iter()
        .enumerate()
        .map(|(i, fen)| {
            let mut ops = format!(
                "phase {}; scale {}; const {}; t",
                rng.gen_range(0..=256),
                rng.gen_range(0..=128),
                rng.gen_range(-40..40)
            );
            material_and_table(&mut rng, 12, &mut ops);
            for _ in 0..rng.gen_range(0..8) {
                let k = 69 + rng.gen_range(0..44);
                ops += &format!(" {k}:{}:{}", rng.gen_range(0..3), rng.gen_range(0..3));
            }
            for k in 0..4 {
                let c = [
                    rng.gen_range(0..16),
                    rng.gen_range(0..2),
                    rng.gen_range(0..2),
                    1,
                ][k];
                ops += &format!(" {}:{c}:0", 121 + k);
            }
            let a = (rng.gen_range(0..8), rng.gen_range(0..8));
            ops += &format!("; f attackers:{}:{}", a.0, a.1);
            numbered(m, &format!("{fen} [0.5]; {ops}"), i)
        })
        .collect()
}

/// Appends random counts of the 5 material elements (trace indices 0..5) and of `squares`
/// entries of a 64-entry table (5..69) to a trace's `t` operation.
fn material_and_table(rng: &mut ChaCha8Rng, squares: usize, ops: &mut String) {
    for k in 0..5 {
        *ops += &format!(" {k}:{}:{}", rng.gen_range(0..3), rng.gen_range(0..3));
    }
    for _ in 0..squares {
        let k = 5 + rng.gen_range(0..64);
        *ops += &format!(" {k}:{}:{}", rng.gen_range(0..2), rng.gen_range(0..2));
    }
}

/// The trace of a line, its `game` the number `i`.
fn numbered(m: &Manifest, line: &str, i: usize) -> Trace {
    let t = trace::parse_line(line, m).unwrap().expect("a trace");
    Trace {
        game: i as u32,
        ..t
    }
}

#[test]
fn an_ethereal_shaped_manifest_is_on_the_compact_store_and_exact() {
    let m = Manifest::from_json(&ethereal(), "ethereal.json").unwrap();
    assert_eq!(m.index_of("safety[43].eg"), Some(5 * 2 + 64 * 2 + 87));
    let traces = ethereal_traces(&m, 400);
    let traced = Traced::new(m.clone());
    let set = record_traces(&traced, &traces, &m.initial_weights(), None);
    let bytes = set.layout().stores[0].bytes / set.len();
    assert!(bytes <= 200, "{bytes} bytes a position");
    // Safety weights that make the sums cross zero, both signs of the endgame.
    check(&m, &traces, &set, &moved(&m, 60.0, 2));
    check(&m, &traces, &set, &moved(&m, 300.0, 3));
}

#[test]
fn truncating_divisions_are_stored_as_real_divisions() {
    // Ethereal's divisions as it computes them (`trunc`), the taper included.
    let json = ethereal()
        .replace(
            "\"-s * max(s, 0) / 720 -",
            "\"trunc(-s * max(s, 0) / 720) -",
        )
        .replace("\"-max(s, 0) / 20\"", "\"trunc(-max(s, 0) / 20)\"")
        .replace(
            "\"terms\"",
            "\"eval\": \"trunc((mg * phase + trunc(eg * (phase_max - phase) * scale / 128)) / \
             phase_max)\", \"terms\"",
        );
    assert_eq!(json.matches("trunc(").count(), 4, "{json}");
    let m = Manifest::from_json(&json, "ethereal.json").unwrap();
    let traces = ethereal_traces(&m, 400);
    let traced = Traced::new(m.clone());
    let set = record_traces(&traced, &traces, &m.initial_weights(), None);
    let w = moved(&m, 60.0, 2);
    check(&m, &traces, &set, &w);
    // The store is the real division, not the engine's integers.
    let mut scratch = Scratch::default();
    let off = (0..set.len())
        .filter(|&i| {
            let t = &traces[set.targets()[i].group as usize];
            let engine: f64 = m.evaluate(t, &w).unwrap();
            assert_eq!(engine, engine.trunc());
            set.score(i, &w, &mut scratch) != engine
        })
        .count();
    assert!(off > set.len() / 2, "{off} of {}", set.len());
}

/// The fixture's manifest made linear: its king-safety elements' coefficients enter `mg`/`eg`
/// directly (no sum, no terms, no features): a linear manifest with the same traced nonzeros.
fn linearised(m: &Manifest) -> Manifest {
    let mut json = m.to_json_with(&m.initial_weights());
    let o = json.as_object_mut().unwrap();
    o.remove("terms");
    o.remove("features");
    for p in o["params"].as_array_mut().unwrap() {
        p.as_object_mut().unwrap().remove("sum");
    }
    Manifest::from_json(&json.to_string(), "linearised").unwrap()
}

/// Seconds a pass with the gradient takes (the best of `reps`).
fn pass_seconds(set: &CompiledSet, w: &[f64], reps: usize) -> f64 {
    let go = AtomicBool::new(false);
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let mut g = vec![0.0; w.len()];
        let t = std::time::Instant::now();
        let f = |_: usize, q: f64| (q * q * 1e-6, 2e-6 * q);
        set.pass(w, 0..set.len(), None, Some(&mut g), f, (&go).into());
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

/// Measures bytes a position and pass time of the C fixture's traces: the declared king
/// safety on the new store, the same traces under the linearised manifest (phased store),
/// and the per-position programs the traces were recorded as before. `GRADTUNE_POSITIONS`
/// positions (default 100,000).
#[test]
#[ignore = "measurement: run with --ignored --nocapture, nice -n 10"]
fn measure_the_c_fixtures_king_safety() {
    let n = std::env::var("GRADTUNE_POSITIONS").map_or(100_000, |v| v.parse().unwrap());
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = compile_fixture(dir.path()) else {
        return;
    };
    let (m, traces) = fixture_traces(&exe, &random_fens(n, 5));
    let lin = linearised(&m);
    assert!(lin.is_linear());
    let (w, wl) = (moved(&m, 20.0, 1), moved(&lin, 20.0, 1));
    let t = std::time::Instant::now();
    let set = record_traces(&Traced::new(m.clone()), &traces, &m.initial_weights(), None);
    let record = t.elapsed().as_secs_f64();
    let linear = record_traces(
        &Traced::new(lin.clone()),
        &traces,
        &lin.initial_weights(),
        None,
    );
    let t = std::time::Instant::now();
    let programs = CompiledSet::record(
        &m.initial_weights(),
        &traces,
        |_, t| texel::traced::label(t),
        |_, t, w: &[tape::Var]| m.evaluate(t, w).ok(),
        None,
    );
    let record_programs = t.elapsed().as_secs_f64();
    let each = |s: &CompiledSet| s.heap_bytes() as f64 / s.len() as f64;
    let (a, b, c) = (
        pass_seconds(&set, &w, 5),
        pass_seconds(&linear, &wl, 5),
        pass_seconds(&programs, &w, 3),
    );
    println!("{n} positions, {} threads", rayon::current_num_threads());
    println!("declared terms, new store: {:.0} bytes a position, pass {:.4} s, recorded in {record:.2} s; {:?}", each(&set), a, set.layout().stores);
    println!(
        "linearised manifest:       {:.0} bytes a position, pass {:.4} s; {:?}",
        each(&linear),
        b,
        linear.layout().stores
    );
    println!("per-position programs:     {:.0} bytes a position, pass {:.4} s, recorded in {record_programs:.2} s", each(&programs), c);
    println!(
        "speed against linear: {:.0}%; against programs: {:.1}x",
        100.0 * b / a,
        c / a
    );
}

/// The third engine's shape (issue 55): its king danger `-trunc((s - 30) *
/// count_modifier[king_attackers] / 128)` on the middlegame, per side, where the sum `s` adds
/// *untapered* (one-weight) attack and check powers times their counts and `count_modifier`
/// is an untapered table looked up by a per-position feature; beside it a tapered material
/// and table, an untapered tempo and a tapered `space` whose counts reach 150 (beyond the
/// packing's -64..=63 for one feature).
fn third_engine() -> String {
    let zeros = |n: usize| format!("[{}]", vec!["[0, 0]"; n].join(", "));
    format!(
        r#"{{"format": "gradtune-manifest", "version": 1, "engine": "third-shaped",
  "score": "white", "phase": {{"max": 24}},
  "params": [
    {{"name": "material", "shape": [5], "value": [[80, 100], [320, 300], [330, 320], [450, 520], [900, 950]]}},
    {{"name": "table", "shape": [64], "value": {table}}},
    {{"name": "tempo", "shape": [], "tapered": false, "value": 10}},
    {{"name": "space", "shape": [], "value": [2, 0]}},
    {{"name": "attack_power", "shape": [5], "tapered": false, "sum": "danger",
      "value": [0, 35, 20, 40, 80]}},
    {{"name": "check_power", "shape": [4], "tapered": false, "sum": "danger",
      "value": [60, 40, 50, 70]}},
    {{"name": "count_modifier", "shape": [8], "tapered": false,
      "value": [0, 0, 50, 75, 88, 94, 97, 99]}}
  ],
  "features": ["king_attackers"],
  "terms": [
    {{"name": "king_danger", "sum": "danger", "per_side": true,
     "mg": "-trunc((s - 30) * count_modifier[king_attackers] / 128)"}}
  ]}}"#,
        table = zeros(64)
    )
}

/// Random traces of [`third_engine`]'s manifest (each trace's `game` its number): element
/// indices are material 0..5, table 5..69, tempo 69, space 70, attack powers 71..76, check
/// powers 76..80.
fn third_traces(m: &Manifest, n: usize, seed: u64) -> Vec<Trace> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let fens = random_fens(n.min(2_000), seed);
    (0..n)
        .map(|i| {
            let mut ops = format!(
                "phase {}; const {}; t",
                rng.gen_range(0..=24),
                rng.gen_range(-40..40)
            );
            material_and_table(&mut rng, 20, &mut ops);
            ops += &format!(" 69:{}:{}", i % 2, 1 - i % 2);
            ops += &format!(" 70:{}:{}", rng.gen_range(0..150), rng.gen_range(0..20));
            for _ in 0..rng.gen_range(0..6) {
                let k = 71 + rng.gen_range(0..9);
                ops += &format!(" {k}:{}:{}", rng.gen_range(0..3), rng.gen_range(0..3));
            }
            let a = (rng.gen_range(0..8), rng.gen_range(0..8));
            ops += &format!("; f king_attackers:{}:{}", a.0, a.1);
            numbered(m, &format!("{} [0.5]; {ops}", fens[i % fens.len()]), i)
        })
        .collect()
}

#[test]
fn the_third_engines_shape_is_on_the_compact_store_and_exact() {
    let m = Manifest::from_json(&third_engine(), "third.json").unwrap();
    assert!(!m.is_linear());
    let traces = third_traces(&m, 400, 13);
    // The shape: untapered sums, a table by a feature, counts beyond one feature's range.
    let big = traces
        .iter()
        .filter(|t| t.coeffs.iter().any(|c| c.1 > 63.0));
    assert!(big.count() > 100);
    let traced = Traced::new(m.clone());
    let set = record_traces(&traced, &traces, &m.initial_weights(), None);
    let layout = set.layout();
    assert_eq!(layout.fallen_back(), 0, "{:?}", layout.warnings());
    let bytes = set.heap_bytes() / set.len();
    assert!(bytes <= 150, "{bytes} bytes a position: {layout:?}");
    // Attack powers that put `s` on both sides of 30, modifiers of both signs.
    check(&m, &traces, &set, &moved(&m, 40.0, 4));
    check(&m, &traces, &set, &m.initial_weights());
}

#[test]
fn a_fallback_names_the_parameter_and_the_fix() {
    let m = Manifest::from_json(&third_engine(), "third.json").unwrap();
    let mut traces = third_traces(&m, 200, 17);
    // A count no store packs (beyond 16 features), and a fractional count.
    for (i, t) in traces.iter_mut().enumerate() {
        let space = t.coeffs.iter_mut().find(|c| c.0 == 70).unwrap();
        match i % 10 {
            0 => (space.1, space.2) = (5000.0, 0.0),
            1 => (space.1, space.2) = (2.5, 0.0),
            _ => {}
        }
    }
    let traced = Traced::new(m.clone());
    let set = record_traces(&traced, &traces, &m.initial_weights(), None);
    let layout = set.layout();
    assert_eq!(layout.fallen_back(), 40, "{:?}", layout.warnings());
    let names = texel::tunable::Tunable::names(&traced);
    let warnings = layout.warnings_named(&|i| names[i as usize].clone());
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    let [fraction, far] = [&warnings[0], &warnings[1]];
    assert!(
        fraction.starts_with("20 positions kept as general programs")
            && fraction.contains(
                "non-integer coefficient (first: parameter `space.mg`, coefficient 2.5); fix: \
                 the count 2.5 of `space.mg` is not a whole number: trace whole counts"
            ),
        "{fraction}"
    );
    assert!(
        far.starts_with("20 positions kept as general programs")
            && far.contains("coefficient out of range (first: parameter `space.mg`, coefficient")
            && far.contains("split `space.mg` into several elements"),
        "{far}"
    );
    // The positions there are the same values all the same.
    check_values(&m, &traces, &set, &moved(&m, 40.0, 5));
}

/// A manifest and its traces from `dir` (`NAME.json`, `NAME.txt`, as `scripts/third-shape.py`
/// writes them), each trace's `game` its number.
fn read_dir_traces(dir: &Path, name: &str) -> (Manifest, Vec<Trace>) {
    let json = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
    let m = Manifest::from_json(&json, name).unwrap();
    let text = std::fs::read_to_string(dir.join(format!("{name}.txt"))).unwrap();
    let traces = text
        .lines()
        .enumerate()
        .map(|(i, l)| numbered(&m, l, i))
        .collect();
    (m, traces)
}

/// Measures bytes a position and pass time of the third engine's shape against the linear
/// manifest of the same nonzeros, on the traces `scripts/third-shape.py N DIR` writes
/// (`GRADTUNE_THIRD=DIR`).
#[test]
#[ignore = "measurement: GRADTUNE_THIRD=DIR, run with --ignored --nocapture, nice -n 10"]
fn measure_the_third_engines_shape() {
    let Ok(dir) = std::env::var("GRADTUNE_THIRD") else {
        eprintln!(
            "skipped: GRADTUNE_THIRD=DIR names the traces `scripts/third-shape.py N DIR` writes"
        );
        return;
    };
    let dir = PathBuf::from(dir);
    let (m, traces) = read_dir_traces(&dir, "third");
    let shape = m.head_shape();
    let head = Tape::new().record(|rec| {
        let x = rec.inputs(&vec![1.0; shape.inputs()]);
        rec.compile(m.head(&shape, &x).unwrap())
    });
    println!(
        "head: {} inputs ({} twin groups, {} picks, {} scalars), {} nodes, {} terms",
        shape.inputs(),
        shape.twins,
        shape.picks,
        shape.scalars(),
        head.nodes(),
        head.terms()
    );
    let set = record_traces(&Traced::new(m.clone()), &traces, &m.initial_weights(), None);
    drop(traces);
    let (lin, traces) = read_dir_traces(&dir, "linear");
    let linear = record_traces(
        &Traced::new(lin.clone()),
        &traces,
        &lin.initial_weights(),
        None,
    );
    // The same with 16 more untapered weights nothing reads: more than 512 pairs and
    // singles, the wider packing (as the third engine's shape has, with its 16 modifiers).
    let mut json = lin.to_json_with(&lin.initial_weights());
    let extra = serde_json::json!({"name": "unused", "shape": [16], "tapered": false,
                                   "value": vec![0; 16]});
    json["params"].as_array_mut().unwrap().push(extra);
    let wide = Manifest::from_json(&json.to_string(), "wide").unwrap();
    let linear_wide = record_traces(
        &Traced::new(wide.clone()),
        &traces,
        &wide.initial_weights(),
        None,
    );
    drop(traces);
    let ww = moved(&wide, 20.0, 1);
    let c = pass_seconds(&linear_wide, &ww, 7);
    println!("linear, wider packing: pass {c:.4} s");
    let (w, wl) = (moved(&m, 20.0, 1), moved(&lin, 20.0, 1));
    let each = |s: &CompiledSet| s.heap_bytes() as f64 / s.len() as f64;
    let (a, b) = (pass_seconds(&set, &w, 7), pass_seconds(&linear, &wl, 7));
    println!(
        "{} positions, {} threads",
        set.len(),
        rayon::current_num_threads()
    );
    println!(
        "third engine's shape: {:.0} bytes a position, pass {a:.4} s; {:?}; fallbacks {:?}",
        each(&set),
        set.layout().stores,
        set.layout().fallbacks
    );
    println!(
        "linear, same nonzeros: {:.0} bytes a position, pass {b:.4} s; {:?}",
        each(&linear),
        linear.layout().stores
    );
    println!("speed against linear: {:.0}%", 100.0 * b / a);
}
