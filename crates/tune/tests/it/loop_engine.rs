//! The closed loop for an external engine, on the C fixture of `fixtures/trace-engine` (built
//! with the system C compiler; skipped with a message where `cc` is missing): `tune selfplay`'s
//! shards merge into the file one machine writes, byte for byte; `tune loop` continued after
//! a stop (between generations, or by Ctrl-C anywhere) writes what an uninterrupted loop
//! writes; an engine that crashes every few moves inside the loop is restarted, and every
//! failure and forfeit is counted.
//!
//! The fixture searches without a hash table, resetting its node count at every `go`: at a
//! fixed node count it plays the same move for the same position and line every time, which
//! is what the byte-for-byte comparisons rely on.

use crate::clock;
use crate::common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{arg, compile_fixture, run, signal, tools, tune, wait_for_sigint_handler};
use serde_json::Value;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

/// A temporary folder with the fixture compiled into it and its manifest (`m.json`), or
/// `None` without `cc`.
struct Fixture {
    dir: tempfile::TempDir,
    exe: PathBuf,
    manifest: PathBuf,
}

fn fixture() -> Option<Fixture> {
    let dir = tempfile::tempdir().unwrap();
    let exe = compile_fixture(dir.path())?;
    let manifest = dir.path().join("m.json");
    let r = run(&[
        "trace",
        "--engine",
        arg(&exe),
        "--manifest-out",
        arg(&manifest),
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    Some(Fixture { dir, exe, manifest })
}

/// `tune selfplay` of `engine` with the manifest's weights, `games` games at 300 nodes, plus
/// `extra` arguments; what it said, after asserting it succeeded.
fn selfplay(engine: &str, manifest: &Path, out: &Path, games: &str, extra: &[&str]) -> common::Ran {
    let mut args = vec![
        "selfplay",
        "--engine",
        engine,
        "--weights",
        arg(manifest),
        "--games",
        games,
        "--nodes",
        "300",
        "--threads",
        "2",
        "-o",
        arg(out),
    ];
    args.extend_from_slice(extra);
    let r = run(&args);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    r
}

#[test]
fn two_shards_merged_are_one_run_byte_for_byte() {
    let Some(Fixture { dir, exe, manifest }) = fixture() else {
        return;
    };
    let (whole, p0, p1, merged) = (
        dir.path().join("whole.epd"),
        dir.path().join("p0.epd"),
        dir.path().join("p1.epd"),
        dir.path().join("merged.epd"),
    );
    let exe_cmd = arg(&exe);
    selfplay(exe_cmd, &manifest, &whole, "6", &[]);
    selfplay(exe_cmd, &manifest, &p0, "6", &["--shard", "0/2"]);
    selfplay(exe_cmd, &manifest, &p1, "6", &["--shard", "1/2"]);
    // The parts in either order.
    let r = run(&[
        "selfplay",
        "--merge",
        arg(&p1),
        arg(&p0),
        "-o",
        arg(&merged),
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let (a, b) = (
        std::fs::read(&whole).unwrap(),
        std::fs::read(&merged).unwrap(),
    );
    assert!(!a.is_empty());
    assert!(a == b, "the merged shards differ from the one-machine run");

    // Each shard holds its own games, numbered globally; every line is a quiet position with
    // a result, a score and a game id.
    let text = String::from_utf8(a).unwrap();
    let games = |path: &Path| -> Vec<u32> {
        let mut g: Vec<u32> = std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(game_id)
            .collect();
        g.dedup();
        g
    };
    assert_eq!(games(&p0), [0, 2, 4]);
    assert_eq!(games(&p1), [1, 3, 5]);
    for line in text.lines() {
        assert!(line.contains(" ce "), "{line}");
        let fen = line
            .split_whitespace()
            .take(4)
            .collect::<Vec<_>>()
            .join(" ");
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        assert!(!pos.is_check(), "a position in check was kept: {line}");
    }

    // A shard given twice is refused, naming the game.
    let r = run(&[
        "selfplay",
        "--merge",
        arg(&p0),
        arg(&p0),
        "-o",
        arg(&merged),
    ]);
    assert_ne!(r.code, Some(0));
    assert!(r.stderr.contains("two parts"), "{}", r.stderr);

    // `tune trace` reads the file: every position traced.
    let traces = dir.path().join("t.txt");
    let r = run(&[
        "trace",
        "--engine",
        arg(&exe),
        "--manifest",
        arg(&manifest),
        arg(&whole),
        "-o",
        arg(&traces),
        "--jobs",
        "1",
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let traced = std::fs::read_to_string(&traces)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .count();
    assert_eq!(traced, text.lines().count());
}

/// The `game N` of an EPD line.
fn game_id(line: &str) -> u32 {
    let at = line.rfind("game ").expect("a game id");
    line[at + 5..]
        .trim_end_matches(';')
        .trim()
        .parse()
        .expect("a number")
}

/// `tune loop` arguments for the fixture: small and fast, fixed nodes.
fn loop_args(engine: &str, manifest: &Path, out: &Path, generations: u32) -> Vec<String> {
    let mut v: Vec<String> = [
        "loop",
        "--engine",
        engine,
        "--manifest",
        arg(manifest),
        "--out",
        arg(out),
        "--games",
        "8",
        "--nodes",
        "300",
        "--gate-openings",
        "8",
        "--gate-nodes",
        "300",
        "--gate-batch",
        "4",
        "--vs-start-openings",
        "4",
        "--vs-start-more",
        "4",
        "--max-iters",
        "15",
        "--threads",
        "2",
        "--trace-jobs",
        "2",
        "--generations",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push(generations.to_string());
    v
}

fn run_loop(args: &[String]) -> common::Ran {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&args)
}

/// [`run_loop`], asserting that it succeeded.
fn run_loop_ok(args: &[String]) -> common::Ran {
    let r = run_loop(args);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    r
}

/// The files of a loop that must not depend on how it was run.
fn loop_files(out: &Path) -> Vec<(String, Vec<u8>)> {
    let mut names = vec![
        "state.json".to_string(),
        "ladder.md".to_string(),
        "ladder.svg".to_string(),
        "best.json".to_string(),
    ];
    for g in 0..=2 {
        names.push(format!("gen{g:03}/weights.json"));
        names.push(format!("gen{g:03}/options.txt"));
    }
    for g in 1..=2 {
        for f in ["selfplay.epd", "traces.txt", "tune/weights.json"] {
            names.push(format!("gen{g:03}/{f}"));
        }
    }
    names
        .into_iter()
        .map(|n| {
            let bytes = std::fs::read(out.join(&n))
                .unwrap_or_else(|e| panic!("{}: {e}", out.join(&n).display()));
            (n, bytes)
        })
        .collect()
}

fn assert_same_loop(a: &Path, b: &Path) {
    for ((name, x), (_, y)) in loop_files(a).into_iter().zip(loop_files(b)) {
        assert!(
            x == y,
            "{name} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

#[test]
fn a_resumed_loop_equals_an_uninterrupted_one() {
    let Some(Fixture { dir, exe, manifest }) = fixture() else {
        return;
    };
    let engine = exe.display().to_string();
    let straight = dir.path().join("straight");
    run_loop_ok(&loop_args(&engine, &manifest, &straight, 2));
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(straight.join("state.json")).unwrap())
            .unwrap();
    let gens = state["generations"].as_array().unwrap();
    assert_eq!(gens.len(), 3);
    for g in &gens[1..] {
        assert_eq!(g["selfplay"]["games"], 8);
        assert!(g["trace"]["positions"].as_u64().unwrap() > 0);
        assert!(g["gate"]["match"]["games"].as_u64().unwrap() >= 8);
    }
    // The ladder plot: well-formed SVG with both series and a point of each per generation.
    let svg = std::fs::read_to_string(straight.join("ladder.svg")).unwrap();
    if let Err(e) = well_formed(&svg) {
        panic!("ladder.svg is not well-formed: {e}\n{svg}");
    }
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("accepted gates, summed"), "{svg}");
    assert!(svg.contains("each gate: candidate vs current"), "{svg}");
    let ladder = std::fs::read_to_string(straight.join("ladder.md")).unwrap();
    assert!(ladder.contains("| start | +0 [+0, +0] |"), "{ladder}");
    // The kept weights are a manifest the engine takes: its options file names them.
    let options = std::fs::read_to_string(straight.join("gen002/options.txt")).unwrap();
    assert!(options.starts_with("material_0_mg "), "{options}");
    // ... and they are the integers the engine plays (the tuning's `weights-int.json`), not
    // the unrounded optimum: the next generation's traces, made with them, must verify.
    for (g, gen) in gens.iter().enumerate().skip(1) {
        let kept = straight.join(format!("gen{g:03}/weights.json"));
        let m: Value = serde_json::from_str(&std::fs::read_to_string(&kept).unwrap()).unwrap();
        for p in m["params"].as_array().unwrap() {
            if p["integer"] == Value::Bool(true) {
                assert_whole(&p["value"], &kept, &p["name"]);
            }
        }
        if gen["gate"]["keep"] == "new" {
            let int = straight.join(format!("gen{g:03}/tune/weights-int.json"));
            assert_eq!(std::fs::read(&kept).unwrap(), std::fs::read(&int).unwrap());
        }
    }

    // Stopped between generations, then asked for more; the state as a binary from before
    // time controls wrote it (no `time_losses` in self-play: read as 0, no `clock`: fixed
    // nodes), so a loop directory of that binary continues with this one.
    let split = dir.path().join("split");
    run_loop_ok(&loop_args(&engine, &manifest, &split, 1));
    let state_path = split.join("state.json");
    let mut old: Value =
        serde_json::from_str(&std::fs::read_to_string(&state_path).unwrap()).unwrap();
    assert!(old["settings"].get("clock").is_none());
    let sp = old["generations"][1]["selfplay"].as_object_mut().unwrap();
    assert_eq!(sp.remove("time_losses"), Some(Value::from(0)));
    std::fs::write(&state_path, serde_json::to_string_pretty(&old).unwrap()).unwrap();
    let r = run_loop_ok(&loop_args(&engine, &manifest, &split, 2));
    assert!(r.stderr.contains("continuing"), "{}", r.stderr);
    assert_same_loop(&straight, &split);

    // Ctrl-C once the first step is saved (wherever the loop then is), then the same command.
    let stopped = dir.path().join("stopped");
    let args = loop_args(&engine, &manifest, &stopped, 2);
    let child = tune()
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(wait_for_sigint_handler(child.id(), Duration::from_secs(30)));
    let t0 = Instant::now();
    while !std::fs::read_to_string(stopped.join("state.json"))
        .is_ok_and(|s| s.contains("\"selfplay\": {"))
    {
        assert!(t0.elapsed() < Duration::from_secs(120), "no step was saved");
        std::thread::sleep(Duration::from_millis(20));
    }
    signal(child.id(), "INT");
    let out = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{said}");
    run_loop_ok(&args);
    assert_same_loop(&straight, &stopped);

    // Other settings on the same directory are refused, naming them.
    let mut other = loop_args(&engine, &manifest, &straight, 3);
    other.extend(["--seed".to_string(), "2".to_string()]);
    let r = run_loop(&other);
    assert_ne!(r.code, Some(0));
    assert!(r.stderr.contains("seed"), "{}", r.stderr);
}

/// Fails unless every number in `v` (a parameter's value, nested arrays) is whole.
fn assert_whole(v: &Value, file: &Path, name: &Value) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| assert_whole(x, file, name)),
        Value::Number(n) => {
            let x = n.as_f64().unwrap();
            assert_eq!(x.fract(), 0.0, "{}: {name} holds {x}", file.display());
        }
        other => panic!("{}: {name} holds {other}", file.display()),
    }
}

/// A python3 wrapper around the fixture that passes every line through and, on its `n`th
/// `go`, crashes (exit 3) or hangs (`mode`), in every process it runs in; `None` without
/// python3.
fn misbehaving_player(dir: &Path, exe: &Path, mode: &str, n: u32) -> Option<String> {
    if !tools::have("python3", "the misbehaving player is a python3 script") {
        return None;
    }
    let script = dir.join("crash_after.py");
    std::fs::write(
        &script,
        r#"import subprocess, sys, threading, time
exe, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
child = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def forward():
    for line in child.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
threading.Thread(target=forward, daemon=True).start()
goes = 0
for line in sys.stdin:
    if line.startswith("go"):
        goes += 1
        if goes == n:
            if mode == "crash":
                child.kill()
                sys.exit(3)
            while True:
                time.sleep(3600)
    child.stdin.write(line)
    child.stdin.flush()
    if line.strip() == "quit":
        break
child.wait()
"#,
    )
    .unwrap();
    Some(format!(
        "python3 '{}' '{}' {mode} {n}",
        script.display(),
        exe.display()
    ))
}

#[test]
fn a_crashing_engine_inside_the_loop_is_restarted_and_counted() {
    let Some(Fixture { dir, exe, manifest }) = fixture() else {
        return;
    };
    let Some(engine) = misbehaving_player(dir.path(), &exe, "crash", 40) else {
        return;
    };
    let out = dir.path().join("crashy");
    let r = run_loop_ok(&loop_args(&engine, &manifest, &out, 1));
    assert!(r.stderr.contains("engine failures"), "{}", r.stderr);
    assert!(r.stderr.contains("exited"), "{}", r.stderr);
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("state.json")).unwrap()).unwrap();
    let g = &state["generations"][1];
    // Every game is accounted for: played to its end (the engine restarted and asked again)
    // or forfeited and counted; the failures are in the state.
    let sp = &g["selfplay"];
    assert_eq!(sp["games"], 8);
    assert!(sp["engine_failures"].as_u64().unwrap() > 0, "{sp}");
    let decided = ["white_wins", "draws", "black_wins", "forfeits"]
        .iter()
        .map(|k| sp[k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(decided, 8, "{sp}");
    assert!(g["gate"]["engine_failures"].as_u64().unwrap() > 0);
    assert!(g["gate"]["match"]["games"].as_u64().unwrap() >= 8);
    // A restarted engine plays on as the fixture: the games are those of a loop whose engine
    // never failed (the fixture keeps nothing between moves).
    let clean = dir.path().join("clean");
    run_loop_ok(&loop_args(&exe.display().to_string(), &manifest, &clean, 1));
    let epd = |d: &Path| std::fs::read(d.join("gen001/selfplay.epd")).unwrap();
    assert!(
        epd(&out) == epd(&clean),
        "the restarted engine's games differ"
    );
}

#[test]
fn a_hanging_engine_in_self_play_is_timed_out_restarted_and_reported() {
    let Some(Fixture { dir, exe, manifest }) = fixture() else {
        return;
    };
    let Some(engine) = misbehaving_player(dir.path(), &exe, "hang", 15) else {
        return;
    };
    let (hung, clean) = (dir.path().join("hung.epd"), dir.path().join("clean.epd"));
    let r = selfplay(&engine, &manifest, &hung, "2", &["--uci-timeout", "2"]);
    assert!(r.stderr.contains("engine failures"), "{}", r.stderr);
    assert!(r.stderr.contains("hung"), "{}", r.stderr);
    assert!(r.stdout.contains("2 games"), "{}", r.stdout);
    // Asked again after a restart, the engine plays the move it would have played: with no
    // game forfeited (a move failing twice, possible when a loaded machine makes a sound move
    // exceed the time-out too), the games are those of an engine that never hung.
    if r.stdout.contains(" 0 forfeited") {
        selfplay(arg(&exe), &manifest, &clean, "2", &[]);
        let epd = |p: &Path| std::fs::read(p).unwrap();
        assert!(
            epd(&hung) == epd(&clean),
            "the restarted engine's games differ"
        );
    }
}

/// A file holding the start position, one line: the clock fixture's book.
fn start_book(dir: &Path) -> PathBuf {
    let book = dir.join("start.epd");
    std::fs::write(
        &book,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\n",
    )
    .unwrap();
    book
}

#[test]
fn selfplay_on_a_clock_plays_an_engine_that_reads_only_its_clock_and_counts_losses_on_time() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("go.log");
    let Some(reader) = clock::clock_engine("wtime-only", &log) else {
        return;
    };
    let book = start_book(dir.path());
    let out = dir.path().join("games.epd");
    let timed = |engine: &str, tc: &str, margin: &str, games: &str, out: &Path| {
        run(&[
            "selfplay",
            "--engine",
            engine,
            "--games",
            games,
            "--tc",
            tc,
            "--time-margin",
            margin,
            "--epd",
            arg(&book),
            "--threads",
            "1",
            "-o",
            arg(out),
        ])
    };
    // Two games from the start position: the knights go out and back, drawn by repetition
    // after eight plies, every move asked with both clocks (the fixture answers nothing else).
    let r = timed(&reader, "5+0.1", "1000", "2", &out);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("2 games (+0 =2 -0"), "{}", r.stdout);
    assert!(r.stdout.contains("0 lost on time"), "{}", r.stdout);
    let sent = std::fs::read_to_string(&log).unwrap();
    assert!(
        sent.starts_with("go wtime 5000 btime 5000 winc 100 binc 100\n"),
        "{sent}"
    );
    assert_eq!(sent.lines().count(), 16, "{sent}");
    assert!(
        sent.lines()
            .all(|l| l.contains(" wtime ") && !l.contains("nodes")),
        "{sent}"
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let ids: Vec<u32> = text.lines().map(game_id).collect();
    assert_eq!(ids, [[0; 8], [1; 8]].concat(), "{text}");

    // An engine that sleeps past its clock loses on time at its first move: counted, and the
    // game is Black's.
    let Some(sleeper) = clock::clock_engine("oversleep", &dir.path().join("sleep.log")) else {
        return;
    };
    let r = timed(&sleeper, "1", "0", "1", &dir.path().join("lost.epd"));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("1 games (+0 =0 -1"), "{}", r.stdout);
    assert!(r.stdout.contains("1 lost on time"), "{}", r.stdout);

    // A node count and a clock together are refused; a margin without a clock too.
    let both = run(&[
        "selfplay",
        "--engine",
        &reader,
        "--tc",
        "1",
        "--nodes",
        "5",
        "-o",
        arg(&out),
    ]);
    assert_eq!(both.code, Some(2), "{}", both.stderr);
    assert!(both.stderr.contains("--nodes"), "{}", both.stderr);
    let margin = run(&[
        "selfplay",
        "--engine",
        &reader,
        "--time-margin",
        "5",
        "-o",
        arg(&out),
    ]);
    assert_eq!(margin.code, Some(2), "{}", margin.stderr);
}

#[test]
fn a_loop_generation_on_a_clock_plays_self_play_and_gate_on_it() {
    let Some(Fixture { dir, exe, manifest }) = fixture() else {
        return;
    };
    let out = dir.path().join("timed");
    let mut args = loop_args(&exe.display().to_string(), &manifest, &out, 1);
    // The clock instead of both node counts.
    for flag in ["--nodes", "--gate-nodes"] {
        let at = args.iter().position(|a| a == flag).unwrap();
        args.drain(at..at + 2);
    }
    args.extend(["--tc", "0.5+0.01", "--time-margin", "200"].map(String::from));
    run_loop_ok(&args);
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("state.json")).unwrap()).unwrap();
    assert_eq!(
        state["settings"]["clock"],
        serde_json::json!({"tc": "0.5+0.01", "time_margin_ms": 200})
    );
    let g = &state["generations"][1];
    let sp = &g["selfplay"];
    assert_eq!(sp["games"], 8);
    // Every game is accounted for; losses on time are counted (how many depends on the load).
    let decided = ["white_wins", "draws", "black_wins", "forfeits"]
        .iter()
        .map(|k| sp[k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(decided, 8, "{sp}");
    assert!(sp["time_losses"].as_u64().unwrap() <= 8, "{sp}");
    assert!(sp["positions"].as_u64().unwrap() > 0, "{sp}");
    let m = &g["gate"]["match"];
    assert!(m["games"].as_u64().unwrap() >= 8, "{m}");
    // A timed match records no node count.
    assert!(m["nodes"].is_null(), "{m}");
    let ladder = std::fs::read_to_string(out.join("ladder.md")).unwrap();
    assert!(ladder.contains("| lost on time |"), "{ladder}");
    // A node count cannot join the clock, and the same directory refuses fixed nodes.
    let mut both = args.clone();
    both.extend(["--gate-nodes", "300"].map(String::from));
    let r = run_loop(&both);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    let fixed = loop_args(&exe.display().to_string(), &manifest, &out, 1);
    let r = run_loop(&fixed);
    assert_ne!(r.code, Some(0));
    assert!(r.stderr.contains("clock"), "{}", r.stderr);
}

/// Whether `text` is well-formed XML as far as its elements go: every tag closed in order,
/// one root, nothing but white space outside it; comments, declarations and attributes'
/// quoting are checked loosely (quotes balanced inside a tag).
fn well_formed(text: &str) -> Result<(), String> {
    let mut open: Vec<String> = Vec::new();
    let mut roots = 0;
    let mut rest = text;
    while let Some(at) = rest.find('<') {
        if open.is_empty() && !rest[..at].trim().is_empty() {
            return Err(format!("text outside the root: {:?}", &rest[..at]));
        }
        let tail = &rest[at..];
        let end = tail.find('>').ok_or("a tag is not closed")?;
        let tag = &tail[1..end];
        rest = &tail[end + 1..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        if !tag.matches('"').count().is_multiple_of(2) {
            return Err(format!("unbalanced quotes in <{tag}>"));
        }
        if let Some(name) = tag.strip_prefix('/') {
            match open.pop() {
                Some(o) if o == name.trim() => {}
                o => return Err(format!("</{name}> closes {o:?}")),
            }
            continue;
        }
        let name = tag
            .split_whitespace()
            .next()
            .ok_or("an empty tag")?
            .trim_end_matches('/');
        if open.is_empty() {
            roots += 1;
        }
        if !tag.ends_with('/') {
            open.push(name.to_string());
        }
    }
    match (open.is_empty(), roots, rest.trim().is_empty()) {
        (true, 1, true) => Ok(()),
        _ => Err(format!("{} elements left open, {roots} roots", open.len())),
    }
}

/// The files of a loop with its SPSA stage that must not depend on how it was run.
fn spsa_files(out: &Path) -> Vec<(String, Vec<u8>)> {
    [
        "state.json",
        "ladder.md",
        "ladder.svg",
        "best.json",
        "spsa/calibration.json",
        "spsa/progress.json",
        "spsa/weights.json",
        "spsa/kept.json",
        "spsa/options.txt",
    ]
    .iter()
    .map(|n| {
        let bytes =
            std::fs::read(out.join(n)).unwrap_or_else(|e| panic!("{}: {e}", out.join(n).display()));
        (n.to_string(), bytes)
    })
    .collect()
}

#[test]
fn an_spsa_stage_ends_the_loop_gated_and_resumable() {
    let Some(Fixture { dir, exe, manifest }) = fixture() else {
        return;
    };
    let engine = exe.display().to_string();
    let spsa = ["--spsa-iters", "3", "--spsa-pairs", "1"].map(String::from);
    let with_spsa = |out: &Path, generations: u32| {
        let mut a = loop_args(&engine, &manifest, out, generations);
        a.extend(spsa.clone());
        a
    };
    // Straight through: one generation, then the stage.
    let straight = dir.path().join("straight");
    let r = run_loop_ok(&with_spsa(&straight, 1));
    assert!(r.stderr.contains("spsa stage: gate"), "{}", r.stderr);
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(straight.join("state.json")).unwrap())
            .unwrap();
    let stage = &state["spsa"];
    assert_eq!(
        (stage["after"].as_u64(), stage["start"].as_u64()),
        (Some(1), state["generations"][1]["best"].as_u64())
    );
    assert_eq!(stage["spsa"]["iterations"], 3);
    assert_eq!(stage["spsa"]["games"], 6);
    assert!(
        stage["spsa"]["coordinates"].as_u64().unwrap() > 1,
        "{stage}"
    );
    assert!(
        stage["gate"]["match"]["games"].as_u64().unwrap() >= 8,
        "{stage}"
    );
    // The kept weights are the SPSA result if its gate accepted it, else the start's.
    let read = |p: PathBuf| std::fs::read(p).unwrap();
    let kept = read(straight.join("spsa/kept.json"));
    assert_eq!(kept, read(straight.join("best.json")));
    let start = format!("gen{:03}/weights.json", stage["start"].as_u64().unwrap());
    match stage["gate"]["keep"].as_str().unwrap() {
        "new" => assert_eq!(kept, read(straight.join("spsa/weights.json"))),
        _ => assert_eq!(kept, read(straight.join(&start))),
    }
    // The SPSA state: three iterations, each a result in [-1, 1], their mean recorded.
    let progress: Value = serde_json::from_str(
        &std::fs::read_to_string(straight.join("spsa/progress.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(progress["iteration"], 3);
    let results: Vec<f64> = progress["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_f64().unwrap())
        .collect();
    assert_eq!(results.len(), 3);
    assert!(
        results.iter().all(|r| (-1.0..=1.0).contains(r)),
        "{results:?}"
    );
    let mean = results.iter().sum::<f64>() / 3.0;
    assert!((stage["spsa"]["mean_result"].as_f64().unwrap() - mean).abs() < 1e-12);
    // Perturbations in evaluation units (the default, c = 2): measured on the last
    // generation's traces, each c_j = 2 / activity (raised to a whole centipawn at the weight
    // moved most, at most 2 / 0.1 for a coordinate never active), one per coordinate.
    assert_eq!(stage["settings"]["units"], "eval");
    let calibration: Value = serde_json::from_str(
        &std::fs::read_to_string(straight.join("spsa/calibration.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(calibration["c"], 2.0);
    assert_eq!(calibration["traces"], "gen001/traces.txt");
    assert_eq!(
        calibration["positions"].as_u64(),
        state["generations"][1]["trace"]["positions"].as_u64()
    );
    let coordinates = calibration["directions"].as_array().unwrap();
    assert_eq!(
        coordinates.len() as u64,
        stage["spsa"]["coordinates"].as_u64().unwrap()
    );
    assert!(
        coordinates.iter().any(|d| d["name"] == "scale"),
        "{calibration}"
    );
    for d in coordinates {
        let (a, c) = (d["activity"].as_f64().unwrap(), d["c"].as_f64().unwrap());
        let target = 2.0 / a.max(0.1);
        assert!(c >= target - 1e-12 && c <= 20.0 + 1e-12, "{d}");
    }
    // SPSA's point is a manifest the engine takes.
    let r = run(&[
        "emit",
        arg(&straight.join("spsa/weights.json")),
        "--lang",
        "c",
        "-o",
        arg(&dir.path().join("w.h")),
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let ladder = std::fs::read_to_string(straight.join("ladder.md")).unwrap();
    assert!(ladder.contains("| spsa | 6 (3 iterations) |"), "{ladder}");
    assert!(well_formed(&std::fs::read_to_string(straight.join("ladder.svg")).unwrap()).is_ok());

    // A finished loop given the stage afterwards, stopped by Ctrl-C during the stage, then
    // the same command again: the files of the straight run.
    let split = dir.path().join("split");
    run_loop_ok(&loop_args(&engine, &manifest, &split, 1));
    let args = with_spsa(&split, 1);
    let child = tune()
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(wait_for_sigint_handler(child.id(), Duration::from_secs(30)));
    let t0 = Instant::now();
    while !split.join("spsa/progress.json").is_file() {
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "the stage did not begin"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    signal(child.id(), "INT");
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A stage under way without its calibration was begun by an older gradtune in weight
    // units: refused, not continued with new perturbations.
    let calibration = split.join("spsa/calibration.json");
    let aside = split.join("calibration.json.aside");
    std::fs::rename(&calibration, &aside).unwrap();
    let r = run_loop(&args);
    assert_ne!(r.code, Some(0));
    assert!(r.stderr.contains("--spsa-units weight"), "{}", r.stderr);
    std::fs::rename(&aside, &calibration).unwrap();
    // The recorded calibration is what the resumed stage uses: without the traces it was
    // measured on, the stage still ends as the straight one.
    std::fs::remove_file(split.join("gen001/traces.txt")).unwrap();
    run_loop_ok(&args);
    for ((name, x), (_, y)) in spsa_files(&straight).into_iter().zip(spsa_files(&split)) {
        assert!(
            x == y,
            "{name} differs between the straight and the resumed stage"
        );
    }
    // Run again when finished: nothing more is played.
    let r = run_loop_ok(&args);
    assert!(r.stderr.contains("continuing"), "{}", r.stderr);
    assert_eq!(spsa_files(&straight), spsa_files(&split));

    // After the stage, no more generations; other SPSA settings are refused, naming them.
    let r = run_loop(&with_spsa(&split, 2));
    assert_ne!(r.code, Some(0));
    assert!(
        r.stderr.contains("SPSA stage followed generation 1"),
        "{}",
        r.stderr
    );
    let mut other = with_spsa(&split, 1);
    let at = other.iter().position(|a| a == "--spsa-pairs").unwrap();
    other[at + 1] = "2".to_string();
    let r = run_loop(&other);
    assert_ne!(r.code, Some(0));
    assert!(r.stderr.contains("pairs"), "{}", r.stderr);
}

#[test]
fn a_kept_generation_is_measured_against_the_start_and_the_answer_is_best_json() {
    let Some(Fixture { dir, exe, manifest }) = fixture() else {
        return;
    };
    let engine = exe.display().to_string();
    let out = dir.path().join("kept");
    // An SPRT whose H1 (-500 Elo) any candidate passes: the gate keeps it, and the kept
    // weights are then played against the start.
    let mut args = loop_args(&engine, &manifest, &out, 1);
    args.extend(["--sprt=-600,-500", "--alpha", "0.4", "--beta", "0.4"].map(String::from));
    let r = run_loop_ok(&args);
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("state.json")).unwrap()).unwrap();
    assert_eq!(state["settings"]["undecided"], "reject");
    let g = &state["generations"][1];
    assert_eq!(g["gate"]["keep"], "new", "{g}");
    let vs = &g["vs_start"];
    assert_eq!(vs["match"]["opponent"], "gen 0", "{g}");
    assert_eq!(vs["match"]["games"], 8, "four openings, both colours: {g}");
    assert!(r.stderr.contains("against the start"), "{}", r.stderr);
    // The answer: generation 1 only if its interval against the start lies above 0.
    let lower = vs["match"]["interval"][0].as_f64();
    let answer = if lower.is_some_and(|lo| lo > 0.0) {
        1
    } else {
        0
    };
    let read = |p: PathBuf| std::fs::read(p).unwrap();
    assert_eq!(
        read(out.join("best.json")),
        read(out.join(format!("gen{answer:03}/weights.json")))
    );
    let ladder = std::fs::read_to_string(out.join("ladder.md")).unwrap();
    assert!(ladder.contains("\nanswer: "), "{ladder}");
    if vs["reverted"] == true {
        assert_eq!(g["best"], 0, "{g}");
    }
}

/// Output piped to a file (as in a CI log or `tune loop > log`) draws no bar: plain progress
/// lines stand in for it, every `GRADTUNE_PROGRESS_SECS` (here a hundredth of a second so
/// that a run of a few games prints some), naming what is counted and how far it is.
#[test]
fn piped_output_gets_plain_progress_lines() {
    let Some(Fixture { dir, exe, manifest }) = fixture() else {
        return;
    };
    let out = dir.path().join("games.epd");
    let run = |every: &str| {
        let o = tune()
            .env("GRADTUNE_PROGRESS_SECS", every)
            .args([
                "selfplay",
                "--engine",
                arg(&exe),
                "--weights",
                arg(&manifest),
            ])
            .args([
                "--games",
                "8",
                "--nodes",
                "300",
                "--threads",
                "1",
                "-o",
                arg(&out),
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let said = run("0.01");
    let line = said
        .lines()
        .find(|l| l.starts_with('[') && l.contains("self-play games") && l.contains("/8 ("))
        .unwrap_or_else(|| panic!("no progress line in: {said}"));
    assert!(line.contains("%)"), "{line}");
    // 0 turns the lines off.
    let quiet = run("0");
    assert!(!quiet.contains("self-play games"), "{quiet}");
}
