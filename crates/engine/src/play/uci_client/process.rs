//! A running engine process: spawning it, the reader threads on its pipes, sending lines,
//! waiting for answers with a deadline, the `go` / `bestmove` exchange, and stopping it.

use std::collections::{HashSet, VecDeque};
use std::fmt;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

use super::command::split_command;
use super::options::SpinOption;
use super::protocol::{go_command, parse_info, UciScore, UciSearch};
use super::spec::EngineSpec;
use crate::error::uci::UciError;
use crate::search::limits::SearchLimits;

/// How long a stopping engine may take to exit after `quit` before it is killed.
const QUIT_GRACE: Duration = Duration::from_millis(200);
/// How often a wait checks the abort flag.
const POLL: Duration = Duration::from_millis(50);
/// Lines of the engine's standard error kept for the message of a crash.
const STDERR_LINES: usize = 5;
/// Missing options named in a [`UciError::MissingOptions`].
const MISSING_SHOWN: usize = 5;
/// The longest answer line quoted in an error.
const QUOTED: usize = 200;

/// A running external engine. Dropping it sends `quit` and kills the process if it has not
/// exited within a moment.
pub struct UciEngine {
    command: String,
    child: Child,
    stdin: BufWriter<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    name: Option<String>,
    options: Vec<String>,
    spins: Vec<SpinOption>,
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

/// The option name of an `option name NAME type ...` line (a name may hold spaces; runs of
/// white space in it become one space).
pub(super) fn declared_option(line: &str) -> Option<String> {
    let mut words = line.split_whitespace();
    if words.next()? != "option" || words.next()? != "name" {
        return None;
    }
    let name: Vec<&str> = words.take_while(|w| *w != "type").collect();
    (!name.is_empty()).then(|| name.join(" "))
}

fn quote(line: &str) -> String {
    match line.char_indices().nth(QUOTED) {
        Some((i, _)) => format!("{}...", &line[..i]),
        None => line.to_string(),
    }
}

/// Starts `command` (split like a shell line) in its own process group, with pipes to its
/// standard input, output and error.
fn spawn(command: &str) -> Result<(Child, ChildStdin, ChildStdout, ChildStderr), UciError> {
    let argv = split_command(command).map_err(|message| UciError::Command {
        command: command.to_string(),
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
        command: command.to_string(),
        error,
    })?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(UciError::Spawn {
            command: command.to_string(),
            error: io::Error::other("no pipes to the process"),
        });
    };
    Ok((child, stdin, stdout, stderr))
}

/// Keeps the last [`STDERR_LINES`] lines of the engine's standard error (read by a thread of
/// its own), for the errors that name them.
fn keep_stderr(stderr: ChildStderr) -> Arc<Mutex<VecDeque<String>>> {
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
    tail
}

impl UciEngine {
    pub(super) fn start(spec: &EngineSpec) -> Result<UciEngine, UciError> {
        let command = spec.command.clone();
        let (child, stdin, stdout, stderr) = spawn(&command)?;
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || forward_lines(stdout, tx));
        let tail = keep_stderr(stderr);
        let mut engine = UciEngine {
            command,
            child,
            stdin: BufWriter::new(stdin),
            lines,
            stderr: tail,
            name: None,
            options: Vec::new(),
            spins: Vec::new(),
            timeout: spec.timeout,
        };
        if !spec.handshake {
            for (name, value) in &spec.options {
                engine.send(&format!("setoption name {name} value {value}"))?;
            }
            return Ok(engine);
        }
        engine.handshake(spec)?;
        Ok(engine)
    }

    /// The UCI handshake: `uci` until `uciok` (the engine's name and options), the required
    /// options checked, `spec`'s options set, then `isready`.
    fn handshake(&mut self, spec: &EngineSpec) -> Result<(), UciError> {
        self.send("uci")?;
        let deadline = Instant::now() + spec.timeout;
        let mut name = None;
        let (mut options, mut spins) = (Vec::new(), Vec::new());
        self.wait_for("uciok", deadline, None, |line| {
            if let Some(n) = line.strip_prefix("id name ") {
                name = Some(n.trim().to_string());
            } else if let Some(option) = declared_option(line) {
                options.push(option);
                spins.extend(SpinOption::parse(line));
            }
            Ok((line.trim() == "uciok").then_some(()))
        })?;
        self.name = name;
        self.options = options;
        self.spins = spins;
        self.check_required(&spec.required)?;
        for (name, value) in &spec.options {
            self.send(&format!("setoption name {name} value {value}"))?;
        }
        self.ready()
    }

    /// The command line it was started with.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The name it gave (`id name ...`), if any.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The names of the options the engine declared during the handshake (`option name X
    /// type ...`), in its order; empty without the handshake.
    pub fn options(&self) -> &[String] {
        &self.options
    }

    /// The integer options the engine declared (`type spin` with a default, a minimum and a
    /// maximum), in its order: its tunables.
    pub fn spin_options(&self) -> &[SpinOption] {
        &self.spins
    }

    /// [`UciError::MissingOptions`] unless the engine declared every option of `required`.
    fn check_required(&self, required: &[String]) -> Result<(), UciError> {
        if required.is_empty() {
            return Ok(());
        }
        let declared: HashSet<&str> = self.options.iter().map(String::as_str).collect();
        let missing: Vec<&String> = required
            .iter()
            .filter(|r| !declared.contains(r.as_str()))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(UciError::MissingOptions {
            command: self.command.clone(),
            name: self.name.clone().unwrap_or_default(),
            first: missing
                .iter()
                .take(MISSING_SHOWN)
                .map(|m| m.to_string())
                .collect(),
            missing: missing.len(),
            required: required.len(),
        })
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

    /// Sends `lines`, then reads the engine's lines until `on_line` returns a value (the
    /// answer), an error (a [`UciError::Malformed`] quoting the line), `timeout` passes (a
    /// [`UciError::Timeout`] naming `expected`), the engine exits, or `abort` is set. For
    /// requests outside UCI, such as the trace protocol's `trace`.
    pub fn ask<T>(
        &mut self,
        lines: &[&str],
        expected: &'static str,
        timeout: Duration,
        abort: Option<&AtomicBool>,
        on_line: impl FnMut(&str) -> Result<Option<T>, String>,
    ) -> Result<T, UciError> {
        for line in lines {
            self.send(line)?;
        }
        self.wait_for(expected, Instant::now() + timeout, abort, on_line)
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
        let (position, pos) = position_command(root, moves);
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
                Some("bestmove") => best_move(words.next(), &pos).map(Some),
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

/// The `position` command of `root` after `moves`, and the position it reaches.
fn position_command(root: &Chess, moves: &[Move]) -> (String, Chess) {
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
    (position, pos)
}

/// The move of a `bestmove` line (its word `text`), checked to be legal in `pos`; `None` for
/// `(none)` or `0000`.
fn best_move(text: Option<&str>, pos: &Chess) -> Result<Option<Move>, String> {
    let Some(text) = text else {
        return Err("`bestmove` without a move".to_string());
    };
    if text == "(none)" || text == "0000" {
        return Ok(None);
    }
    let m = text
        .parse::<UciMove>()
        .map_err(|_| format!("`{text}` is not a move"))?
        .to_move(pos)
        .map_err(|_| {
            format!(
                "`{text}` is not legal in {}",
                Fen::from_position(pos, EnPassantMode::Legal)
            )
        })?;
    Ok(Some(m))
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
