//! Time controls and game clocks: `10+0.1` (base seconds + increment) or `40/60+0.6`
//! (moves to go / base + increment), each side's clock kept by the referee.
//!
//! The referee measures each answer ([`GameClock::punch`]): the time is taken from the
//! mover's clock, a mover that used more than its clock plus the margin has lost on time (its
//! flag fell), then the increment is added; with moves to go, the base is added again each
//! time a side completes its moves. The mover is told the clocks as UCI's
//! `go wtime W btime B winc I binc I [movestogo M]` ([`GameClock::limits`]).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use shakmaty::Color;

use crate::search::limits::{Clocks, SearchLimits};

/// A time control: each side starts with `base`, gains `increment` after each of its moves,
/// and with `moves` gets `base` again after every `moves` of its moves.
///
/// ```
/// use std::time::Duration;
/// use engine::play::clock::TimeControl;
/// let tc: TimeControl = "10+0.1".parse().unwrap();
/// assert_eq!((tc.base, tc.increment, tc.moves), (Duration::from_secs(10), Duration::from_millis(100), None));
/// let tc: TimeControl = "40/60+0.6".parse().unwrap();
/// assert_eq!((tc.moves, tc.to_string()), (Some(40), "40/60+0.6".to_string()));
/// assert!("10+".parse::<TimeControl>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Each side's time at the start (and again after every `moves` moves).
    pub base: Duration,
    /// Added to the mover's clock after each of its moves.
    pub increment: Duration,
    /// Moves per period (`40/...`), or `None` for the whole game in one period.
    pub moves: Option<u32>,
}

/// Seconds as written in a time control: a non-negative decimal number.
fn seconds(text: &str, what: &str) -> Result<Duration, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("the {what} `{text}` is not a number of seconds"))?;
    if !value.is_finite() || !(0.0..=1e9).contains(&value) {
        return Err(format!(
            "the {what} `{text}` must be between 0 and 1e9 seconds"
        ));
    }
    Ok(Duration::from_secs_f64(value))
}

impl FromStr for TimeControl {
    type Err = String;

    /// `[MOVES/]BASE[+INCREMENT]`, in seconds (decimals allowed): `10+0.1`, `60`, `40/60+0.6`.
    fn from_str(text: &str) -> Result<Self, String> {
        let context =
            |e: String| format!("time control `{text}`: {e} (e.g. `10+0.1` or `40/60+0.6`)");
        let (moves, rest) = match text.split_once('/') {
            Some((m, rest)) => {
                let m: u32 =
                    m.parse().ok().filter(|&m| m > 0).ok_or_else(|| {
                        context(format!("`{m}` is not a positive number of moves"))
                    })?;
                (Some(m), rest)
            }
            None => (None, text),
        };
        let (base, increment) = match rest.split_once('+') {
            Some((b, i)) => (
                seconds(b, "base").map_err(context)?,
                seconds(i, "increment").map_err(context)?,
            ),
            None => (seconds(rest, "base").map_err(context)?, Duration::ZERO),
        };
        if base.is_zero() {
            return Err(context("the base time must be more than 0".to_string()));
        }
        Ok(TimeControl {
            base,
            increment,
            moves,
        })
    }
}

/// Written as its text (`"10+0.1"`), in settings files.
impl Serialize for TimeControl {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Read from its text; a bad one is an error naming it.
impl<'de> Deserialize<'de> for TimeControl {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(m) = self.moves {
            write!(f, "{m}/")?;
        }
        write!(f, "{}", self.base.as_secs_f64())?;
        if !self.increment.is_zero() {
            write!(f, "+{}", self.increment.as_secs_f64())?;
        }
        Ok(())
    }
}

/// A flag fall: the mover took `used` with `left` on its clock (plus the margin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlagFall {
    /// The side that lost on time.
    pub side: Color,
    /// What it had on its clock before the move.
    pub left: Duration,
    /// How long it took.
    pub used: Duration,
}

/// Both sides' clocks in one game.
///
/// ```
/// use std::time::Duration;
/// use engine::play::clock::GameClock;
/// use shakmaty::Color;
/// let ms = Duration::from_millis;
/// let mut clock = GameClock::new("1+0.1".parse().unwrap(), ms(50));
/// clock.punch(Color::White, ms(300)).unwrap();
/// assert_eq!(clock.left(Color::White), ms(800)); // 1000 - 300 + 100
/// // 820 ms is over the 800 left, but within the 50 ms margin: no loss.
/// clock.punch(Color::White, ms(820)).unwrap();
/// assert_eq!(clock.left(Color::White), ms(100)); // 0 + 100
/// assert!(clock.punch(Color::White, ms(151)).is_err()); // over 100 + 50: the flag falls
/// ```
#[derive(Clone, Debug)]
pub struct GameClock {
    control: TimeControl,
    margin: Duration,
    /// White's and Black's time left.
    left: [Duration; 2],
    /// White's and Black's moves left in the period (with `control.moves`).
    to_go: [u32; 2],
}

fn index(side: Color) -> usize {
    match side {
        Color::White => 0,
        Color::Black => 1,
    }
}

