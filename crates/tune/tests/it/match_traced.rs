//! Closing the loop with play: the C fixture of `fixtures/trace-engine` (built with the system
//! C compiler; the tests say so and skip where `cc` is missing) plays legal chess (perft), takes
//! every weight as a UCI `spin` option named by `trace::uci_option_name`, and `tune match`
//! plays it with its own weights against tuned ones (`--weights-b`).

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use common::{arg, compile_fixture, run};
use serde_json::Value;

/// The fixture running, spoken to line by line.
struct Fixture {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Fixture {
    fn start(exe: &Path) -> Fixture {
        let mut child = Command::new(exe)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the fixture starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Fixture {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
    }

    /// Sends `line` and returns the first answer line starting with `prefix`.
    fn ask(&mut self, line: &str, prefix: &str) -> String {
        self.send(line);
        self.stdin.flush().unwrap();
        let mut answer = String::new();
        loop {
            answer.clear();
            let n = self.stdout.read_line(&mut answer).unwrap();
            assert!(n > 0, "the fixture ended before answering `{line}`");
            if answer.starts_with(prefix) {
                return answer.trim_end().to_string();
            }
        }
    }

    /// The option names declared in the `uci` handshake.
    fn declared(&mut self) -> Vec<String> {
        self.send("uci");
        self.stdin.flush().unwrap();
        let mut names = Vec::new();
        let mut line = String::new();
        loop {
            line.clear();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0);
            if line.trim() == "uciok" {
                return names;
            }
            if let Some(rest) = line.strip_prefix("option name ") {
                let (name, kind) = rest.split_once(" type ").expect("option ... type ...");
                assert!(kind.starts_with("spin default "), "{line}");
                names.push(name.to_string());
            }
        }
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}

/// `perft N` in the position `fen` (`startpos` for the start).
fn perft(f: &mut Fixture, position: &str, depth: u32) -> u64 {
    f.send(&format!("position {position}"));
    let answer = f.ask(&format!("perft {depth}"), "perft");
    let count = answer.rsplit(' ').next().unwrap();
    count.parse().unwrap_or_else(|_| panic!("`{answer}`"))
}

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

#[test]
fn the_fixture_generates_legal_moves() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = compile_fixture(dir.path()) else {
        return;
    };
    let mut f = Fixture::start(&exe);
    assert_eq!(perft(&mut f, "startpos", 4), 197_281);
    assert_eq!(perft(&mut f, &format!("fen {KIWIPETE}"), 3), 97_862);
    // En passant with a pinned pawn and promotions with checks (chessprogramming.org's
    // positions 3 and 5).
    let pos3 = "fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
    assert_eq!(perft(&mut f, pos3, 4), 43_238);
    let pos5 = "fen rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8";
    assert_eq!(perft(&mut f, pos5, 3), 62_379);
    // Moves after the position are played: 1. e4 leaves 20 replies.
    assert_eq!(perft(&mut f, "startpos moves e2e4", 1), 20);
    // A search answers a legal best move with a score.
    f.send("position startpos moves e2e4 e7e5");
    let best = f.ask("go nodes 300", "bestmove");
    assert!(best.len() >= 13, "{best}");
    // Mate in one is found and reported as a mate.
    f.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    let info = f.ask("go depth 3", "info depth 2");
    assert!(info.contains("score mate 1"), "{info}");
    assert_eq!(
        f.ask("isready", "bestmove").as_str(),
        "bestmove a1a8",
        "after {info}"
    );
}

/// The fixture's manifest (printed from its compiled-in weights).
fn manifest(exe: &Path) -> Value {
    let mut f = Fixture::start(exe);
    let line = f.ask("manifest", "manifest ");
    serde_json::from_str(&line["manifest ".len()..]).unwrap()
}

/// The manifest with the knights' material doubled, written to `dir/changed.json`.
fn doubled_knights(dir: &Path, m: &Value) -> PathBuf {
    let mut changed = m.clone();
    let knight = &mut changed["params"][0]["value"][1];
    for phase in 0..2 {
        knight[phase] = Value::from(knight[phase].as_i64().unwrap() * 2);
    }
    let path = dir.join("changed.json");
    std::fs::write(&path, serde_json::to_string_pretty(&changed).unwrap()).unwrap();
    path
}

#[test]
fn every_weight_is_an_option_by_the_convention() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = compile_fixture(dir.path()) else {
        return;
    };
    let original = manifest(&exe);
    let changed = doubled_knights(dir.path(), &original);
    let tuned = trace::Manifest::load(&changed).unwrap();
    let options = trace::uci_options(&tuned).unwrap();
    let mut f = Fixture::start(&exe);
    let declared = f.declared();
    let names: Vec<String> = options.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(
        declared, names,
        "the fixture's options are the manifest's weights"
    );
    assert_eq!(names[2], "material_1_mg");
    assert!(names.contains(&"pst_2_35_eg".to_string()));
    assert!(names.contains(&"ks_weight_3".to_string()));

