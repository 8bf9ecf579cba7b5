//! The UCI client against real engine processes: `gradtune-uci` (the repository's own UCI
//! binary) for the protocol, and a misbehaving fake engine (a shell script) for the failures.

use crate::fake_engine;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::play::uci_client::{EngineSpec, UciEngine, UciError, UciScore, UciSearch};
use engine::{hash, ModelEvaluator, SearchLimits, Searcher};
use fake_engine::{fake_engine, fake_score};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position};

/// Time enough for any search of these tests.
const LONG: Duration = Duration::from_secs(60);

fn gradtune_uci() -> String {
    format!("'{}'", env!("CARGO_BIN_EXE_gradtune-uci"))
}

fn position(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

/// Searches `pos` itself (no moves before it) without an abort flag.
fn go(
    e: &mut UciEngine,
    pos: &Chess,
    limits: &SearchLimits,
    timeout: Duration,
) -> Result<UciSearch, UciError> {
    e.search(pos, &[], limits, timeout, None)
}

/// A move in UCI notation.
fn uci(m: Option<Move>) -> String {
    m.map_or("0000".to_string(), |m| {
        m.to_uci(CastlingMode::Standard).to_string()
    })
}

fn play(root: &Chess, moves: &[&str]) -> (Chess, Vec<Move>, Vec<u64>) {
    let mut pos = root.clone();
    let mut played = Vec::new();
    let mut history = Vec::new();
    for m in moves {
        let m = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        history.push(hash(&pos));
        pos.play_unchecked(m);
        played.push(m);
    }
    (pos, played, history)
}

/// gradtune-uci through the client gives what gradtune's own search gives at the same depth,
/// from a position with moves played (so the history reaches the engine too).
#[test]
fn gradtune_uci_answers_as_the_internal_search() {
    let mut e = EngineSpec::new(gradtune_uci()).start().unwrap();
    assert_eq!(e.name(), Some("gradtune"));
    let root = Chess::default();
    for moves in [
        &[][..],
        &["e2e4", "e7e5", "g1f3"][..],
        &["d2d4", "d7d5"][..],
    ] {
        let (pos, played, history) = play(&root, moves);
        e.new_game().unwrap();
        let limits = SearchLimits::depth(4);
        let got = e.search(&root, &played, &limits, LONG, None).unwrap();
        let mut own = Searcher::new(ModelEvaluator::default_material(), 16);
        let want = own.search(&pos, &history, &limits);
        assert_eq!(got.best_move, want.best_move, "{moves:?}");
        assert_eq!(got.score, Some(UciScore::Cp(want.score)), "{moves:?}");
        assert_eq!(got.depth, 4);
        assert_eq!(got.nodes, want.nodes, "{moves:?}");
    }
}

/// Scores come from the side to move; `white` turns them to White's view, and mates are read.
#[test]
fn scores_are_read_from_the_side_to_move_and_mates_too() {
    let mut e = EngineSpec::new(gradtune_uci()).start().unwrap();
    let depth3 = SearchLimits::depth(3);
    // Black to move, a queen up for Black.
    let pos = position("4k3/8/8/3q4/8/8/8/4K3 b - - 0 1");
    let r = go(&mut e, &pos, &depth3, LONG).unwrap();
    let s = r.score.unwrap();
    assert!(s.centipawns() > 500, "{s}");
    assert!(s.white(pos.turn()) < -500, "{s}");
    // White mates in one.
    let pos = position("7k/8/6K1/8/8/8/8/R7 w - - 0 1");
    let r = go(&mut e, &pos, &depth3, LONG).unwrap();
    assert_eq!(r.score, Some(UciScore::Mate(1)));
    assert_eq!(uci(r.best_move), "a1a8");
    assert_eq!(r.score.unwrap().white(Color::White), engine::MATE - 1);
    // Node and time limits are passed through.
    let r = go(
        &mut e,
        &Chess::default(),
        &SearchLimits::movetime(Duration::from_millis(50)),
        LONG,
    )
    .unwrap();
    assert!(r.best_move.is_some() && r.elapsed >= Duration::from_millis(40));
    let err = go(
        &mut e,
        &Chess::default(),
        &SearchLimits::default(),
        Duration::from_secs(1),
    )
    .unwrap_err();
    assert!(matches!(err, UciError::NoLimit { .. }), "{err}");
}

/// The fake engine answers; its score is the length of the FEN it was sent.
#[test]
fn the_fake_engine_answers_normal_positions() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = EngineSpec::new(fake_engine(dir.path(), &[]))
        .start()
        .unwrap();
    assert_eq!(e.name(), Some("fake engine"));
    let pos = position("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
    let r = go(&mut e, &pos, &SearchLimits::depth(1), LONG).unwrap();
    assert_eq!(r.score, Some(UciScore::Cp(fake_score(&fen))));
    assert_eq!(r.score.unwrap().white(Color::Black), -fake_score(&fen));
    assert_eq!(uci(r.best_move), "g8f6");
}

/// What each misbehaviour gives: a typed error naming the command and what happened, in
/// about the time allowed; a new engine starts fine afterwards.
#[test]
fn hangs_crashes_and_garbage_are_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let rules = [
        "hang:/4P3/",
        "crash:/3P4/",
        "garbage:/2P5/",
        "badmove:/1P6/",
    ];
    let spec = EngineSpec::new(fake_engine(dir.path(), &rules));
    let fen_with = |rank4: &str| position(&format!("4k1n1/8/8/8/{rank4}/8/8/4K1N1 w - - 0 1"));
    let timeout = Duration::from_millis(500);
    let limits = SearchLimits::depth(1);

    let mut e = spec.start().unwrap();
    let t = Instant::now();
    let err = go(&mut e, &fen_with("4P3"), &limits, timeout).unwrap_err();
    assert!(
        matches!(
            err,
            UciError::Timeout {
                expected: "bestmove",
                ..
            }
        ),
        "{err}"
    );
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    let text = err.to_string();
    assert!(
        text.contains("fake-engine.sh") && text.contains("no `bestmove` within"),
        "{text}"
    );
    drop(e); // kills the hung process

    let mut e = spec.start().unwrap();
    let err = go(&mut e, &fen_with("3P4"), &limits, timeout).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, UciError::Exited { .. }), "{text}");
    assert!(text.contains("exit status: 3"), "{text}");
    assert!(text.contains("fake engine: crashed"), "{text}");

    let mut e = spec.start().unwrap();
    let err = go(&mut e, &fen_with("2P5"), &limits, timeout).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, UciError::Malformed { .. }), "{text}");
    assert!(
        text.contains("score cp banana") && text.contains("not a number"),
        "{text}"
    );

    let mut e = spec.start().unwrap();
    let err = go(&mut e, &fen_with("1P6"), &limits, timeout).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("`e2e5` is not legal"), "{text}");

    // The same engine still answers a normal position after a fresh start.
    let mut e = spec.start().unwrap();
    let pos = fen_with("8");
    let r = go(&mut e, &pos, &limits, timeout).unwrap();
    let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
    assert_eq!(r.score, Some(UciScore::Cp(fake_score(&fen))));
}

