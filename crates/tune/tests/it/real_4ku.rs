//! 4ku, a real engine nobody on this project wrote, speaks gradtune's protocols:
//! `engines/4ku/gradtune.patch` applies to the pinned snapshot and builds
//! (`engines/4ku/build.sh`), `tune trace --engine` traces TCEC positions with 4ku's own
//! evaluation and `tune verify` rebuilds every one of them from `engines/4ku/manifest.json`,
//! and the weights set as UCI spin options are the weights the engine evaluates with.
//!
//! These tests need `../shared/engines/4ku-917a087.tar.zst` and `../shared/data` (ignored by
//! default; `.ci/run` runs them) and a C++ compiler (`g++`; skipped without one).

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;

use common::{arg, run, shared, splice, tools};

/// A file of the shared engines folder (`../shared/engines` beside the checkout, or beside
/// `$GRADTUNE_SHARED_DATA`). Panics, naming the path, when it is missing.
fn shared_engine(file: &str) -> PathBuf {
    let data = std::env::var_os("GRADTUNE_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    let path = data.join("../engines").join(file);
    assert!(
        path.is_file(),
        "engine snapshot {} is missing: this test needs ../shared/engines beside the repository",
        path.display()
    );
    path
}

fn repo(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(file)
}

/// The patched 4ku, built once per test run with `engines/4ku/build.sh` (`None`: no `g++`).
fn engine() -> Option<&'static Path> {
    static BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    BUILT.get_or_init(|| build_patched(&[])).as_deref()
}

/// 4ku with `engines/4ku/terms.patch` on top (the side-to-move bonus tuned and the
/// catalogue's threats), built once per test run (`None`: no `g++`).
fn terms_engine() -> Option<&'static Path> {
    static BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    BUILT
        .get_or_init(|| build_patched(&["engines/4ku/terms.patch"]))
        .as_deref()
}

/// The snapshot built with `engines/4ku/build.sh` and the `extra` patches after gradtune's.
fn build_patched(extra: &[&str]) -> Option<PathBuf> {
    if !tools::have("g++", "this test builds 4ku") {
        return None;
    }
    let snapshot = shared_engine("4ku-917a087.tar.zst");
    // Kept for the whole run (the tests share the binary); removed by the OS's /tmp.
    let dir = tempfile::tempdir().unwrap().keep();
    let out = Command::new("bash")
        .arg(repo("engines/4ku/build.sh"))
        .arg(&snapshot)
        .arg(&dir)
        .args(extra.iter().map(|p| repo(p)))
        .output()
        .expect("bash runs");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "engines/4ku/build.sh failed: {said}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let exe = PathBuf::from(stdout.lines().last().expect("build.sh prints the binary"));
    assert!(
        exe.is_file(),
        "build.sh printed {}: no such file",
        exe.display()
    );
    Some(exe)
}

/// TCEC positions (every position of the first `games` games after the opening plies, no
/// quiescence filter: the trace needs no quiet positions), written as EPD to `dir`.
fn tcec_positions(dir: &Path, per_game: &str) -> PathBuf {
    let epd = dir.join("tcec.epd");
    let r = run(&[
        "extract",
        arg(&shared("tcec-standard.pgn.zst")),
        "--filter",
        "none",
        "--max-per-game",
        per_game,
        "-o",
        arg(&epd),
    ]);
    assert_eq!(r.code, Some(0), "tune extract failed: {}", r.stderr);
    epd
}