    // A third white knight (on e3): both positions are pure middlegames (phase 24, the
    // most), so between the start weights and the doubled knights the difference of their
    // evaluations grows by exactly the knight's middlegame value, 337.
    let with = "position fen rnbqkbnr/pppppppp/8/8/8/4N3/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let without = "position startpos";
    let eval = |f: &mut Fixture, position: &str| -> i64 {
        f.send(position);
        f.ask("eval", "eval ")[5..].parse().unwrap()
    };
    let before = eval(&mut f, with) - eval(&mut f, without);
    for (name, value) in &options {
        f.send(&format!("setoption name {name} value {value}"));
    }
    let after = eval(&mut f, with) - eval(&mut f, without);
    assert_eq!(after - before, 337, "{before} -> {after}");
    // Its manifest now says the tuned values: every weight went to its place.
    let live: Value = serde_json::from_str(&f.ask("manifest", "manifest ")[9..]).unwrap();
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(&changed).unwrap()).unwrap();
    assert_eq!(live["params"], expected["params"]);
    assert_ne!(live["params"], original["params"]);
}

#[test]
fn the_engine_plays_its_old_weights_against_its_new_ones() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = compile_fixture(dir.path()) else {
        return;
    };
    let changed = doubled_knights(dir.path(), &manifest(&exe));
    let engine = format!("uci:'{}'", exe.display());
    let pgn = dir.path().join("games.pgn");
    let r = run(&[
        "match",
        &engine,
        &engine,
        "--weights-b",
        arg(&changed),
        "--openings",
        "4",
        "--nodes",
        "500",
        "--threads",
        "2",
        "--pgn",
        arg(&pgn),
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stdout
            .starts_with("gradtune-trace-fixture vs gradtune-trace-fixture (changed): 8 games"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("engine failures"), "{}", r.stdout);
    // A forfeit (no legal move from an engine) is always an engine failure, reported above.
    let games = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(games.matches("[Event ").count(), 8);
    assert_eq!(
        games
            .matches("[White \"gradtune-trace-fixture (changed)\"]")
            .count(),
        4
    );
}

#[test]
fn weights_the_engine_does_not_declare_are_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = compile_fixture(dir.path()) else {
        return;
    };
    let mut m = manifest(&exe);
    m["params"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({ "name": "bogus", "shape": [2], "value": [[1, 2], [3, 4]] }));
    let path = dir.path().join("bogus.json");
    std::fs::write(&path, m.to_string()).unwrap();
    let engine = format!("uci:'{}'", exe.display());
    let base = [
        "match",
        &engine,
        &engine,
        "--openings",
        "1",
        "--nodes",
        "100",
    ];

    let mut args = base.to_vec();
    args.extend(["--weights-b", arg(&path)]);
    let r = run(&args);
    assert_eq!(r.code, Some(1), "{}", r.stdout);
    for part in [
        "player b with --weights-b",
        "(gradtune-trace-fixture)",
        "does not declare 4 of the 934 UCI options",
        "bogus_0_mg, bogus_0_eg, bogus_1_mg, bogus_1_eg",
    ] {
        assert!(r.stderr.contains(part), "`{part}` in {}", r.stderr);
    }

    // An engine taking a weights file must declare that option.
    let mut args = base.to_vec();
    args.extend([
        "--weights-a",
        arg(&path),
        "--weights-file-option",
        "WeightsFile",
    ]);
    let r = run(&args);
    assert_eq!(r.code, Some(1), "{}", r.stdout);
    assert!(
        r.stderr.contains("player a with --weights-a"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains(": WeightsFile"), "{}", r.stderr);

    // Per-side options take NAME=VALUE and are for external engines.
    let mut args = base.to_vec();
    args.extend(["--uci-option-a", "material_1_mg"]);
    let r = run(&args);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr.contains("--uci-option-a takes NAME=VALUE"),
        "{}",
        r.stderr
    );
    let r = run(&["match", "default", "default", "--uci-option-b", "Hash=1"]);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr
            .contains("--uci-option-b is for a `uci:CMD` player"),
        "{}",
        r.stderr
    );

    // Weights are for external engines only.
    let r = run(&["match", "default", "default", "--weights-a", arg(&path)]);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr.contains("--weights-a is for a `uci:CMD` player"),
        "{}",
        r.stderr
    );
}

/// One engine with two weights files of the same name in two folders: the report names the
/// two players apart, by the weights files' paths; two weights stems name them by their stems.
#[test]
fn one_engine_with_two_weights_files_is_named_apart() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = compile_fixture(dir.path()) else {
        return;
    };
    let original = manifest(&exe);
    let changed = doubled_knights(dir.path(), &original);
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let (wa, wb) = (a.join("w.json"), b.join("w.json"));
    std::fs::write(&wa, original.to_string()).unwrap();
    std::fs::copy(&changed, &wb).unwrap();
    let engine = format!("uci:'{}'", exe.display());
    let first_line = |w1: &Path, w2: &Path| {
        let r = run(&[
            "match",
            &engine,
            &engine,
            "--weights-a",
            arg(w1),
            "--weights-b",
            arg(w2),
            "--openings",
            "1",
            "--nodes",
            "100",
        ]);
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        r.stdout.lines().next().unwrap_or("").to_string()
    };
    let line = first_line(&wa, &wb);
    let want = format!(
        "gradtune-trace-fixture (w) [{}] vs gradtune-trace-fixture (w) [{}]: ",
        wa.display(),
        wb.display()
    );
    assert!(line.starts_with(&want), "{line}");
    let line = first_line(&wa, &changed);
    assert!(
        line.starts_with("gradtune-trace-fixture (w) vs gradtune-trace-fixture (changed): "),
        "{line}"
    );
}
