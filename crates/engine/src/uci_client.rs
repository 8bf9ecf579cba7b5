//! A UCI client: drive an external engine process (`stockfish`, the user's own engine,
//! `gradtune-uci`) through the protocol: handshake, options, positions, searches.
//!
//! [`EngineSpec`] says how to start an engine (a command line split as a shell would, the
//! options to set, a time limit for answers); [`UciEngine`] is a running one. Every failure is
//! a [`UciError`] naming the engine's command and what happened: a time-out (a hung engine),
//! the process ending (a crash), a malformed answer. After an error the engine is in an
//! unknown state: drop it (which kills the process) and [`EngineSpec::start`] a new one.
//!
//! Engine processes run in their own process group, so a Ctrl-C at the terminal reaches the
//! program driving them, which stops them itself, and not the engines.

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position};
use thiserror::Error;

use crate::evaluator::MATE;
use crate::limits::SearchLimits;

/// How long a stopping engine may take to exit after `quit` before it is killed.
const QUIT_GRACE: Duration = Duration::from_millis(200);
/// How often a wait checks the abort flag.
const POLL: Duration = Duration::from_millis(50);
/// Lines of the engine's standard error kept for the message of a crash.
const STDERR_LINES: usize = 5;
/// Mate distances beyond this many moves are taken as this many (the score stays a mate).
const MAX_MATE_MOVES: i32 = 1000;
/// The longest answer line quoted in an error.
const QUOTED: usize = 200;

/// What went wrong with an external engine. Every message names the engine's command.
#[derive(Debug, Error)]
pub enum UciError {
    /// The command line is empty or its quoting is unbalanced.
    #[error("engine command `{command}`: {message}")]
    Command {
        /// The command as given.
        command: String,
        /// What is wrong with it.
        message: String,
    },
    /// The process could not be started.
    #[error("engine `{command}`: cannot start: {error}")]
    Spawn {
        /// The command.
        command: String,
        /// Why (part of this message, so not also its `source`).
        error: io::Error,
    },
    /// No expected answer in time: the engine hangs (or the limit is too short).
    #[error("engine `{command}`: no `{expected}` within {:.1} s (hung?)", after.as_secs_f64())]
    Timeout {
        /// The command.
        command: String,
        /// The answer waited for (`uciok`, `readyok`, `bestmove`).
        expected: &'static str,
        /// How long it waited.
        after: Duration,
    },
    /// The engine ended (it exited or crashed) while an answer was expected or a command sent.
    #[error("engine `{command}` exited ({status}) {during}{stderr}")]
    Exited {
        /// The command.
        command: String,
        /// `while `uciok` was expected` or `when sent `uci``.
        during: String,
        /// The exit status, as far as known (`exit status: 3`, `signal: 9`, `still running`).
        status: String,
        /// The last lines of its standard error, `: ...`, or empty.
        stderr: String,
    },
    /// An answer that is not valid UCI where it matters (a score, a best move).
    #[error("engine `{command}`: malformed answer `{line}`: {message}")]
    Malformed {
        /// The command.
        command: String,
        /// The line (cut to 200 characters).
        line: String,
        /// What is wrong with it.
        message: String,
    },
    /// Writing to the engine failed (it has gone).
    #[error("engine `{command}`: cannot send `{sent}`: {error}")]
    Write {
        /// The command.
        command: String,
        /// What was being sent.
        sent: String,
        /// Why.
        error: io::Error,
    },
    /// A search was asked for without a depth, node or time limit (it would never end).
    #[error("engine `{command}`: a search needs a depth, node or time limit")]
    NoLimit {
        /// The command.
        command: String,
    },
    /// The caller's abort flag was set while waiting.
    #[error("engine `{command}`: interrupted")]
    Interrupted {
        /// The command.
        command: String,
    },
}

impl UciError {
    /// Whether the error is the caller's own interruption rather than the engine's fault.
    pub fn is_interrupted(&self) -> bool {
        matches!(self, UciError::Interrupted { .. })
    }
}

