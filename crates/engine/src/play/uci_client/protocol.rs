//! The protocol's text: `go` commands, `info` lines and the scores and answers they carry.

use std::fmt;
use std::time::Duration;

use shakmaty::{Color, Move};

use crate::score::MATE;
use crate::search::limits::SearchLimits;

/// Mate distances beyond this many moves are taken as this many (the score stays a mate).
const MAX_MATE_MOVES: i32 = 1000;

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
    /// use engine::play::uci_client::UciScore;
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
    /// use engine::play::uci_client::UciScore;
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

/// The `go` command for `limits`: `go depth D nodes N movetime MS wtime W btime B winc I binc
/// I movestogo M` (whichever are set; times in milliseconds), or `None` when none is (an
/// infinite search).
///
/// ```
/// use std::time::Duration;
/// use engine::search::limits::Clocks;
/// use engine::play::uci_client::go_command;
/// use engine::SearchLimits;
/// assert_eq!(go_command(&SearchLimits::nodes(5000)).unwrap(), "go nodes 5000");
/// assert_eq!(go_command(&SearchLimits::movetime(Duration::from_millis(50))).unwrap(), "go movetime 50");
/// assert_eq!(go_command(&SearchLimits::default()), None);
/// let ms = Duration::from_millis;
/// let clocks = Clocks { wtime: ms(9000), btime: ms(8500), winc: ms(100), binc: ms(100), moves_to_go: None };
/// assert_eq!(go_command(&SearchLimits::clocks(clocks)).unwrap(), "go wtime 9000 btime 8500 winc 100 binc 100");
/// let clocks = Clocks { moves_to_go: Some(12), ..clocks };
/// assert!(go_command(&SearchLimits::clocks(clocks)).unwrap().ends_with(" movestogo 12"));
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
    if let Some(c) = limits.clock {
        go += &format!(
            " wtime {} btime {} winc {} binc {}",
            c.wtime.as_millis(),
            c.btime.as_millis(),
            c.winc.as_millis(),
            c.binc.as_millis()
        );
        if let Some(m) = c.moves_to_go {
            go += &format!(" movestogo {m}");
        }
    }
    (go != "go").then_some(go)
}

/// The parts of an `info` line a client needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Info {
    pub(super) depth: Option<u32>,
    pub(super) nodes: Option<u64>,
    pub(super) multipv: Option<u32>,
    pub(super) score: Option<UciScore>,
    pub(super) bound: bool,
}

/// Reads an `info` line; `Err` names what is malformed. `info string ...` is empty.
pub(super) fn parse_info(line: &str) -> Result<Info, String> {
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
