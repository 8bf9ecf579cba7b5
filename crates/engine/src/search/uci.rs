//! The UCI protocol: a command interpreter over a [`Searcher`], searching on a background
//! thread so that `stop` and `isready` are answered while it thinks.
//!
//! Supported: `uci`, `isready`, `ucinewgame`, `setoption name Weights|Hash|UCI_Chess960 value
//! ...`, `position startpos|fen ... [moves ...]`, `go [depth|nodes|movetime|wtime|btime|winc|
//! binc|movestogo|infinite ...]`, `stop`, `quit`. Bad input is answered with
//! `info string error: ...`, never a crash.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};

use crate::search::evaluator::ModelEvaluator;
use crate::search::limits::{Clocks, SearchLimits};
use crate::search::searcher::{hash, mate_in, Iteration, Searcher};

type Engine = Searcher<Arc<ModelEvaluator>>;

/// Default transposition table size, MiB.
pub const DEFAULT_HASH_MB: usize = 16;

/// A UCI session writing its answers to `out`.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use engine::search::uci::UciSession;
/// let out = Arc::new(Mutex::new(Vec::<u8>::new()));
/// let mut uci = UciSession::new(out.clone());
/// for line in ["uci", "isready", "position startpos moves e2e4", "go depth 3"] {
///     assert!(uci.handle(line));
/// }
/// uci.finish(); // end of input: let the search finish
/// assert!(!uci.handle("quit"));
/// let text = String::from_utf8(out.lock().unwrap().clone()).unwrap();
/// assert!(text.contains("uciok") && text.contains("readyok"));
/// assert!(text.lines().any(|l| l.starts_with("bestmove ")));
/// ```
pub struct UciSession<W: Write + Send + 'static> {
    out: Arc<Mutex<W>>,
    engine: Option<Engine>,
    thread: Option<JoinHandle<Engine>>,
    stop: Arc<AtomicBool>,
    root: Chess,
    moves: Vec<Move>,
    hash_mb: usize,
    castling: CastlingMode,
    /// Whether the running search has no limit of its own (`go infinite`, bare `go`).
    infinite: bool,
}

