//! The positions to ask an engine about: the input files read one after the other, and where
//! each position came from.

use std::path::PathBuf;

use data::{LoadOptions, Report, Sample};

use crate::error::EngineError;

/// One input file's share of the positions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The file.
    pub path: PathBuf,
    /// Index of its first position.
    pub start: usize,
    /// Its number of positions.
    pub len: usize,
}

/// The positions to ask about, from one or more files, in order.
#[derive(Clone, Debug, Default)]
pub struct PositionInput {
    /// The positions with their labels (results, scores) and game ids.
    pub samples: Vec<Sample>,
    /// Which file each range of positions came from.
    pub sources: Vec<Source>,
}

impl PositionInput {
    /// Reads the files with [`data::load`] (any format), one after the other. Game ids of
    /// later files are moved past those of earlier ones, so the games of different files stay
    /// apart in a split by game. Returns each file's report (skipped records).
    pub fn load(
        paths: &[PathBuf],
        opts: &LoadOptions,
    ) -> Result<(PositionInput, Vec<(PathBuf, Report)>), EngineError> {
        let mut input = PositionInput::default();
        let mut reports = Vec::new();
        for path in paths {
            let (samples, report) = data::load(path, opts)?;
            input.sources.push(Source {
                path: path.clone(),
                start: input.samples.len(),
                len: samples.len(),
            });
            data::files::append_games(&mut input.samples, samples);
            reports.push((path.clone(), report));
        }
        Ok((input, reports))
    }

    /// Where position `index` came from: `FILE: position N` (1-based within the file).
    pub fn location(&self, index: usize) -> String {
        match self
            .sources
            .iter()
            .find(|s| (s.start..s.start + s.len).contains(&index))
        {
            Some(s) => format!("{}: position {}", s.path.display(), index - s.start + 1),
            None => format!("position {}", index + 1),
        }
    }

    /// A 64-bit FNV-1a hash of the positions, results and game ids: a progress file is only
    /// continued for the same input.
    pub fn fingerprint(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for &b in bytes {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        for s in &self.samples {
            eat(&s.board.0);
            eat(&s.result.to_le_bytes());
            eat(&s.game.to_le_bytes());
        }
        h
    }
}
