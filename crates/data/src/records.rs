//! The rules of an extraction applied to records that were read, not extracted from PGN (EPD
//! text, caches): [`filter_samples`].

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use rayon::prelude::*;
use shakmaty::{zobrist::Zobrist64, EnPassantMode, Position};

use crate::filter::{Filtered, Filterer};
use crate::per_game::{per_game_choice, OVER_LIMIT};
use crate::{DataError, ExtractOptions, Report, Sample};

/// Applies the position rules of an extraction to samples that were read, not extracted (EPD
/// text, caches): `skip_check`, the `filter` (with its model and weights), `max_per_game` (by
/// game id, the same choice as for PGN) and `dedup` against `seen` (the hashes of the
/// positions kept so far, which this extends). The rules that need a game's moves
/// (`skip_plies`, `skip_book`, `skip_mated_games`) do not apply: a sample has no ply, book
/// mark or game end. Labels and game ids are kept; a quiescence leaf keeps the label of the
/// position it replaces, as in PGN extraction.
///
/// The report counts the kept samples (results and scores) and the skipped ones by reason; a
/// sample whose board does not unpack is counted as an error at `origin: record N` (1-based),
/// or returned as one with `opts.strict`.
///
/// ```
/// use std::collections::HashSet;
/// use data::records::filter_samples;
/// use data::Filter;
/// use data::{ExtractOptions, Sample};
/// use shakmaty::{fen::Fen, CastlingMode, Chess};
///
/// let hanging: Chess = "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1"
///     .parse::<Fen>()?
///     .into_position(CastlingMode::Standard)?;
/// let samples = vec![
///     Sample::from_position(&Chess::default(), 0.5, Some(20.0), 0),
///     Sample::from_position(&hanging, 0.0, None, 0),
///     Sample::from_position(&Chess::default(), 1.0, None, 1),
/// ];
/// let opts = ExtractOptions { filter: Filter::Quiet, dedup: true, ..ExtractOptions::default() };
/// let (kept, report) = filter_samples(samples, &opts, "x.gtc".as_ref(), &mut HashSet::new())?;
/// assert_eq!(kept.len(), 1);
/// assert_eq!((kept[0].result, kept[0].score), (0.5, Some(20.0)));
/// assert_eq!((report.skipped["not quiet"], report.skipped["duplicates"]), (1, 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn filter_samples(
    samples: Vec<Sample>,
    opts: &ExtractOptions,
    origin: &Path,
    seen: &mut HashSet<u64>,
) -> Result<(Vec<Sample>, Report), DataError> {
    let filterer = Filterer::new(opts.filter, opts.model, opts.weights.as_deref())?;
    /// What became of one sample.
    enum Judged {
        /// The sample (its quiescence leaf with `qleaf`) and, with `dedup`, its hash.
        Keep(Sample, u64),
        Skip(&'static str),
        Bad(usize, DataError),
    }
    let judged: Vec<Judged> = samples
        .into_par_iter()
        .enumerate()
        .map(|(i, s)| {
            let pos = match s.board.to_position() {
                Ok(p) => p,
                Err(e) => return Judged::Bad(i, e),
            };
            if opts.skip_check && pos.is_check() {
                return Judged::Skip("positions in check");
            }
            match filterer.apply(pos) {
                Filtered::Keep(p) => {
                    let hash = if opts.dedup {
                        p.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
                    } else {
                        0
                    };
                    Judged::Keep(Sample::from_position(&p, s.result, s.score, s.game), hash)
                }
                Filtered::Drop(reason) => Judged::Skip(reason),
            }
        })
        .collect();
    let mut report = Report::default();
    let mut kept = Vec::new();
    for j in judged {
        match j {
            Judged::Keep(s, hash) => kept.push((s, hash)),
            Judged::Skip(reason) => report.skip(reason),
            Judged::Bad(i, e) => {
                let location = format!("{}: record {}", origin.display(), i + 1);
                if opts.strict {
                    return Err(DataError::Input {
                        location,
                        message: e.to_string(),
                    });
                }
                report.error(location, e);
            }
        }
    }
    if let Some(max) = opts.max_per_game {
        kept = at_most_per_game(kept, max, opts.seed, &mut report);
    }
    let mut out = Vec::with_capacity(kept.len());
    for (s, hash) in kept {
        if opts.dedup && !seen.insert(hash) {
            report.skip("duplicates");
            continue;
        }
        report.keep(s.result, s.score.is_some());
        out.push(s);
    }
    Ok((out, report))
}

/// At most `max` samples (with their hashes) of each game id, chosen as [`per_game_choice`]
/// chooses for PGN; the order of the samples is kept.
fn at_most_per_game(
    samples: Vec<(Sample, u64)>,
    max: usize,
    seed: u64,
    report: &mut Report,
) -> Vec<(Sample, u64)> {
    let mut by_game: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (i, (s, _)) in samples.iter().enumerate() {
        by_game.entry(s.game).or_default().push(i);
    }
    let mut keep = vec![true; samples.len()];
    for (game, idx) in by_game {
        if idx.len() > max {
            let chosen = per_game_choice(idx.len(), max, seed, game);
            let mut take = vec![false; idx.len()];
            for c in chosen {
                take[c] = true;
            }
            for (k, i) in idx.into_iter().enumerate() {
                if !take[k] {
                    keep[i] = false;
                    report.skip(OVER_LIMIT);
                }
            }
        }
    }
    samples
        .into_iter()
        .zip(keep)
        .filter_map(|(s, k)| k.then_some(s))
        .collect()
}