/// Splits a command line into words as a POSIX shell would, without expanding anything:
/// blanks separate words; `'...'` is literal; `"..."` is literal except `\"`, `\\`, `\$` and
/// `` \` ``; outside quotes `\` escapes the next character.
///
/// ```
/// use engine::uci_client::split_command;
/// assert_eq!(split_command("stockfish").unwrap(), ["stockfish"]);
/// assert_eq!(
///     split_command(r#"./my engine --weights "a b.json" 'it''s' x\ y"#).unwrap(),
///     ["./my", "engine", "--weights", "a b.json", "its", "x y"]
/// );
/// assert!(split_command("engine 'unclosed").is_err());
/// ```
pub fn split_command(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("unclosed single quote".to_string()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("unclosed double quote".to_string()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("unclosed double quote".to_string()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err("a trailing backslash".to_string()),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err("empty command".to_string());
    }
    Ok(words)
}

/// How to start an external engine.
///
/// ```
/// use std::time::Duration;
/// use engine::uci_client::EngineSpec;
/// let spec = EngineSpec::new("stockfish")
///     .option("Threads", "1")
///     .option("Hash", "16")
///     .timeout(Duration::from_secs(5));
/// assert_eq!(spec.command(), "stockfish");
/// ```
#[derive(Clone, Debug)]
pub struct EngineSpec {
    command: String,
    options: Vec<(String, String)>,
    timeout: Duration,
}

impl EngineSpec {
    /// An engine started by the command line `command` (split by [`split_command`]), with
    /// no options and 10 s to answer `uci` and `isready`.
    pub fn new(command: impl Into<String>) -> EngineSpec {
        EngineSpec {
            command: command.into(),
            options: Vec::new(),
            timeout: Duration::from_secs(10),
        }
    }

    /// Sets a UCI option after the handshake (`setoption name NAME value VALUE`).
    pub fn option(mut self, name: impl Into<String>, value: impl Into<String>) -> EngineSpec {
        self.options.push((name.into(), value.into()));
        self
    }

    /// How long the engine may take to answer `uci` and `isready`.
    pub fn timeout(mut self, timeout: Duration) -> EngineSpec {
        self.timeout = timeout;
        self
    }

    /// The command line as given.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Starts the engine: spawns it, `uci` / `uciok`, the options, `isready` / `readyok`.
    pub fn start(&self) -> Result<UciEngine, UciError> {
        UciEngine::start(self)
    }
}

/// A score as an engine reports it, from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UciScore {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: the side to move is mated; 0: it is mated now).
    Mate(i32),
}

impl UciScore {
    /// Centipawns, mates as gradtune's search scores them: `MATE - plies` for the side that
    /// mates (`±(MATE - plies)`, [`MATE`] = 30000).
    ///
    /// ```
    /// use engine::uci_client::UciScore;
    /// assert_eq!(UciScore::Cp(-35).centipawns(), -35);
    /// assert_eq!(UciScore::Mate(1).centipawns(), 29_999);
    /// assert_eq!(UciScore::Mate(-2).centipawns(), -29_996);
    /// assert_eq!(UciScore::Mate(0).centipawns(), -30_000);
    /// ```
    pub fn centipawns(self) -> i32 {
        match self {
            UciScore::Cp(cp) => cp,
            UciScore::Mate(n) if n > 0 => MATE - (2 * n.min(MAX_MATE_MOVES) - 1),
            UciScore::Mate(n) => -(MATE - 2 * n.saturating_neg().min(MAX_MATE_MOVES)),
        }
    }

    /// [`centipawns`](Self::centipawns) from White's point of view, `turn` being the side to
    /// move of the searched position.
    ///
    /// ```
    /// use engine::uci_client::UciScore;
    /// use shakmaty::Color;
    /// assert_eq!(UciScore::Cp(20).white(Color::White), 20);
    /// assert_eq!(UciScore::Cp(20).white(Color::Black), -20);
    /// ```
    pub fn white(self, turn: Color) -> i32 {
        match turn {
            Color::White => self.centipawns(),
            Color::Black => -self.centipawns(),
        }
    }
}

impl fmt::Display for UciScore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UciScore::Cp(cp) => write!(f, "cp {cp}"),
            UciScore::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

/// The answer to one `go`.
#[derive(Clone, Debug, PartialEq)]
pub struct UciSearch {
    /// The best move, checked to be legal; `None` when the engine said there is none
    /// (`bestmove (none)` or `0000`).
    pub best_move: Option<Move>,
    /// The score of the last `info` line with a score (an exact one when there is one; of
    /// the first principal variation), side to move's view.
    pub score: Option<UciScore>,
    /// The depth of that line.
    pub depth: u32,
    /// The last node count reported.
    pub nodes: u64,
    /// How long the search took, `go` to `bestmove`.
    pub elapsed: Duration,
}

/// The `go` command for `limits`: `go depth D nodes N movetime MS` (whichever are set), or
/// `None` when none is (an infinite search).
///
/// ```
/// use std::time::Duration;
/// use engine::uci_client::go_command;
/// use engine::SearchLimits;
/// assert_eq!(go_command(&SearchLimits::nodes(5000)).unwrap(), "go nodes 5000");
/// assert_eq!(go_command(&SearchLimits::movetime(Duration::from_millis(50))).unwrap(), "go movetime 50");
/// assert_eq!(go_command(&SearchLimits::default()), None);
/// ```
pub fn go_command(limits: &SearchLimits) -> Option<String> {
    let mut go = "go".to_string();
    if let Some(d) = limits.depth {
        go += &format!(" depth {d}");
    }
    if let Some(n) = limits.nodes {
        go += &format!(" nodes {n}");
    }
    if let Some(t) = limits.movetime {
        go += &format!(" movetime {}", t.as_millis().max(1));
    }
    (go != "go").then_some(go)
}

/// The parts of an `info` line a client needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Info {
    depth: Option<u32>,
    nodes: Option<u64>,
    multipv: Option<u32>,
    score: Option<UciScore>,
    bound: bool,
}