impl<W: Write + Send + 'static> UciSession<W> {
    /// A session with material-only weights, writing to `out`.
    pub fn new(out: Arc<Mutex<W>>) -> Self {
        Self {
            out,
            engine: Some(Searcher::new(
                Arc::new(ModelEvaluator::default_material()),
                DEFAULT_HASH_MB,
            )),
            thread: None,
            stop: Arc::new(AtomicBool::new(false)),
            root: Chess::default(),
            moves: Vec::new(),
            hash_mb: DEFAULT_HASH_MB,
            castling: CastlingMode::Standard,
            infinite: false,
        }
    }

    fn say(&self, line: &str) {
        say(&self.out, line);
    }

    fn error(&self, message: &str) {
        self.say(&format!("info string error: {message}"));
    }

    /// Load weights from a JSON file; on failure the old weights stay and the error is
    /// returned.
    pub fn load_weights(&mut self, path: &Path) -> Result<(), crate::error::EngineError> {
        let eval = ModelEvaluator::load(path)?;
        let engine = self.engine();
        engine.set_evaluator(Arc::new(eval));
        Ok(())
    }

    /// End of input: let a running search with limits finish (an infinite one is stopped),
    /// so that a piped script such as `position ...` / `go nodes 20000` gets its full answer.
    pub fn finish(&mut self) {
        if self.infinite {
            self.stop.store(true, Ordering::Relaxed);
        }
        self.join();
    }

    /// Wait for a running search (after asking it to stop) and take the searcher back.
    fn engine(&mut self) -> &mut Engine {
        self.stop.store(true, Ordering::Relaxed);
        self.join();
        let hash_mb = self.hash_mb;
        self.engine.get_or_insert_with(|| {
            Searcher::new(Arc::new(ModelEvaluator::default_material()), hash_mb)
        })
    }

    fn join(&mut self) {
        if let Some(t) = self.thread.take() {
            match t.join() {
                Ok(engine) => self.engine = Some(engine),
                Err(_) => {
                    self.error("the search thread failed; starting afresh");
                }
            }
        }
    }

    /// Handle one line of input; `false` after `quit`.
    pub fn handle(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, args)) = words.split_first() else {
            return true;
        };
        match command {
            "uci" => {
                self.say("id name gradtune");
                self.say("id author gradtune developers");
                self.say("option name Weights type string default <empty>");
                self.say(&format!(
                    "option name Hash type spin default {DEFAULT_HASH_MB} min 1 max 4096"
                ));
                self.say("option name UCI_Chess960 type check default false");
                self.say("uciok");
            }
            "isready" => self.say("readyok"),
            "ucinewgame" => self.engine().clear(),
            "setoption" => self.setoption(args),
            "position" => self.position(args),
            "go" => self.go(args),
            "stop" => {
                self.engine();
            }
            "quit" => {
                self.engine();
                return false;
            }
            // Accepted and ignored: no pondering, no debug output, no registration.
            "ponderhit" | "debug" | "register" => {}
            _ => self.error(&format!("unknown command `{command}`")),
        }
        true
    }

    fn setoption(&mut self, args: &[&str]) {
        let name_at = args.iter().position(|&w| w == "name");
        let value_at = args.iter().position(|&w| w == "value");
        let Some(n) = name_at else {
            return self.error("setoption needs `name`");
        };
        let name_end = value_at.unwrap_or(args.len());
        let name = args.get(n + 1..name_end).unwrap_or(&[]).join(" ");
        let value = value_at
            .map(|v| args.get(v + 1..).unwrap_or(&[]).join(" "))
            .unwrap_or_default();
        match name.to_ascii_lowercase().as_str() {
            "weights" => {
                if value.is_empty() || value == "<empty>" {
                    let engine = self.engine();
                    engine.set_evaluator(Arc::new(ModelEvaluator::default_material()));
                } else if let Err(e) = self.load_weights(Path::new(&value)) {
                    self.error(&format!("{e}"));
                } else {
                    self.say(&format!("info string loaded weights {value}"));
                }
            }
            "hash" => match value.parse::<usize>() {
                Ok(mb) if (1..=4096).contains(&mb) => {
                    self.hash_mb = mb;
                    self.engine().resize_hash(mb);
                }
                _ => self.error(&format!("Hash must be 1..4096 MiB, not `{value}`")),
            },
            "uci_chess960" => match value.as_str() {
                "true" => self.castling = CastlingMode::Chess960,
                "false" => self.castling = CastlingMode::Standard,
                _ => self.error(&format!(
                    "UCI_Chess960 must be true or false, not `{value}`"
                )),
            },
            _ => self.error(&format!("unknown option `{name}`")),
        }
    }

    fn position(&mut self, args: &[&str]) {
        match parse_position(args, self.castling) {
            Ok((root, moves)) => {
                self.root = root;
                self.moves = moves;
            }
            Err(e) => self.error(&e),
        }
    }

    fn go(&mut self, args: &[&str]) {
        let mut pos = self.root.clone();
        let mut history = Vec::with_capacity(self.moves.len());
        for &m in &self.moves {
            history.push(hash(&pos));
            pos.play_unchecked(m);
        }
        let limits = match parse_go(args, &pos) {
            Ok(l) => l,
            Err(e) => return self.error(&e),
        };
        self.engine(); // finish any running search
        let Some(mut engine) = self.engine.take() else {
            return self.error("no searcher available");
        };
        self.stop = Arc::new(AtomicBool::new(false));
        self.infinite =
            limits.depth.is_none() && limits.nodes.is_none() && limits.movetime.is_none();
        let limits = limits.with_stop(self.stop.clone());
        let out = self.out.clone();
        let castling = self.castling;
        let infinite = self.infinite;
        let stop = self.stop.clone();
        let spawned = std::thread::Builder::new()
            .name("search".into())
            .stack_size(64 << 20)
            .spawn(move || {
                let r = engine.search_with(&pos, &history, &limits, |it| {
                    say(&out, &info_line(it, castling));
                });
                // UCI: after `go infinite` the best move is sent only once `stop` arrives.
                while infinite && !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(2));
                }
                let best = r
                    .best_move
                    .map_or("0000".to_string(), |m| m.to_uci(castling).to_string());
                say(&out, &format!("bestmove {best}"));
                engine
            });
        match spawned {
            Ok(t) => self.thread = Some(t),
            Err(e) => self.error(&format!("cannot start the search thread: {e}")),
        }
    }
}

fn say<W: Write>(out: &Mutex<W>, line: &str) {
    if let Ok(mut w) = out.lock() {
        let _ = writeln!(w, "{line}");
        let _ = w.flush();
    }
}

/// The `info` line for a completed iteration.
pub fn info_line(it: &Iteration<'_>, castling: CastlingMode) -> String {
    let score = match mate_in(it.score) {
        Some(n) => format!("mate {n}"),
        None => format!("cp {}", it.score),
    };
    let ms = it.elapsed.as_millis().max(1);
    let nps = u128::from(it.nodes) * 1000 / ms;
    let pv: Vec<String> = it
        .pv
        .iter()
        .map(|m| m.to_uci(castling).to_string())
        .collect();
    format!(
        "info depth {} seldepth {} score {score} nodes {} nps {nps} time {} pv {}",
        it.depth,
        it.seldepth,
        it.nodes,
        it.elapsed.as_millis(),
        pv.join(" ")
    )
}

