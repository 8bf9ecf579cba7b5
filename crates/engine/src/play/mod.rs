//! Games and what plays them: one game with its clocks and adjudication (`game.rs`,
//! `clock.rs`, `adjudication.rs`, the options every player of games takes in `options.rs`),
//! self-play data (`datagen.rs`, `selfplay/`), matches and their arithmetic (`matches/`,
//! `elo.rs`, `openings.rs`, `pgn_out.rs`), who plays (`player.rs`), external engines
//! (`uci_client/`) and the one-question-per-position runner over them (`runner/`, with
//! `label/` and `trace_run/` on it). It may know the search ([`crate::search`]) and the
//! leaves; not SPSA ([`crate::spsa`], which plays through it).

pub mod adjudication;
pub mod clock;
pub mod datagen;
pub mod elo;
pub mod game;
pub mod label;
pub mod matches;
pub mod openings;
pub mod options;
pub mod pgn_out;
pub mod player;
pub mod runner;
pub mod selfplay;
pub mod trace_run;
pub mod uci_client;