/// Reads an `info` line; `Err` names what is malformed. `info string ...` is empty.
fn parse_info(line: &str) -> Result<Info, String> {
    let mut info = Info::default();
    let mut words = line.split_whitespace().skip(1);
    fn number<T: std::str::FromStr>(what: &str, w: Option<&str>) -> Result<T, String> {
        let w = w.ok_or_else(|| format!("`{what}` without a value"))?;
        w.parse()
            .map_err(|_| format!("`{what}` is followed by `{w}`, not a number"))
    }
    while let Some(w) = words.next() {
        match w {
            "string" | "pv" | "refutation" | "currline" => break,
            "depth" => info.depth = Some(number("depth", words.next())?),
            "nodes" => info.nodes = Some(number("nodes", words.next())?),
            "multipv" => info.multipv = Some(number("multipv", words.next())?),
            "score" => {
                let kind = words.next();
                let value = words.next();
                info.score = Some(match kind {
                    Some("cp") => UciScore::Cp(number("score cp", value)?),
                    Some("mate") => UciScore::Mate(number("score mate", value)?),
                    other => {
                        return Err(format!(
                            "`score` is followed by `{}`, not `cp` or `mate`",
                            other.unwrap_or("")
                        ))
                    }
                });
            }
            "lowerbound" | "upperbound" => info.bound = true,
            _ => {}
        }
    }
    Ok(info)
}

/// A running external engine. Dropping it sends `quit` and kills the process if it has not
/// exited within a moment.
pub struct UciEngine {
    command: String,
    child: Child,
    stdin: BufWriter<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    name: Option<String>,
    timeout: Duration,
}

impl fmt::Debug for UciEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UciEngine")
            .field("command", &self.command)
            .field("pid", &self.child.id())
            .field("name", &self.name)
            .finish()
    }
}

/// Sends every line of `r` (lossily decoded, without the line end) until its end.
fn forward_lines(r: impl Read, tx: mpsc::Sender<String>) {
    let mut r = BufReader::new(r);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match r.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buf);
                if tx
                    .send(line.trim_end_matches(['\n', '\r']).to_string())
                    .is_err()
                {
                    return;
                }
            }
        }
    }
}

fn quote(line: &str) -> String {
    match line.char_indices().nth(QUOTED) {
        Some((i, _)) => format!("{}...", &line[..i]),
        None => line.to_string(),
    }
}

