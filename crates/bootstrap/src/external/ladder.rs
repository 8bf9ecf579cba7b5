//! `OUT/ladder.md` and `OUT/ladder.svg`: one row (one point) per finished generation of a
//! loop, rewritten after every step.

use std::fmt::Write as _;
use std::path::Path;

use engine::play::matches::MatchRecord;

use super::chain::Chain;
use super::state::{LoopGeneration, LoopState, SpsaStage};
use crate::gate::Keep;
use crate::plot::{elo_svg, EloPoint, EloSeries};
use crate::state::write_atomic;
use crate::BootstrapError;

/// The ladder as markdown: per generation (and the SPSA stage, a last row), the data (with the games lost on time in self-play
/// and the gate together), the fit, the gate and what was kept;
/// the last column adds up the Elo of the accepted gates with an interval ([`Chain`]: a chain
/// of head-to-head estimates, not a match against generation 0).
pub fn ladder_markdown(state: &LoopState) -> String {
    let mut s = String::from(
        "| gen | games | positions | forfeits | failures | lost on time | train loss | valid loss | gate W-D-L | gate Elo [95%] | verdict | kept | chained Elo | kept vs start [95%] |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut chain = Chain::default();
    for g in &state.generations {
        let (Some(sp), Some(t), Some(gate)) = (&g.selfplay, &g.tuning, &g.gate) else {
            if g.generation == 0 {
                s.push_str("| 0 | | | | | | | | | | | start | +0 [+0, +0] | +0 [+0, +0] |\n");
            }
            continue;
        };
        let m = &gate.gate.result;
        let elo = elo_cell(m);
        if gate.gate.keep == Keep::New {
            chain.add(m);
        }
        let valid = t
            .valid_loss
            .map_or("-".to_string(), |(a, b)| format!("{a:.6} -> {b:.6}"));
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {:.6} -> {:.6} | {valid} | {}-{}-{} | {elo} | {} | {} | {} | {} |",
            g.generation,
            sp.summary.games,
            sp.summary.positions,
            sp.summary.forfeits,
            sp.engine_failures + gate.engine_failures,
            u64::from(sp.summary.time_losses) + m.time_losses[0] + m.time_losses[1],
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
            chain.describe(),
            vs_start_cell(g),
        );
    }
    if let Some(stage) = &state.spsa {
        s += &spsa_row(stage, &mut chain);
    }
    let answer = state.answer();
    let _ = match state.generations.iter().find(|g| g.generation == answer) {
        Some(g) if answer > 0 => writeln!(
            s,
            "\nanswer: gen {answer}, {} against the start in {} games",
            vs_start_cell(g),
            g.vs_start().map_or(0, |m| m.games)
        ),
        _ => writeln!(
            s,
            "\nanswer: the start weights (no kept generation measured above them)"
        ),
    };
    s
}

/// A kept generation's Elo against the start, `+21 [+8, +34]` (`, reverted` when the loop
/// went back after it); empty when not measured.
fn vs_start_cell(g: &LoopGeneration) -> String {
    match &g.vs_start {
        Some(v) if v.reverted => format!("{}, reverted", elo_cell(&v.result)),
        Some(v) => elo_cell(&v.result),
        None => String::new(),
    }
}

/// The SPSA stage's row, once its gate is played: its games, the gate and what was kept.
fn spsa_row(stage: &SpsaStage, chain: &mut Chain) -> String {
    let (Some(sp), Some(gate)) = (&stage.spsa, &stage.gate) else {
        return String::new();
    };
    let m = &gate.gate.result;
    if gate.gate.keep == Keep::New {
        chain.add(m);
    }
    format!(
        "| spsa | {} ({} iterations) | | | {} | {} | {} coordinates over {} weights | | {}-{}-{} | {} | {} | {} | {} | |\n",
        sp.games,
        sp.iterations,
        gate.engine_failures,
        m.time_losses[0] + m.time_losses[1],
        sp.coordinates,
        sp.tunables,
        m.wins,
        m.draws,
        m.losses,
        elo_cell(m),
        gate.gate.reason.describe(),
        match gate.gate.keep {
            Keep::New => "spsa".to_string(),
            Keep::Old => format!("gen {}", stage.start),
        },
        chain.describe(),
    )
}

/// A gate's Elo with its interval, `+11 [-13, +36]`.
fn elo_cell(m: &MatchRecord) -> String {
    match (m.elo, m.interval) {
        (Some(e), Some((Some(lo), Some(hi)))) => format!("{e:+.0} [{lo:+.0}, {hi:+.0}]"),
        (Some(e), _) => format!("{e:+.0}"),
        _ => "-".to_string(),
    }
}

/// A point of the plot: a generation's Elo and interval (infinite ends drawn at the estimate).
fn point(x: u32, elo: f64, lower: Option<f64>, upper: Option<f64>) -> EloPoint {
    EloPoint {
        x: f64::from(x),
        elo,
        lower: lower.unwrap_or(elo),
        upper: upper.unwrap_or(elo),
    }
}

/// The ladder as an SVG plot: the accepted gates' Elo added up with its interval ([`Chain`])
/// at every finished generation (0 at generation 0), and each gate's own estimate, the
/// candidate against the weights current then, accepted or not. The SPSA stage's gate, once
/// played, is drawn one after the last generation.
pub fn ladder_svg(state: &LoopState) -> Result<String, BootstrapError> {
    let mut chain = Chain::default();
    let mut summed = vec![point(0, 0.0, Some(0.0), Some(0.0))];
    let mut gates = Vec::new();
    let spsa = state.spsa.as_ref().and_then(|st| {
        let gate = st.gate.as_ref()?;
        Some((st.after + 1, gate))
    });
    let played = state
        .generations
        .iter()
        .filter_map(|g| Some((g.generation, g.gate.as_ref()?)))
        .chain(spsa);
    let mut last = state.generations.last().map_or(0, |g| g.generation);
    for (x, gate) in played {
        let m = &gate.gate.result;
        if gate.gate.keep == Keep::New {
            chain.add(m);
        }
        summed.push(point(x, chain.elo, chain.lower(), chain.upper()));
        if let Some(e) = m.elo {
            let (lo, hi) = m.interval.unwrap_or((None, None));
            gates.push(point(x, e, lo, hi));
        }
        last = last.max(x);
    }
    let vs_start = state
        .generations
        .iter()
        .filter_map(|g| {
            let m = g.vs_start()?;
            let (lo, hi) = m.interval.unwrap_or((None, None));
            Some(point(g.generation, m.elo?, lo, hi))
        })
        .collect();
    let series = [
        EloSeries {
            label: "accepted gates, summed".to_string(),
            points: summed,
        },
        EloSeries {
            label: "each gate: candidate vs current".to_string(),
            points: gates,
        },
        EloSeries {
            label: "kept weights vs start".to_string(),
            points: vs_start,
        },
    ];
    elo_svg("Loop ladder", &series, last)
}

/// Writes `OUT/ladder.md` and `OUT/ladder.svg`, each atomically.
pub fn write_ladder(out: &Path, state: &LoopState) -> Result<(), BootstrapError> {
    write_atomic(&out.join("ladder.md"), &ladder_markdown(state))?;
    write_atomic(&out.join("ladder.svg"), &ladder_svg(state)?)
}
