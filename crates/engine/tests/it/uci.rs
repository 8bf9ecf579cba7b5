//! The `gradtune-uci` binary answers a scripted session with legal moves.

use std::io::Write;
use std::process::{Child, ChildStdin, Command, Stdio};

use shakmaty::{uci::UciMove, Chess, Position};

/// Starts `gradtune-uci` with piped input and output; returns it and its input.
fn spawn(args: &[&str]) -> (Child, ChildStdin) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gradtune-uci"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start gradtune-uci");
    let stdin = child.stdin.take().expect("piped stdin");
    (child, stdin)
}

fn session(script: &str, args: &[&str]) -> String {
    let (child, mut stdin) = spawn(args);
    stdin.write_all(script.as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

fn bestmoves(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| l.strip_prefix("bestmove "))
        .map(|m| m.split_whitespace().next().unwrap().to_string())
        .collect()
}

fn play(moves: &[&str]) -> Chess {
    let mut pos = Chess::default();
    for m in moves {
        let m = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(m);
    }
    pos
}

#[test]
fn scripted_session_gives_legal_bestmove() {
    let out = session(
        "uci\nisready\nucinewgame\nposition startpos moves e2e4 e7e5 g1f3\ngo nodes 5000\nisready\n",
        &[],
    );
    assert!(out.contains("id name gradtune"), "{out}");
    assert!(out.contains("option name Weights type string"), "{out}");
    assert!(out.lines().any(|l| l == "uciok"), "{out}");
    assert!(out.lines().any(|l| l == "readyok"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("info depth")), "{out}");
    let best = bestmoves(&out);
    assert_eq!(best.len(), 1, "{out}");
    // At end of input the search ran to its node limit rather than being cut short.
    let depth: u32 = out
        .lines()
        .filter_map(|l| l.strip_prefix("info depth "))
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .max()
        .unwrap();
    assert!(depth >= 4, "{out}");
    let pos = play(&["e2e4", "e7e5", "g1f3"]);
    let m = best[0].parse::<UciMove>().unwrap();
    assert!(m.to_move(&pos).is_ok(), "illegal bestmove {}", best[0]);
}

#[test]
fn fen_positions_and_mates() {
    let out = session(
        "position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1\ngo depth 3\n",
        &[],
    );
    assert_eq!(bestmoves(&out), ["a1a8"], "{out}");
    assert!(out.contains("score mate 1"), "{out}");
}

#[test]
fn bad_input_is_reported_not_fatal() {
    let out = session(
        "position startpos moves e2e5\nsetoption name Weights value /no/such/file.json\n\
         go sideways\nfrobnicate\nsetoption name Hash value 8\nposition startpos\ngo movetime 50\nquit\n",
        &["/no/such/weights.json"],
    );
    let errors = out
        .lines()
        .filter(|l| l.starts_with("info string error:"))
        .count();
    assert_eq!(errors, 5, "{out}");
    let best = bestmoves(&out);
    assert_eq!(best.len(), 1, "{out}");
    assert!(best[0]
        .parse::<UciMove>()
        .unwrap()
        .to_move(&Chess::default())
        .is_ok());
}

#[test]
fn stop_ends_an_infinite_search() {
    let (child, mut stdin) = spawn(&[]);
    writeln!(stdin, "position startpos\ngo infinite").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    writeln!(stdin, "stop\nquit").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    assert_eq!(bestmoves(&out).len(), 1, "{out}");
}

#[test]
fn infinite_search_waits_for_stop_even_after_a_mate() {
    // A mate in 1 ends the iterations at once, but `bestmove` must wait for `stop`.
    let (child, mut stdin) = spawn(&[]);
    writeln!(
        stdin,
        "position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1\ngo infinite"
    )
    .unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    writeln!(stdin, "isready").unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(100));
    writeln!(stdin, "stop").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    let ready = out.lines().position(|l| l == "readyok").unwrap();
    let best = out.lines().position(|l| l.starts_with("bestmove")).unwrap();
    assert!(ready < best, "{out}");
    assert_eq!(bestmoves(&out), ["a1a8"]);
}