impl UciEngine {
    fn start(spec: &EngineSpec) -> Result<UciEngine, UciError> {
        let command = spec.command.clone();
        let argv = split_command(&command).map_err(|message| UciError::Command {
            command: command.clone(),
            message,
        })?;
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Its own process group: a Ctrl-C at the terminal does not reach the engine.
            cmd.process_group(0);
        }
        let mut child = cmd.spawn().map_err(|error| UciError::Spawn {
            command: command.clone(),
            error,
        })?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(UciError::Spawn {
                command,
                error: io::Error::other("no pipes to the process"),
            });
        };
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || forward_lines(stdout, tx));
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let keep = tail.clone();
        let (etx, erx) = mpsc::channel::<String>();
        std::thread::spawn(move || forward_lines(stderr, etx));
        std::thread::spawn(move || {
            for line in erx {
                if let Ok(mut t) = keep.lock() {
                    if t.len() == STDERR_LINES {
                        t.pop_front();
                    }
                    t.push_back(line);
                }
            }
        });
        let mut engine = UciEngine {
            command,
            child,
            stdin: BufWriter::new(stdin),
            lines,
            stderr: tail,
            name: None,
            timeout: spec.timeout,
        };
        engine.send("uci")?;
        let deadline = Instant::now() + spec.timeout;
        let mut name = None;
        engine.wait_for("uciok", deadline, None, |line| {
            if let Some(n) = line.strip_prefix("id name ") {
                name = Some(n.trim().to_string());
            }
            Ok((line.trim() == "uciok").then_some(()))
        })?;
        engine.name = name;
        for (name, value) in &spec.options {
            engine.send(&format!("setoption name {name} value {value}"))?;
        }
        engine.ready()?;
        Ok(engine)
    }

    /// The command line it was started with.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The name it gave (`id name ...`), if any.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Sends one line. An engine that has gone is [`UciError::Exited`] (with its status and
    /// last words), another failure [`UciError::Write`].
    pub fn send(&mut self, line: &str) -> Result<(), UciError> {
        let r = writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush());
        r.map_err(|error| {
            let exited = self.exited(format!("when sent `{}`", quote(line)));
            match exited {
                UciError::Exited { ref status, .. } if !status.starts_with("output closed") => {
                    exited
                }
                _ => UciError::Write {
                    command: self.command.clone(),
                    sent: quote(line),
                    error,
                },
            }
        })
    }

    /// `isready`, waiting for `readyok` (the spec's time-out).
    pub fn ready(&mut self) -> Result<(), UciError> {
        self.send("isready")?;
        let deadline = Instant::now() + self.timeout;
        self.wait_for("readyok", deadline, None, |line| {
            Ok((line.trim() == "readyok").then_some(()))
        })
    }

    /// `ucinewgame` then `isready`: the engine forgets earlier searches.
    pub fn new_game(&mut self) -> Result<(), UciError> {
        self.send("ucinewgame")?;
        self.ready()
    }

    /// Reads lines until `on_line` returns a value (or an error), the deadline passes, the
    /// output ends, or `abort` is set.
    fn wait_for<T>(
        &mut self,
        expected: &'static str,
        deadline: Instant,
        abort: Option<&AtomicBool>,
        mut on_line: impl FnMut(&str) -> Result<Option<T>, String>,
    ) -> Result<T, UciError> {
        let start = Instant::now();
        loop {
            if abort.is_some_and(|a| a.load(Ordering::Relaxed)) {
                return Err(UciError::Interrupted {
                    command: self.command.clone(),
                });
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(UciError::Timeout {
                    command: self.command.clone(),
                    expected,
                    after: now - start,
                });
            }
            let slice = if abort.is_some() {
                POLL.min(deadline - now)
            } else {
                deadline - now
            };
            match self.lines.recv_timeout(slice) {
                Ok(line) => match on_line(&line) {
                    Ok(Some(v)) => return Ok(v),
                    Ok(None) => {}
                    Err(message) => {
                        return Err(UciError::Malformed {
                            command: self.command.clone(),
                            line: quote(&line),
                            message,
                        })
                    }
                },
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.exited(format!("while `{expected}` was expected")))
                }
            }
        }
    }

    /// The error for an engine whose output ended.
    fn exited(&mut self, during: String) -> UciError {
        // The output ends just before the process does: give it a moment.
        let until = Instant::now() + QUIT_GRACE;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break s.to_string(),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                Ok(None) => break "output closed, still running".to_string(),
                Err(e) => break format!("status unknown: {e}"),
            }
        };
        // Let the standard error reader catch up with a dying process's last words.
        std::thread::sleep(Duration::from_millis(20));
        let stderr = self
            .stderr
            .lock()
            .map(|t| t.iter().cloned().collect::<Vec<_>>().join(" | "))
            .unwrap_or_default();
        UciError::Exited {
            command: self.command.clone(),
            during,
            status,
            stderr: if stderr.is_empty() {
                String::new()
            } else {
                format!("; its last words: {}", quote(&stderr))
            },
        }
    }

    /// Searches `root` after `moves` within `limits` (which need a depth, node or time limit),
    /// waiting at most `timeout` for `bestmove`, and checks that the best move is legal.
    /// Setting `abort` ends the wait with [`UciError::Interrupted`] (the engine is then still
    /// searching: drop it).
    pub fn search(
        &mut self,
        root: &Chess,
        moves: &[Move],
        limits: &SearchLimits,
        timeout: Duration,
        abort: Option<&AtomicBool>,
    ) -> Result<UciSearch, UciError> {
        let go = go_command(limits).ok_or_else(|| UciError::NoLimit {
            command: self.command.clone(),
        })?;
        let mut pos = root.clone();
        let mut position = format!(
            "position fen {}",
            Fen::from_position(root, EnPassantMode::Legal)
        );
        if !moves.is_empty() {
            position += " moves";
            for &m in moves {
                position += &format!(" {}", UciMove::from_move(m, CastlingMode::Standard));
                pos.play_unchecked(m);
            }
        }
        self.send(&position)?;
        let start = Instant::now();
        self.send(&go)?;
        let mut exact: Option<(UciScore, u32)> = None;
        let mut bound: Option<(UciScore, u32)> = None;
        let mut depth = 0;
        let mut nodes = 0;
        let best_move = self.wait_for("bestmove", start + timeout, abort, |line| {
            let mut words = line.split_whitespace();
            match words.next() {
                Some("info") => {
                    let info = parse_info(line)?;
                    depth = info.depth.unwrap_or(depth);
                    nodes = info.nodes.unwrap_or(nodes);
                    if let (Some(s), None | Some(1)) = (info.score, info.multipv) {
                        let d = info.depth.unwrap_or(depth);
                        if info.bound {
                            bound = Some((s, d));
                        } else {
                            exact = Some((s, d));
                        }
                    }
                    Ok(None)
                }
                Some("bestmove") => {
                    let Some(text) = words.next() else {
                        return Err("`bestmove` without a move".to_string());
                    };
                    if text == "(none)" || text == "0000" {
                        return Ok(Some(None));
                    }
                    let m = text
                        .parse::<UciMove>()
                        .map_err(|_| format!("`{text}` is not a move"))?
                        .to_move(&pos)
                        .map_err(|_| {
                            format!(
                                "`{text}` is not legal in {}",
                                Fen::from_position(&pos, EnPassantMode::Legal)
                            )
                        })?;
                    Ok(Some(Some(m)))
                }
                _ => Ok(None),
            }
        })?;
        let (score, depth) = match exact.or(bound) {
            Some((s, d)) => (Some(s), d),
            None => (None, depth),
        };
        Ok(UciSearch {
            best_move,
            score,
            depth,
            nodes,
            elapsed: start.elapsed(),
        })
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = writeln!(self.stdin, "quit").and_then(|()| self.stdin.flush());
            let until = Instant::now() + QUIT_GRACE;
            while Instant::now() < until {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_are_read_or_refused() {
        let i = parse_info(
            "info depth 12 seldepth 18 multipv 1 score cp -35 nodes 1234 nps 1 pv e2e4 e7e5",
        )
        .unwrap();
        assert_eq!(i.depth, Some(12));
        assert_eq!(i.nodes, Some(1234));
        assert_eq!(i.score, Some(UciScore::Cp(-35)));
        assert!(!i.bound);
        let i = parse_info("info depth 3 score mate -2 upperbound").unwrap();
        assert_eq!((i.score, i.bound), (Some(UciScore::Mate(-2)), true));
        let i = parse_info("info string score cp banana").unwrap();
        assert_eq!(i.score, None);
        for bad in [
            "info depth 3 score cp banana",
            "info score wdl 1 2 3",
            "info depth",
            "info nodes -5",
        ] {
            assert!(parse_info(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn mates_map_to_search_scores() {
        for n in [1, 2, 7] {
            let s = UciScore::Mate(n).centipawns();
            assert_eq!(crate::search::mate_in(s), Some(n), "mate {n}");
            assert_eq!(UciScore::Mate(-n).centipawns(), -(MATE - 2 * n));
        }
        // Absurd mate distances stay scores, never overflow.
        assert!(UciScore::Mate(i32::MAX).centipawns() > 0);
        assert!(UciScore::Mate(i32::MIN).centipawns() < 0);
    }
}
