//! The cache's binary layout (see the [module](super) table): its magic and version, the sizes
//! of its header and records and of the batches it is read and written in, and the encoding
//! of a header and a record. A leaf of `cache`, shared by the writer and the reader.

use std::path::Path;

use crate::{DataError, PackedBoard, Sample};

/// Header size in bytes.
pub const HEADER: usize = 24;

/// Record size in bytes.
pub const RECORD: usize = PackedBoard::BYTES + 12;

/// Records encoded (and read) at a time: the memory a cache's reading or writing takes beyond
/// the samples is about this many records.
pub const BATCH: usize = 1 << 16;

/// The first eight bytes of a cache.
pub const MAGIC: &[u8; 8] = b"GTCACHE\0";
/// The format version written.
pub const VERSION: u32 = 1;

pub(super) fn encode(s: &Sample, out: &mut [u8]) {
    out[..24].copy_from_slice(&s.board.0);
    out[24..28].copy_from_slice(&(s.result as f32).to_le_bytes());
    out[28..32].copy_from_slice(&s.score.unwrap_or(f32::NAN).to_le_bytes());
    out[32..36].copy_from_slice(&s.game.to_le_bytes());
}

pub(super) fn decode(rec: &[u8]) -> Sample {
    let f = |i: usize| [rec[i], rec[i + 1], rec[i + 2], rec[i + 3]];
    let mut board = [0u8; PackedBoard::BYTES];
    board.copy_from_slice(&rec[..24]);
    let score = f32::from_le_bytes(f(28));
    Sample {
        board: PackedBoard(board),
        result: f64::from(f32::from_le_bytes(f(24))),
        score: (!score.is_nan()).then_some(score),
        game: u32::from_le_bytes(f(32)),
    }
}

/// The header of a cache of `count` records.
pub(super) fn header(count: u64) -> [u8; HEADER] {
    let mut h = [0u8; HEADER];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&(RECORD as u32).to_le_bytes());
    h[16..24].copy_from_slice(&count.to_le_bytes());
    h
}

/// Whether decompressed bytes start like a cache.
pub fn is_cache(head: &[u8]) -> bool {
    head.starts_with(MAGIC)
}

/// Checks a cache's header (the first [`HEADER`] bytes of `head`, or fewer when the file is
/// shorter) and returns the number of records it announces.
pub(super) fn parse_header(path: &Path, head: &[u8]) -> Result<u64, DataError> {
    let bad = |message: String| DataError::Cache {
        path: path.to_path_buf(),
        message,
    };
    if head.len() < HEADER || !is_cache(head) {
        return Err(bad("no cache header".into()));
    }
    let u32_at = |i: usize| u32::from_le_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
    let version = u32_at(8);
    if version != VERSION {
        return Err(bad(format!(
            "version {version}, this build reads {VERSION}"
        )));
    }
    let record = u32_at(12) as usize;
    if record != RECORD {
        return Err(bad(format!("record size {record}, expected {RECORD}")));
    }
    let mut count = [0u8; 8];
    count.copy_from_slice(&head[16..24]);
    Ok(u64::from_le_bytes(count))
}