impl GameClock {
    /// Both clocks at the start of a game under `control`; a side may overrun its clock by
    /// `margin` (process and pipe overhead) without losing.
    pub fn new(control: TimeControl, margin: Duration) -> GameClock {
        let period = control.moves.unwrap_or(0);
        GameClock {
            control,
            margin,
            left: [control.base; 2],
            to_go: [period; 2],
        }
    }

    /// `side`'s time left.
    pub fn left(&self, side: Color) -> Duration {
        self.left[index(side)]
    }

    /// How long `side` may take for its move before its flag falls: its time plus the margin.
    pub fn allowed(&self, side: Color) -> Duration {
        self.left(side) + self.margin
    }

    /// The limits to search `side`'s move with: both clocks, both increments, and `side`'s
    /// moves to go (UCI's `go wtime btime winc binc movestogo`).
    pub fn limits(&self, side: Color) -> SearchLimits {
        SearchLimits::clocks(Clocks {
            wtime: self.left[0],
            btime: self.left[1],
            winc: self.control.increment,
            binc: self.control.increment,
            moves_to_go: self.control.moves.map(|_| self.to_go[index(side)]),
        })
    }

    /// Charges `side` for a move that took `used`: a [`FlagFall`] if `used` is over its
    /// clock plus the margin (the clock is then left as it was), else the time is taken (an
    /// overrun within the margin leaves zero), the increment added, and with moves to go a new
    /// period begun when the side has made its moves.
    pub fn punch(&mut self, side: Color, used: Duration) -> Result<(), FlagFall> {
        let i = index(side);
        let left = self.left[i];
        if used > left + self.margin {
            return Err(FlagFall { side, left, used });
        }
        self.left[i] = left.saturating_sub(used) + self.control.increment;
        if let Some(period) = self.control.moves {
            self.to_go[i] = self.to_go[i].saturating_sub(1);
            if self.to_go[i] == 0 {
                self.left[i] += self.control.base;
                self.to_go[i] = period;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn time_controls_parse_and_print() {
        let tc: TimeControl = "0.5+0.05".parse().unwrap();
        assert_eq!((tc.base, tc.increment, tc.moves), (ms(500), ms(50), None));
        assert_eq!(tc.to_string(), "0.5+0.05");
        let tc: TimeControl = "60".parse().unwrap();
        assert_eq!((tc.base, tc.increment), (Duration::from_secs(60), ms(0)));
        assert_eq!(tc.to_string(), "60");
        let json = serde_json::to_string(&"40/60+0.6".parse::<TimeControl>().unwrap()).unwrap();
        assert_eq!(json, r#""40/60+0.6""#);
        assert_eq!(
            serde_json::from_str::<TimeControl>(&json).unwrap().moves,
            Some(40)
        );
        assert!(serde_json::from_str::<TimeControl>(r#""fast""#).is_err());
        for bad in [
            "", "+1", "0+1", "x+1", "10+y", "-1+0", "0/10", "a/10", "10+1+1", "inf",
        ] {
            let e = bad.parse::<TimeControl>().unwrap_err();
            assert!(e.contains(&format!("`{bad}`")), "{bad}: {e}");
        }
    }

    #[test]
    fn increment_is_added_after_the_move_and_clocks_are_separate() {
        let mut c = GameClock::new("2+0.5".parse().unwrap(), ms(0));
        c.punch(Color::White, ms(700)).unwrap();
        c.punch(Color::Black, ms(100)).unwrap();
        assert_eq!(c.left(Color::White), ms(1800));
        assert_eq!(c.left(Color::Black), ms(2400));
        let l = c.limits(Color::White).clock.unwrap();
        assert_eq!(
            (l.wtime, l.btime, l.winc, l.binc),
            (ms(1800), ms(2400), ms(500), ms(500))
        );
        assert_eq!(l.moves_to_go, None);
    }

    #[test]
    fn a_move_over_the_clock_and_margin_is_a_flag_fall() {
        let mut c = GameClock::new("1".parse().unwrap(), ms(20));
        assert_eq!(c.allowed(Color::Black), ms(1020));
        let flag = c.punch(Color::Black, ms(1021)).unwrap_err();
        assert_eq!(
            flag,
            FlagFall {
                side: Color::Black,
                left: ms(1000),
                used: ms(1021)
            }
        );
        assert_eq!(
            c.left(Color::Black),
            ms(1000),
            "a failed punch leaves the clock"
        );
        c.punch(Color::Black, ms(1020)).unwrap();
        assert_eq!(c.left(Color::Black), ms(0));
    }

    #[test]
    fn moves_to_go_count_down_and_a_new_period_adds_the_base() {
        let mut c = GameClock::new("2/10".parse().unwrap(), ms(0));
        let togo = |c: &GameClock| c.limits(Color::White).clock.unwrap().moves_to_go;
        assert_eq!(togo(&c), Some(2));
        c.punch(Color::White, ms(4000)).unwrap();
        assert_eq!((togo(&c), c.left(Color::White)), (Some(1), ms(6000)));
        c.punch(Color::White, ms(5000)).unwrap();
        assert_eq!((togo(&c), c.left(Color::White)), (Some(2), ms(11000)));
        // Black's period is its own.
        assert_eq!(c.limits(Color::Black).clock.unwrap().moves_to_go, Some(2));
    }
}
