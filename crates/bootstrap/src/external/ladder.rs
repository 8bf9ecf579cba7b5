//! `OUT/ladder.md`: one row per finished generation of a loop, rewritten after every step.

use std::fmt::Write as _;
use std::path::Path;

use super::state::LoopGeneration;
use crate::gate::Keep;
use crate::state::write_atomic;
use crate::BootstrapError;

/// The ladder as markdown: per generation, the data, the fit, the gate and what was kept;
/// the last column adds up the Elo of the accepted gates (a chain of head-to-head estimates,
/// not a match against generation 0).
pub fn ladder_markdown(generations: &[LoopGeneration]) -> String {
    let mut s = String::from(
        "| gen | games | positions | forfeits | failures | train loss | valid loss | gate W-D-L | gate Elo [95%] | verdict | kept | chained Elo |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut chained = 0.0;
    for g in generations {
        let (Some(sp), Some(t), Some(gate)) = (&g.selfplay, &g.tuning, &g.gate) else {
            if g.generation == 0 {
                s.push_str("| 0 | | | | | | | | | | start | 0 |\n");
            }
            continue;
        };
        let m = &gate.gate.result;
        let elo = match (m.elo, m.interval) {
            (Some(e), Some((Some(lo), Some(hi)))) => format!("{e:+.0} [{lo:+.0}, {hi:+.0}]"),
            (Some(e), _) => format!("{e:+.0}"),
            _ => "-".to_string(),
        };
        if gate.gate.keep == Keep::New {
            chained += m.elo.unwrap_or(0.0);
        }
        let valid = t
            .valid_loss
            .map_or("-".to_string(), |(a, b)| format!("{a:.6} -> {b:.6}"));
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {:.6} -> {:.6} | {valid} | {}-{}-{} | {elo} | {} | {} | {chained:+.0} |",
            g.generation,
            sp.summary.games,
            sp.summary.positions,
            sp.summary.forfeits,
            sp.engine_failures + gate.engine_failures,
            t.train_loss.0,
            t.train_loss.1,
            m.wins,
            m.draws,
            m.losses,
            gate.gate.reason.describe(),
            match gate.gate.keep {
                Keep::New => format!("gen {}", g.generation),
                Keep::Old => format!("gen {}", g.best),
            },
        );
    }
    s
}

/// Writes `OUT/ladder.md` atomically.
pub fn write_ladder(out: &Path, generations: &[LoopGeneration]) -> Result<(), BootstrapError> {
    write_atomic(&out.join("ladder.md"), &ladder_markdown(generations))
}
