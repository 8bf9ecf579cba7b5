//! Merging the parts of a sharded self-play run into the file one machine would have written.

use std::path::{Path, PathBuf};

use data::{LoadOptions, Sample};

use crate::error::EngineError;

/// What [`merge_shards`] merged.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeReport {
    /// Parts read.
    pub parts: usize,
    /// Positions written.
    pub positions: usize,
    /// Distinct games.
    pub games: usize,
}

/// Reads the parts (EPD files written by self-play, any order) and writes their positions to
/// `out` ordered by game number, each game's positions in the order played: the file a run on
/// one machine writes. A malformed line is an error naming the file and the line (strict: a
/// part is the program's own output); a game found in two parts (the same shard given twice,
/// or parts of different runs) is an error naming both.
pub fn merge_shards(parts: &[PathBuf], out: &Path) -> Result<MergeReport, EngineError> {
    let opts = LoadOptions {
        strict: true,
        ..LoadOptions::default()
    };
    let mut all: Vec<(usize, Sample)> = Vec::new();
    for (k, path) in parts.iter().enumerate() {
        let (samples, _) = data::load(path, &opts)?;
        all.extend(samples.into_iter().map(|s| (k, s)));
    }
    // Stable: a game's positions keep their order.
    all.sort_by_key(|(_, s)| s.game);
    let mut games = 0;
    let mut last: Option<(u32, usize)> = None;
    for (k, s) in &all {
        match last {
            Some((g, part)) if g == s.game && part != *k => {
                return Err(EngineError::Options(format!(
                    "game {g} is in two parts, {} and {}: give each shard once, all from one run",
                    parts[part].display(),
                    parts[*k].display()
                )));
            }
            Some((g, _)) if g == s.game => {}
            _ => games += 1,
        }
        last = Some((s.game, *k));
    }
    let samples: Vec<Sample> = all.into_iter().map(|(_, s)| s).collect();
    data::write_epd(out, &samples)?;
    Ok(MergeReport {
        parts: parts.len(),
        positions: samples.len(),
        games,
    })
}