/// 4ku running, spoken to line by line.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Engine {
    fn start(exe: &Path) -> Engine {
        let mut child = Command::new(exe)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("4ku starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Engine {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
    }

    /// Sends `line` and returns the first answer line starting with `prefix`, and the lines
    /// before it.
    fn ask(&mut self, line: &str, prefix: &str) -> (String, Vec<String>) {
        self.send(line);
        self.stdin.flush().unwrap();
        let mut before = Vec::new();
        loop {
            let mut answer = String::new();
            let n = self.stdout.read_line(&mut answer).unwrap();
            assert!(n > 0, "4ku ended before answering `{line}`");
            let answer = answer.trim_end().to_string();
            if answer.starts_with(prefix) {
                return (answer, before);
            }
            before.push(answer);
        }
    }

    /// The names of the `spin` options declared in the `uci` handshake.
    fn spin_options(&mut self) -> Vec<String> {
        let (_, lines) = self.ask("uci", "uciok");
        lines
            .iter()
            .filter_map(|l| l.strip_prefix("option name "))
            .filter_map(|l| l.split_once(" type spin "))
            .map(|(name, _)| name.to_string())
            .collect()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}

/// The number after `key` in a trace answer (`eval 12.5; ...`).
fn op(answer: &str, key: &str) -> f64 {
    answer
        .split(';')
        .map(|o| o.trim().trim_start_matches("trace").trim())
        .find_map(|o| o.strip_prefix(key).and_then(|v| v.trim().parse().ok()))
        .unwrap_or_else(|| panic!("no `{key}` in {answer}"))
}

#[test]
#[ignore = "needs ../shared/engines and ../shared/data: 4ku traced on 100,000+ TCEC positions"]
fn tune_verify_rebuilds_4kus_evaluation_of_tcec_positions() {
    let Some(exe) = engine() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let epd = tcec_positions(dir.path(), "7");
    let traces = dir.path().join("4ku.trace.zst");
    let manifest = repo("engines/4ku/manifest.json");
    let r = run(&[
        "trace",
        "--engine",
        arg(exe),
        "--manifest",
        arg(&manifest),
        "--jobs",
        "2",
        arg(&epd),
        "-o",
        arg(&traces),
    ]);
    assert_eq!(r.code, Some(0), "tune trace failed: {}", r.stderr);
    let r = run(&[
        "verify",
        "--trace",
        arg(&traces),
        "--manifest",
        arg(&manifest),
    ]);
    let said = format!("{}{}", r.stdout, r.stderr);
    assert_eq!(r.code, Some(0), "tune verify found differences: {said}");
    let m = trace::Manifest::load(&manifest).unwrap();
    let (read, report) = trace::read_traces(&[traces], &m, &trace::ReadOptions::default()).unwrap();
    assert!(
        read.len() >= 100_000,
        "{} positions traced, the requirement is 100,000 ({report:?})",
        read.len()
    );
    assert!(
        read.iter().all(|t| t.eval.is_some()),
        "every trace carries 4ku's eval"
    );
    // Each trace is of its own position: its material counts (indices 0-5) are the FEN's
    // pieces (an engine that lost the first `position` after a start or a restart traced
    // the start position instead, and `verify` alone cannot see that).
    for t in &read {
        let fen = t.fen();
        let board = fen.split(' ').next().unwrap();
        for (index, piece) in "pnbrqk".chars().enumerate() {
            let count = |c: char| board.chars().filter(|&x| x == c).count() as f32;
            let expected = (count(piece.to_ascii_uppercase()), count(piece));
            let traced = t
                .coeffs
                .iter()
                .find(|c| c.0 == index as u32)
                .map_or((0.0, 0.0), |c| (c.1, c.2));
            assert_eq!(traced, expected, "material[{index}] of {fen}");
        }
    }
}

/// The manifest with every weight moved (a different amount for each, up to 9 either way;
/// the knight's middlegame material by 100), written to `dir/moved.json`.
fn moved_manifest(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(repo("engines/4ku/manifest.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut k = 0i64;
    fn walk(v: &mut serde_json::Value, k: &mut i64) {
        match v {
            serde_json::Value::Array(items) => items.iter_mut().for_each(|x| walk(x, k)),
            serde_json::Value::Number(n) => {
                *k += 1;
                let moved = n.as_i64().unwrap() + (*k * 7919 % 19) - 9;
                *v = serde_json::Value::from(moved);
            }
            _ => {}
        }
    }
    for p in doc["params"].as_array_mut().unwrap() {
        walk(&mut p["value"], &mut k);
    }
    let knight = &mut doc["params"][0]["value"][1][0];
    *knight = serde_json::Value::from(knight.as_i64().unwrap() + 100);
    let path = dir.join("moved.json");
    std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
    path
}

/// Traces every position of `fens` with 4ku as it is set now and checks each answer: the
/// rebuilt evaluation at `manifest`'s values equals 4ku's exact `eval`, and `int_eval` is
/// within the truncation bound of it.
fn check_traces(e: &mut Engine, fens: &[String], manifest: &trace::Manifest, label: &str) {
    let weights = manifest.initial_weights();
    let mut off_by_more_than_one = 0;
    let mut above_max = 0;
    for fen in fens {
        e.send(&format!("position fen {fen} 0 1"));
        let (answer, _) = e.ask("trace", "trace");
        // `eval`: 4ku's evaluation before its integer truncations, from the same sums;
        // `int_eval`: what eval() returns: the endgame half scaled with integer division,
        // then the taper divided by 24, both truncating: less than 1 + |24 - phase| / 24
        // from the exact value.
        let exact = op(&answer, "eval");
        let int_eval = op(&answer, "int_eval");
        let phase = op(&answer, "phase");
        let bound = 1.0 + (24.0 - phase).abs() / 24.0;
        assert!(
            (int_eval - exact).abs() < bound,
            "{label}: {fen}: int_eval {int_eval}, exact {exact}, phase {phase}"
        );
        off_by_more_than_one += usize::from((int_eval - exact.round()).abs() > 1.0);
        if phase > 24.0 {
            // Refused by this manifest (`phase` max 24; 4ku does not clamp it).
            above_max += 1;
            continue;
        }
        let line = trace::parse_engine_answer(&answer, &format!("{fen} 0 1"), "[0.5]", manifest)
            .unwrap_or_else(|err| panic!("{label}: {fen}: {err}: {answer}"));
        let t = trace::parse_line(&line, manifest).unwrap().unwrap();
        let rebuilt = manifest.evaluate(&t, &weights).unwrap();
        assert!(
            (rebuilt - exact).abs() < 1e-3,
            "{label}: {fen}: rebuilt {rebuilt}, 4ku {exact}"
        );
    }
    assert!(
        above_max < fens.len() / 100,
        "{above_max} positions above phase 24"
    );
    eprintln!(
        "{label} weights: {} positions, rebuilt = 4ku's exact evaluation ({above_max} with \
         phase > 24 not rebuilt); its integer result more than 1 cp from the rounded exact \
         value in {off_by_more_than_one}",
        fens.len()
    );
}

#[test]
#[ignore = "needs ../shared/engines and ../shared/data: 4ku with weights set by spin options"]
fn weights_set_by_spin_options_are_the_weights_4ku_evaluates_with() {
    let Some(exe) = engine() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let epd = tcec_positions(dir.path(), "1");
    let fens: Vec<String> = std::fs::read_to_string(&epd)
        .unwrap()
        .lines()
        .take(3000)
        .map(|l| l.split_whitespace().take(4).collect::<Vec<_>>().join(" "))
        .collect();
    let shipped = trace::Manifest::load(&repo("engines/4ku/manifest.json")).unwrap();
    let moved = trace::Manifest::load(&moved_manifest(dir.path())).unwrap();
    let options = trace::uci_options(&moved).unwrap();

    let mut e = Engine::start(exe);
    let declared = e.spin_options();
    let tuned: Vec<&String> = declared
        .iter()
        .filter(|n| *n != "Threads" && *n != "Hash")
        .collect();
    let names: Vec<&String> = options.iter().map(|(n, _)| n).collect();
    assert_eq!(
        tuned, names,
        "4ku's options are the manifest's weights, in order"
    );

    for (manifest, label) in [(&shipped, "shipped"), (&moved, "moved")] {
        if label == "moved" {
            for (name, value) in &options {
                e.send(&format!("setoption name {name} value {value}"));
            }
        }
        check_traces(&mut e, &fens, manifest, label);
    }
    // The moved weights really changed the evaluation (the knight by 100 among others).
    e.send("position fen rnbqkbnr/pppppppp/8/8/8/4N3/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    let (with_moved, _) = e.ask("trace", "trace");
    let mut fresh = Engine::start(exe);
    fresh.send("position fen rnbqkbnr/pppppppp/8/8/8/4N3/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    let (with_shipped, _) = fresh.ask("trace", "trace");
    assert_ne!(op(&with_moved, "eval"), op(&with_shipped, "eval"));
}

#[test]
#[ignore = "needs ../shared/engines: 4ku plays `go nodes` and `go movetime`"]
fn go_nodes_and_go_movetime_end_with_a_move() {
    let Some(exe) = engine() else {
        return;
    };
    let mut e = Engine::start(exe);
    e.spin_options();
    e.send("position startpos moves e2e4");
    let (best, info) = e.ask("go nodes 2000", "bestmove");
    assert!(best.len() > "bestmove ".len(), "{best}");
    let searched: u64 = info
        .iter()
        .filter_map(|l| l.split(" nodes ").nth(1))
        .filter_map(|n| n.split_whitespace().next()?.parse().ok())
        .max()
        .expect("info lines with nodes");
    assert!(
        searched < 20_000,
        "`go nodes 2000` searched {searched} nodes"
    );
    let started = std::time::Instant::now();
    let (best, _) = e.ask("go movetime 200", "bestmove");
    assert!(best.len() > "bestmove ".len(), "{best}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "`go movetime 200` took {:?}",
        started.elapsed()
    );
}

/// The node count `bench` prints (`Bench: T ms N nodes R nps`).
fn bench_nodes(exe: &Path) -> u64 {
    let out = Command::new(exe).arg("bench").output().expect("4ku runs");
    let said = String::from_utf8_lossy(&out.stdout);
    let line = said
        .lines()
        .find(|l| l.starts_with("Bench: "))
        .unwrap_or_else(|| panic!("{} bench printed no `Bench:` line", exe.display()));
    let nodes = line.split(" ms ").nth(1).and_then(|r| r.split(' ').next());
    nodes
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("cannot read the nodes of `{line}`"))
}

#[test]
#[ignore = "needs ../shared/engines: the patched 4ku searches exactly as the shipped one"]
fn the_patched_engine_searches_the_same_tree_as_the_shipped_one() {
    let Some(patched) = engine() else {
        return;
    };
    // The shipped 4ku, unpatched, built as its README says.
    let dir = tempfile::tempdir().unwrap();
    let src = unpack_snapshot(dir.path());
    let shipped = build_4ku(&src, &dir.path().join("4ku-shipped"));
    // `bench` searches 25 positions to fixed depths: the same node count means the same
    // evaluation at every node (and the same search), so the trace hook changed nothing.
    assert_eq!(bench_nodes(patched), bench_nodes(&shipped));
}

/// The snapshot unpacked into `dir`: the path of its `src/main.cpp`.
fn unpack_snapshot(dir: &Path) -> PathBuf {
    let snapshot = shared_engine("4ku-917a087.tar.zst");
    let unpacked = Command::new("tar")
        .arg("--zstd")
        .arg("-xf")
        .arg(&snapshot)
        .arg("-C")
        .arg(dir)
        .status()
        .expect("tar runs");
    assert!(unpacked.success(), "cannot unpack {}", snapshot.display());
    dir.join("4ku/src/main.cpp")
}

/// `src` built into `exe` as 4ku's README builds it.
fn build_4ku(src: &Path, exe: &Path) -> PathBuf {
    let built = Command::new("g++")
        .args(["-std=c++20", "-O3", "-march=native", "-o"])
        .arg(exe)
        .arg(src)
        .output()
        .expect("g++ runs");
    let said = String::from_utf8_lossy(&built.stderr);
    assert!(
        built.status.success(),
        "{} does not build: {said}",
        src.display()
    );
    exe.to_path_buf()
}

#[test]
#[ignore = "needs ../shared/engines: emitted weights replace 4ku's own in its source"]
fn emitted_weights_drop_into_4kus_source_in_place() {
    let Some(patched) = engine() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let emitted = dir.path().join("weights.h");
    let r = run(&[
        "emit",
        arg(&repo("engines/4ku/manifest.json")),
        "--template",
        arg(&repo("engines/4ku/emit.cpp.jinja")),
        "-o",
        arg(&emitted),
    ]);
    assert_eq!(r.code, Some(0), "tune emit failed: {}", r.stderr);
    // The block from `max_material` to `king_shield` of the shipped source, replaced by the
    // emitted text (derived `max_material` included), as an author pastes it.
    let src = unpack_snapshot(dir.path());
    let text = std::fs::read_to_string(&src).unwrap();
    let block = std::fs::read_to_string(&emitted).unwrap();
    let spliced = splice(
        &text,
        "const i32 max_material[]",
        "const i32 king_shield[]",
        &block,
    );
    let with = dir.path().join("4ku/src/emitted.cpp");
    std::fs::write(&with, spliced).unwrap();
    let rebuilt = build_4ku(&with, &dir.path().join("4ku-emitted"));
    // The shipped weights, emitted and compiled in 4ku's own layout, search the same tree.
    assert_eq!(bench_nodes(&rebuilt), bench_nodes(patched));
}

/// Issue 54's 4ku port: `engines/4ku/terms.patch` applies on top of gradtune's patch and
/// builds; at the values of `engines/4ku/terms-manifest.json` (the bonus at 4ku's old
/// constant, the threats at 0) it searches the same tree as the engine without the terms;
/// traced at those values and at moved ones (every new weight set by a spin option), `tune
/// verify` rebuilds every evaluation and the port check finds the engine's counts of `tempo`
/// and `threats` equal to the catalogue's on every position.
#[test]
#[ignore = "needs ../shared/engines/4ku-917a087.tar.zst and ../shared/data; run by .ci/run"]
fn the_terms_patch_builds_plays_as_shipped_and_its_ports_verify() {
    let (Some(terms), Some(plain)) = (terms_engine(), engine()) else {
        return;
    };
    assert_eq!(bench_nodes(terms), bench_nodes(plain));
    let dir = tempfile::tempdir().unwrap();
    let epd = tcec_positions(dir.path(), "2");
    let manifest = repo("engines/4ku/terms-manifest.json");
    let m = trace::Manifest::load(&manifest).unwrap();
    // Moved: the bonus and every threat weight away from the start, all different.
    let mut w = m.initial_weights();
    let mut options = Vec::new();
    for (k, info) in m.weights().iter().enumerate() {
        if info.group == "tempo" || info.group == "threats" {
            w[k] += 7.0 + 3.0 * (k % 11) as f64;
            options.push(format!("{}={}", trace::uci_option_name(&info.name), w[k]));
        }
    }
    assert_eq!(options.len(), 34);
    let moved = dir.path().join("moved.json");
    std::fs::write(&moved, m.to_json_string_with(&w)).unwrap();
    for (label, at, extra) in [("start", &manifest, Vec::new()), ("moved", &moved, options)] {
        let traces = dir.path().join(format!("{label}.txt"));
        let mut a = vec![
            "trace",
            arg(&epd),
            "--engine",
            arg(terms),
            "--manifest",
            arg(at),
        ];
        a.extend(["--jobs", "2", "-o", arg(&traces)]);
        for o in &extra {
            a.extend(["--uci-option", o.as_str()]);
        }
        let r = run(&a);
        assert_eq!(r.code, Some(0), "{label}: tune trace failed: {}", r.stderr);
        let r = run(&["verify", "--trace", arg(&traces), "--manifest", arg(at)]);
        let said = format!("{}{}", r.stdout, r.stderr);
        assert_eq!(r.code, Some(0), "{label}: tune verify failed: {said}");
        assert!(said.contains("all match within 1"), "{label}: {said}");
        for port in [
            "port tempo of catalogue group `tempo`: all",
            "port threats of catalogue group `threats`: all",
        ] {
            assert!(said.contains(port), "{label}: {said}");
        }
        let n = said
            .split("port threats of catalogue group `threats`: all ")
            .nth(1)
            .and_then(|t| t.split_whitespace().next())
            .and_then(|t| t.parse::<usize>().ok())
            .expect("the port check's count");
        assert!(n > 20_000, "{label}: only {n} positions checked: {said}");
    }
}
