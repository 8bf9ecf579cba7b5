//! `engine`: an alpha-beta search over the gradtune evaluation, self-play data generation,
//! matches between weight files, and a UCI front end.
//!
//! Three rooms and two leaves: [`search`] (gradtune's own search and its UCI server), [`play`]
//! (games, matches, self-play, external engines and the runner that asks them about
//! positions), [`spsa`] (SPSA on games, through `play`); the leaves [`score`] (the mate score)
//! and [`error`] (`EngineError` and the UCI client's `UciError`), which every room may read.
//! `play` uses `search`, `spsa` uses both, and nothing points back.
//!
//! Start with [`Searcher`] (the search), [`Evaluator`] (what it searches over: the gradtune
//! evaluation through [`ModelEvaluator`], or plain material), then [`play::datagen`] and
//! [`play::matches`], which play games through [`play::game`].
//!
//! ```
//! use engine::{ModelEvaluator, SearchLimits, Searcher};
//! use shakmaty::{Chess, Position};
//!
//! let mut searcher = Searcher::new(ModelEvaluator::default_material(), 1);
//! let pos = Chess::default();
//! let r = searcher.search(&pos, &[], &SearchLimits::nodes(2_000));
//! assert!(pos.is_legal(r.best_move.unwrap()));
//! ```
//!
//! # Design
//!
//! **How it works.** `Searcher` runs iterative deepening over a negamax principal-variation search
//! (`search/searcher.rs`): transposition table (`tt.rs`, Zobrist keys from shakmaty with legal en-passant
//! squares), move ordering (`ordering.rs`: hash move, MVV-LVA captures and promotions, two killers
//! per ply, history), check extension, null-move pruning, late-move reductions, mate-distance
//! pruning, draws by repetition (a hash stack of the game and the search path) and the fifty-move
//! rule. Moves are picked lazily in sort order (`MovePicker`: keys computed once into the
//! caller's `Keys`, the best remaining move found by a scan for the first three, the rest sorted
//! once by key and index, ties in generation order, so the order is a stable sort's). Keys of
//! children are updated incrementally (`Position::update_zobrist_hash`, from scratch where
//! shakmaty has no update). The
//! leaves call the `Evaluator` trait's quiescence search (`evaluator.rs`); `ModelEvaluator`
//! evaluates with `Model::evaluate_f64` and searches the leaves with `eval::quiesce_score`, whose
//! window and score are relative to the side to move. `game.rs` plays one game between two move
//! choosers with adjudication (`adjudication.rs`) and, under a time control, both clocks
//! (`clock.rs`: `TimeControl`, `GameClock`; each answer timed, a flag fall
//! `Termination::TimeForfeit`); `play/options.rs` holds `PlayOptions`, the one options value every
//! function that plays games takes (move limits or a time control and its margin, table size,
//! adjudication, a `stop` and an `abandon` flag, built fluently); `datagen.rs` and `matches/` run
//! many games on rayon's pool (`matches/run.rs`: `run_match` with its SPRT; `matches/record.rs`:
//! the JSON record and the text report); `selfplay/` plays any `Player`, an external engine with
//! given weights included, against itself, its quiet positions labelled for `tune trace`,
//! `--shard I/N` and the merge of the parts (its one call into the game loop is
//! `selfplay/adapter.rs`); `elo.rs` holds the match
//! arithmetic; `pgn_out.rs` writes games; `search/uci.rs` is the protocol, the search running on a
//! background thread so `stop` and `isready` are answered while it thinks.
//!
//! The other side of the protocol: `play/uci_client/` drives an external engine process
//! (`EngineSpec` -> `UciEngine`: the command split as a shell would, `uci`/`uciok`, `setoption`,
//! `isready`/`readyok`, `position fen ... moves ...`, `go depth|nodes|movetime|wtime btime winc
//! binc [movestogo]`, `info ... score
//! cp|mate`, `bestmove` checked legal). A reader thread per pipe feeds a channel, so every wait
//! has a deadline (and polls an abort flag); time-outs, the process ending and malformed answers
//! are `UciError`s (`error/uci.rs`) naming the command; the engine runs in its own process group (a terminal
//! Ctrl-C reaches `tune`, not the engines); dropping a `UciEngine` sends `quit` and kills it
//! after 200 ms (`command.rs`: the shell-like split; `protocol.rs`: `go`, `info` lines, scores;
//! `process.rs`: `UciEngine`). It may know the protocol and processes, not files, labels or games.
//! `player.rs` is who plays a match: a `Player` hands out a `Mover` per game; every `Evaluator`
//! is one (a fresh `Searcher` per game, exactly as before), `UciPlayer` is an external engine
//! (engines pooled between games, `ucinewgame` per game, the game's root and moves sent each
//! move, with the clocks under a time control; a failure restarts it and asks once more, then it
//! forfeits, every failure recorded; under a clock a time-out is a loss on time, not retried), and
//! `MatchPlayer` is either, read from `A.json` / `uci:CMD` (`tune match`). `runner/` asks
//! engines one question per position (a `Job`: how to start the engine, what to ask, how to keep
//! the answer on one progress line): `jobs` worker threads, each owning an engine process, take
//! the next position from a shared queue; the calling thread reads the inputs a batch at a time
//! into a bounded window (`runner/window.rs`: at most `runner::WINDOW` positions between the one
//! written last and the one read last), hands them out, appends each answer to `OUT.progress` (a
//! header with the job's settings and a fingerprint of the inputs, then `INDEX ANSWER` lines),
//! gives the answers to the caller's `Output` in input order as they complete (the output file
//! written as the run goes, renamed into place at the end) and reports events; a failure restarts
//! the worker's engine and skips the position (`strict`: ends the run naming the position); with
//! no answer yet, 20 failures end the run. Memory is bounded whatever the number of positions
//! (`runner/input.rs`: the inputs, counted and fingerprinted by a first read; `progress.rs`: the
//! progress file, read back a line at a time, a resumed answer's text by its offset; `worker.rs`:
//! one engine's thread and the queue). `label/` is `tune label` on it (a search per position,
//! answered by its score; output collected and written through `data::write_samples`),
//! `trace_run/` is `tune trace` (the trace protocol: `position fen`, `trace`, each answer checked
//! against the manifest by `trace::parse_engine_answer`, output through `trace::TextWriter`;
//! `manifest.rs`: asking the engine for its manifest). They may know files of positions (through
//! `data`), the progress file and the engines; not the command line, terminals or progress bars
//! (events).
//!
//! `spsa/` is `tune spsa`'s engine side: a `Subject` is who plays (gradtune's search over a
//! model's weights, or an external engine whose tunables are its declared `spin` options,
//! `uci_client::SpinOption`, or a traced engine's manifest weights sent as the options `tune match
//! --weights-a` sends), each value a `Tunable` with its bounds; a `Basis` is the coordinates SPSA
//! moves (`basis.rs`: one per tunable, or shapes read from the names: each 64-square table's rank
//! slope and centre, each numbered series' offset and slope, other parameters alone, and the
//! scale of every whole-number weight; `calibration.rs`: each coordinate's perturbation set from
//! its activity on positions, measured by the caller, so that it moves a typical evaluation by
//! `c` centipawns); `run_spsa` (`run.rs`) plays each iteration's pairs
//! between the weights at SPSA's two probes (`approximation.rs`: `Spsa`, `Gains`, `SpsaState`:
//! Spall's gain schedules, each coordinate's perturbation in its own units, seeded signs, a
//! serialisable state; it knows no games) through `play_match` and steps
//! on `(wins - losses) / games`, calling the caller's checkpoint after each. It may know games,
//! players and weights; not files (the checkpoint is the caller's), the command line or bars.
//!
//! **Invariants.**
//! - Scores inside the search are integers, centipawns for the side to move; mates are
//!   `±(MATE − plies from the root)` with `MATE = 30000`, stored in the table relative to the node.
//!   The evaluation is White's view and is converted once, in `Evaluator` / `relative`.
//! - A search always returns a legal move when one exists: the first iteration is never aborted,
//!   and an aborted iteration's PV is used only if a root move finished.
//! - Fixed-node searches are deterministic. Self-play game `i` depends only on the seed and `i`
//!   (one ChaCha8 stream per game, a fresh table per game) and games are collected in index order,
//!   so `tune datagen` writes the same file whatever the number of threads. The options' flags
//!   (`PlayOptions::interrupt`, Ctrl-C in `tune datagen`) skip games not yet started and abandon
//!   the games under way at their next move (`game::play_game_from`), so the games kept are whole
//!   games of the full run. With opponents (`generate_pooled`, `tune datagen --opponent`)
//!   the games go round self-play and each opponent by index (`datagen::pairing`), the player on
//!   White in one round and on Black in the next, each side with its own table; with none the
//!   games are exactly the self-play ones. With a jitter (`generate_jittered`, `tune
//!   datagen --jitter X`, `ModelEvaluator` only) each side of game `i` plays a copy of its
//!   weights whose piece values (the `material` group) are scaled by factors drawn from a second
//!   ChaCha8 stream of the same seed and `i`; the pairing and the opening (judged by the
//!   unjittered player) are those of the run without it, and a jitter of 0 is that run.
//! - Match games `2i` and `2i + 1` share opening `i` with colours swapped and are played by one
//!   task, so a stopped match (`PlayOptions::stop`, `tune match --sprt-stop`; Ctrl-C, through
//!   `PlayOptions::abandon`, also abandons the pairs under way) holds whole pairs;
//!   results are counted from the first player's view, and the Elo interval uses the pentanomial
//!   (per-pair) variance. Under a time control games depend on timing (not reproducible); losses
//!   on time are counted per player (`MatchResult::time_losses`) and scored as losses.
//! - `run_match` is the one way a match is played (`tune match`, `--verify`, the bootstrap's gate
//!   and ladder): progress through `MatchEvent`s, a stop flag, an optional SPRT that may end the
//!   match after each pair (prompt, but timing decides which pairs are under way) or between
//!   batches of openings (the result depends only on the openings and players). `MatchRecord` is
//!   its result for JSON files: no games, no timings, infinite Elo figures as `null`.
//! - Speed work keeps the search tree: no incremental evaluation (summing in another order would
//!   round differently and change decisions); `tests/it/same_search.rs` pins fixed-node games to
//!   fingerprints recorded before it, `tests/it/fast_eval.rs` checks every evaluation of searches
//!   from TCEC positions against `Model::evaluate` and the searches against the reference path.
//! - Library code returns `EngineError` for files and options; bad UCI input becomes
//!   `info string error: ...`.
//! - An external engine never takes the process down: every failure (hang, exit, garbage) is a
//!   `UciError` after at most its time-out, the engine is killed and restarted by the caller.
//! - Labels are the engine's score for the side to move, turned to White's view once
//!   (`UciScore::white`); mates become `±(MATE − plies)` like gradtune's own. With `fresh` (the
//!   default) each position is searched after `ucinewgame`, so a label depends only on the
//!   position and the limit: the same file whatever `--jobs` (tested), and a continued run
//!   equals an uninterrupted one (tested).
//! - A match between two evaluations plays the same games through `Player` as before (the
//!   `same_search` fingerprints hold); `gradtune-uci` as a `uci:` player, with the match's hash
//!   size, plays exactly the internal games (tested).
//! - An SPSA iteration depends only on the seed, its number and the point it starts from (its
//!   perturbation signs from a ChaCha8 stream of the seed and the iteration, its openings by
//!   index), so at fixed nodes a run resumed from any checkpoint equals one that ran through
//!   (tested in `engine` and through `tune spsa`); an iteration cut short by a stop is dropped
//!   whole and the state stays the last checkpoint's.
//! - `OUT.progress` is, with a run's `log.jsonl`, the second file not written atomically: it is
//!   appended line by line and flushed after each label; a line cut by a kill is dropped on
//!   the next run. The output itself is atomic.

#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod error;
pub mod play;
pub mod score;
pub mod search;
pub mod spsa;

pub use error::EngineError;
pub use score::{MATE, MATE_BOUND};
pub use search::evaluator::{Evaluator, MaterialEvaluator, ModelEvaluator, Quiet};
pub use search::limits::SearchLimits;
pub use search::searcher::{hash, SearchResult, Searcher};
