//! [`Format`]: what a data file holds, told from its first bytes.

use crate::cache;

/// What a file holds, judged from its first (decompressed) bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    /// A gradtune binary cache ([`cache`](crate::cache)).
    Cache,
    /// PGN games: the first non-blank character is `[` (a tag) or a move number.
    Pgn,
    /// EPD / FEN text.
    Epd,
}

impl Format {
    /// Detects the format from the start of the decompressed content.
    ///
    /// ```
    /// use data::Format;
    /// assert_eq!(Format::detect(b"[Event \"x\"]"), Format::Pgn);
    /// assert_eq!(Format::detect(b"8/8/8/8/8/8/8/K6k w - - [1.0]"), Format::Epd);
    /// assert_eq!(Format::detect(b"GTCACHE\0..."), Format::Cache);
    /// ```
    pub fn detect(head: &[u8]) -> Format {
        if cache::is_cache(head) {
            return Format::Cache;
        }
        let head = head
            .strip_prefix(b"\xef\xbb\xbf".as_slice())
            .unwrap_or(head);
        let text = head.trim_ascii_start();
        match text.first() {
            Some(b'[') => Format::Pgn,
            Some(c) if c.is_ascii_digit() => {
                // "1. e4" is movetext; "8/8/..." or "rnbqk..." is a board.
                let n = text.iter().take_while(|b| b.is_ascii_digit()).count();
                if text.get(n) == Some(&b'.') {
                    Format::Pgn
                } else {
                    Format::Epd
                }
            }
            _ => Format::Epd,
        }
    }
}
