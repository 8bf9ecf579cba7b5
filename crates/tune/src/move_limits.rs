//! The options that limit each move of the games a command plays (`tune match`, `tune spsa`,
//! `tune datagen`): a node count, a time per move, or a time control with its margin.

use std::time::Duration;

use engine::play::clock::TimeControl;
use engine::play::options::PlayOptions;

/// How each move of a game is limited.
#[derive(clap::Args, Clone, Debug)]
pub struct MoveLimitArgs {
    /// Nodes per move (the default: 5000; `tune spsa`: 10000). An engine that ignores
    /// `go nodes` never answers: use --tc (or --movetime) for it.
    #[arg(long, conflicts_with_all = ["movetime", "tc"])]
    pub nodes: Option<u64>,
    /// Milliseconds per move instead of a node count (games are then not reproducible).
    #[arg(long, conflicts_with = "tc")]
    pub movetime: Option<u64>,
    /// A time control instead: `BASE+INC` in seconds (`10+0.1`), `BASE` (`60`) or
    /// `MOVES/BASE+INC` (`40/60+0.6`). Each side's clock is kept (time measured around each
    /// answer), the engines get `go wtime W btime B winc I binc I [movestogo M]`, the
    /// increment is added after each move, and a side that overruns its clock by more than
    /// --time-margin loses on time (a draw if the other side has no mating material). Games
    /// are then not reproducible.
    #[arg(long, value_name = "TC", value_parser = parse_tc)]
    pub tc: Option<TimeControl>,
    /// With --tc: milliseconds a side may overrun its clock without losing on time (process
    /// and pipe overhead, as fastchess's `timemargin`).
    #[arg(long, value_name = "MS", default_value_t = 50)]
    pub time_margin: u64,
}

/// A `--tc` value: `10+0.1`, `60`, `40/60+0.6`.
pub fn parse_tc(text: &str) -> Result<TimeControl, String> {
    text.parse()
}

impl MoveLimitArgs {
    /// The play options these give, with `default_nodes` when none of the limits is set.
    pub fn options(&self, default_nodes: u64) -> PlayOptions {
        let options = PlayOptions::default().time_margin(Duration::from_millis(self.time_margin));
        match (self.tc, self.movetime) {
            (Some(tc), _) => options.time_control(tc),
            (None, Some(ms)) => options.movetime(Duration::from_millis(ms.max(1))),
            (None, None) => options.nodes(self.nodes.unwrap_or(default_nodes).max(1)),
        }
    }

    /// What limits each move, for messages: `5000 nodes`, `50 ms`, `tc 10+0.1`.
    pub fn describe(&self, default_nodes: u64) -> String {
        match (self.tc, self.movetime) {
            (Some(tc), _) => format!("tc {tc}"),
            (None, Some(ms)) => format!("{ms} ms"),
            (None, None) => format!("{} nodes", self.nodes.unwrap_or(default_nodes)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        limits: MoveLimitArgs,
    }

    fn parse(args: &[&str]) -> Result<MoveLimitArgs, clap::Error> {
        let all = std::iter::once("t").chain(args.iter().copied());
        Cli::try_parse_from(all).map(|c| c.limits)
    }

    #[test]
    fn limits_give_play_options() {
        assert_eq!(parse(&[]).unwrap().options(5000).node_count(), Some(5000));
        assert_eq!(
            parse(&["--nodes", "300"])
                .unwrap()
                .options(5000)
                .node_count(),
            Some(300)
        );
        let tc = parse(&["--tc", "40/60+0.6", "--time-margin", "20"]).unwrap();
        let o = tc.options(5000);
        assert_eq!(
            (o.node_count(), o.time_margin),
            (None, Duration::from_millis(20))
        );
        assert!(o.clock().is_some());
        assert_eq!(tc.describe(5000), "tc 40/60+0.6");
        assert!(parse(&["--tc", "10+0.1", "--nodes", "5"]).is_err());
        assert!(parse(&["--tc", "10+0.1", "--movetime", "5"]).is_err());
        let e = parse(&["--tc", "ten"]).err().unwrap().to_string();
        assert!(e.contains("time control `ten`"), "{e}");
    }
}
