//! Matches between two players (evaluations searched by gradtune, or external UCI engines:
//! [`crate::play::player`]): paired games (each opening with both colours), in parallel, scored
//! from the first player's point of view.

mod play;
mod record;
mod result;
mod run;

pub use play::{play_match, play_pair_game};
pub use record::{format_elo, verdict_name, MatchRecord, SprtRecord};
pub use result::{MatchGame, MatchResult};
pub use run::{
    run_match, run_match_with, MatchEvent, MatchPlan, MatchReport, PlayBatch, SprtOutcome, SprtStop,
};