#[test]
fn starting_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let err = EngineSpec::new("/no/such/engine --flag")
        .start()
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, UciError::Spawn { .. }), "{text}");
    assert!(
        text.contains("/no/such/engine --flag") && text.contains("cannot start"),
        "{text}"
    );

    let err = EngineSpec::new("engine 'unclosed").start().unwrap_err();
    assert!(err.to_string().contains("unclosed single quote"), "{err}");
    let err = EngineSpec::new("   ").start().unwrap_err();
    assert!(err.to_string().contains("empty command"), "{err}");

    // An engine that never says `uciok`: a time-out of the handshake.
    let spec = EngineSpec::new(fake_engine(dir.path(), &["nouciok:x"]))
        .timeout(Duration::from_millis(300));
    let t = Instant::now();
    let err = spec.start().unwrap_err();
    assert!(
        matches!(
            err,
            UciError::Timeout {
                expected: "uciok",
                ..
            }
        ),
        "{err}"
    );
    assert!(t.elapsed() < Duration::from_secs(5));

    // A program that is no engine at all: its output ends at once.
    let err = EngineSpec::new("true").start().unwrap_err();
    // It exits before or after `uci` is sent: either way, an exit with its status.
    let text = err.to_string();
    assert!(matches!(err, UciError::Exited { .. }), "{text}");
    assert!(text.contains("exit status: 0"), "{text}");
    assert!(
        text.contains("while `uciok` was expected") || text.contains("when sent `uci`"),
        "{text}"
    );
}

/// The abort flag ends a wait promptly (Ctrl-C while an engine thinks).
#[test]
fn an_abort_ends_the_wait_promptly() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = EngineSpec::new(fake_engine(dir.path(), &["hang:k"]))
        .start()
        .unwrap();
    let abort = Arc::new(AtomicBool::new(false));
    let flag = abort.clone();
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let t = Instant::now();
    let err = e
        .search(
            &Chess::default(),
            &[],
            &SearchLimits::depth(1),
            LONG,
            Some(&abort),
        )
        .unwrap_err();
    assert!(err.is_interrupted(), "{err}");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    setter.join().unwrap();
}
