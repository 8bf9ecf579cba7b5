//! The positions to ask an engine about: the input files read one after the other, and where
//! each position came from. The files are read once to count and fingerprint their positions
//! ([`PositionInput::load`]) and again, a batch at a time, as the run asks about them
//! ([`PositionInput::reader`]): the positions are never all in memory at once (but for PGN
//! games, which are extracted whole).

use std::path::PathBuf;

use data::{DataError, Format, LoadOptions, Report, Sample, SampleReader};

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

/// The positions to ask about, from one or more files, in order: their number, a fingerprint,
/// which file each came from, and how to read them again.
#[derive(Clone, Debug, Default)]
pub struct PositionInput {
    /// Which file each range of positions came from.
    pub sources: Vec<Source>,
    /// The positions, part after part.
    parts: Vec<Part>,
    /// How the files are read.
    opts: LoadOptions,
    /// The number of positions.
    len: usize,
    /// [`fingerprint`](PositionInput::fingerprint).
    fingerprint: u64,
}

/// A run of consecutive positions.
#[derive(Clone, Debug)]
enum Part {
    /// Kept in memory (PGN games, extracted whole; positions given as samples).
    Samples(Vec<Sample>),
    /// A file read again as it is needed: its positions, and what its game ids are moved by.
    File {
        path: PathBuf,
        len: usize,
        game_offset: u32,
    },
}

/// A 64-bit FNV-1a hash, fed a piece at a time.
#[derive(Clone, Copy, Debug)]
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn eat(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// A sample's position, result and game id.
    fn sample(&mut self, s: &Sample) {
        self.eat(&s.board.0);
        self.eat(&s.result.to_le_bytes());
        self.eat(&s.game.to_le_bytes());
    }
}

impl PositionInput {
    /// Reads the files with [`data::SampleReader`] (any format [`data::load`] reads), one
    /// after the other, to count and fingerprint their positions, keeping none (PGN games
    /// excepted: they are extracted whole and kept). Game ids of later files are moved past
    /// those of earlier ones, so the games of different files stay apart in a split by game.
    /// Returns each file's report (skipped records).
    pub fn load(
        paths: &[PathBuf],
        opts: &LoadOptions,
    ) -> Result<(PositionInput, Vec<(PathBuf, Report)>), EngineError> {
        let mut input = PositionInput {
            opts: opts.clone(),
            ..PositionInput::default()
        };
        let mut hash = Fnv::new();
        // One past the largest game id so far, as `data::files::append_games` moves them.
        let mut next_game = 0u32;
        let mut reports = Vec::new();
        for path in paths {
            let mut reader = SampleReader::open(path, opts)?;
            let game_offset = next_game;
            let keep = reader.format() == Format::Pgn;
            let (mut len, mut kept) = (0, Vec::new());
            while let Some(mut batch) = reader.next_batch()? {
                for s in &mut batch {
                    s.game = s.game.saturating_add(game_offset);
                    next_game = next_game.max(s.game.saturating_add(1));
                    hash.sample(s);
                }
                len += batch.len();
                if keep {
                    kept.extend(batch);
                }
            }
            input.sources.push(Source {
                path: path.clone(),
                start: input.len,
                len,
            });
            input.parts.push(if keep {
                Part::Samples(kept)
            } else {
                Part::File {
                    path: path.clone(),
                    len,
                    game_offset,
                }
            });
            input.len += len;
            reports.push((path.clone(), reader.into_report()));
        }
        input.fingerprint = hash.0;
        Ok((input, reports))
    }

    /// Positions given in memory (with `sources` naming where they came from, for messages).
    pub fn from_samples(samples: Vec<Sample>, sources: Vec<Source>) -> PositionInput {
        let mut hash = Fnv::new();
        samples.iter().for_each(|s| hash.sample(s));
        PositionInput {
            sources,
            len: samples.len(),
            fingerprint: hash.0,
            parts: vec![Part::Samples(samples)],
            opts: LoadOptions::default(),
        }
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no position.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The positions in order, read again from their files a batch at a time.
    pub fn reader(&self) -> InputReader<'_> {
        InputReader {
            input: self,
            part: 0,
            file: None,
            batch: Vec::new().into_iter(),
            in_part: 0,
            hash: Fnv::new(),
        }
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
        self.fingerprint
    }
}

/// The positions of a [`PositionInput`] in order ([`PositionInput::reader`]): one batch of a
/// file alive at a time. A file that no longer holds the positions it held when it was
/// counted (changed in between) is an error naming it.
pub struct InputReader<'a> {
    input: &'a PositionInput,
    /// The part being read.
    part: usize,
    /// Its file, once opened.
    file: Option<SampleReader>,
    /// The rest of the batch.
    batch: std::vec::IntoIter<Sample>,
    /// Positions of the part handed out.
    in_part: usize,
    /// The fingerprint of the positions handed out.
    hash: Fnv,
}

impl InputReader<'_> {
    /// The next position, or `None` after the last.
    pub fn next_sample(&mut self) -> Result<Option<Sample>, EngineError> {
        loop {
            let Some(part) = self.input.parts.get(self.part) else {
                return Ok(None);
            };
            let next = match part {
                Part::Samples(samples) => samples.get(self.in_part).copied(),
                Part::File {
                    path,
                    len,
                    game_offset,
                } => match self.batch.next() {
                    Some(s) => Some(s),
                    None if self.next_batch(path, *len, *game_offset)? => continue,
                    None => None,
                },
            };
            if let Some(s) = next {
                self.in_part += 1;
                self.hash.sample(&s);
                return Ok(Some(s));
            }
            self.part += 1;
            self.in_part = 0;
            self.file = None;
            if self.part == self.input.parts.len() && self.hash.0 != self.input.fingerprint {
                let files: Vec<String> = (self.input.sources.iter())
                    .map(|s| s.path.display().to_string())
                    .collect();
                return Err(changed(
                    &files.join(", "),
                    "the positions differ from those counted at the start",
                ));
            }
        }
    }

    /// Reads the next batch of a file part into `batch`; `false` at its end.
    fn next_batch(
        &mut self,
        path: &std::path::Path,
        len: usize,
        game_offset: u32,
    ) -> Result<bool, EngineError> {
        if self.file.is_none() {
            self.file = Some(SampleReader::open(path, &self.input.opts)?);
        }
        let Some(file) = &mut self.file else {
            return Ok(false);
        };
        match file.next_batch()? {
            Some(mut b) => {
                if self.in_part + b.len() > len {
                    let what = "it holds more positions than at the start";
                    return Err(changed(&path.display().to_string(), what));
                }
                for s in &mut b {
                    s.game = s.game.saturating_add(game_offset);
                }
                self.batch = b.into_iter();
                Ok(true)
            }
            None if self.in_part < len => Err(changed(
                &path.display().to_string(),
                "it holds fewer positions than at the start",
            )),
            None => Ok(false),
        }
    }
}

/// The error of input files (`files`) that changed while they were being read.
fn changed(files: &str, what: &str) -> EngineError {
    EngineError::Data(DataError::Input {
        location: files.to_string(),
        message: format!(
            "changed while the run read it: {what}; the finished answers are kept in the \
             progress file, rerun with the input it was made with"
        ),
    })
}