/// Parse the arguments of `position`: the root and the legal moves played from it.
///
/// ```
/// use engine::search::uci::parse_position;
/// use shakmaty::CastlingMode;
/// let (_, moves) = parse_position(&["startpos", "moves", "e2e4", "e7e5"], CastlingMode::Standard).unwrap();
/// assert_eq!(moves.len(), 2);
/// assert!(parse_position(&["startpos", "moves", "e2e5"], CastlingMode::Standard).is_err());
/// ```
pub fn parse_position(args: &[&str], mode: CastlingMode) -> Result<(Chess, Vec<Move>), String> {
    let moves_at = args.iter().position(|&w| w == "moves");
    let setup = &args[..moves_at.unwrap_or(args.len())];
    let root: Chess = match setup.split_first() {
        Some((&"startpos", [])) => Chess::default(),
        Some((&"fen", fen)) if !fen.is_empty() => {
            let text = fen.join(" ");
            let fen: Fen = text.parse().map_err(|e| format!("bad FEN `{text}`: {e}"))?;
            fen.into_position(mode)
                .map_err(|e| format!("illegal position `{text}`: {e}"))?
        }
        _ => return Err("expected `position startpos` or `position fen <fen>`".into()),
    };
    let mut pos = root.clone();
    let mut moves = Vec::new();
    for &text in moves_at.map_or(&[][..], |i| &args[i + 1..]) {
        let m = text
            .parse::<UciMove>()
            .map_err(|_| format!("bad move `{text}`"))?
            .to_move(&pos)
            .map_err(|_| format!("illegal move `{text}`"))?;
        pos.play_unchecked(m);
        moves.push(m);
    }
    Ok((root, moves))
}

/// Parse the arguments of `go` for the side to move in `pos`.
pub fn parse_go(args: &[&str], pos: &Chess) -> Result<SearchLimits, String> {
    let mut limits = SearchLimits::default();
    let (mut wtime, mut btime, mut winc, mut binc, mut togo) = (None, None, 0u64, 0u64, None);
    let mut i = 0;
    let number = |i: usize| -> Result<u64, String> {
        let word = args
            .get(i + 1)
            .ok_or(format!("`{}` needs a number", args[i]))?;
        // Clocks can be negative when a GUI is late: treat as zero.
        word.parse::<i64>()
            .map(|v| v.max(0) as u64)
            .map_err(|_| format!("`{}` needs a number, not `{word}`", args[i]))
    };
    while i < args.len() {
        match args[i] {
            "infinite" | "ponder" => i += 1,
            "depth" => {
                limits.depth = Some(number(i)?.clamp(1, 64) as u32);
                i += 2;
            }
            "nodes" => {
                limits.nodes = Some(number(i)?.max(1));
                i += 2;
            }
            "movetime" => {
                limits.movetime = Some(Duration::from_millis(number(i)?.max(1)));
                i += 2;
            }
            "wtime" => {
                wtime = Some(number(i)?);
                i += 2;
            }
            "btime" => {
                btime = Some(number(i)?);
                i += 2;
            }
            "winc" => {
                winc = number(i)?;
                i += 2;
            }
            "binc" => {
                binc = number(i)?;
                i += 2;
            }
            "movestogo" => {
                togo = Some(number(i)?.min(u64::from(u32::MAX)) as u32);
                i += 2;
            }
            "mate" => {
                limits.depth = Some((number(i)? * 2).clamp(1, 64) as u32);
                i += 2;
            }
            other => return Err(format!("unknown `go` parameter `{other}`")),
        }
    }
    let mover = match pos.turn() {
        shakmaty::Color::White => wtime,
        shakmaty::Color::Black => btime,
    };
    if mover.is_some() {
        let ms = |t: Option<u64>| Duration::from_millis(t.unwrap_or(0));
        limits.clock = Some(Clocks {
            wtime: ms(wtime),
            btime: ms(btime),
            winc: ms(Some(winc)),
            binc: ms(Some(binc)),
            moves_to_go: togo,
        });
    }
    Ok(limits.resolve(pos.turn()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_parses_limits_and_clocks() {
        let pos = Chess::default();
        let l = parse_go(&["depth", "5", "nodes", "100"], &pos).unwrap();
        assert_eq!((l.depth, l.nodes), (Some(5), Some(100)));
        let l = parse_go(&["wtime", "60000", "btime", "1000", "winc", "1000"], &pos).unwrap();
        let hard = l.movetime.unwrap();
        assert!(hard > Duration::from_millis(1000) && hard < Duration::from_secs(30));
        assert!(l.soft_time.unwrap() <= hard);
        // A negative clock (a late GUI) is read as zero, not an error.
        let l = parse_go(&["wtime", "-20", "btime", "5"], &pos).unwrap();
        assert!(l.movetime.unwrap() <= Duration::from_millis(1));
        assert!(parse_go(&["depth"], &pos).is_err());
        assert!(parse_go(&["nodes", "many"], &pos).is_err());
    }

    #[test]
    fn chess960_castling_round_trips() {
        let fen = [
            "fen",
            "4k3/8/8/8/8/8/8/R3K2R",
            "w",
            "KQ",
            "-",
            "0",
            "1",
            "moves",
            "e1h1",
        ];
        let (root, moves) = parse_position(&fen, CastlingMode::Chess960).unwrap();
        assert!(moves[0].is_castle());
        assert_eq!(moves[0].to_uci(CastlingMode::Chess960).to_string(), "e1h1");
        assert_eq!(moves[0].to_uci(CastlingMode::Standard).to_string(), "e1g1");
        assert!(root.is_legal(moves[0]));
    }
}
