//! [`LoadOptions`]: how [`load`](crate::load) reads a file (a leaf of the crate).

use crate::pgn::ExtractOptions;

/// Options of [`load`](crate::load).
///
/// ```
/// use data::{read_epd, DataError, LoadOptions};
///
/// let text = "8/8/8/8/8/8/8/K6k b - - [1.0]\nnot a position\n";
/// // Results from the side to move's view: Black to move won, so White's result is 0.
/// let opts = LoadOptions { stm_results: true, ..LoadOptions::default() };
/// let (samples, report) = read_epd(text.as_bytes(), "t.epd".as_ref(), &opts)?;
/// assert_eq!((samples[0].result, report.errors), (0.0, 1));
/// // Strict: the bad line is an error naming the file and line.
/// let strict = LoadOptions { strict: true, ..LoadOptions::default() };
/// let err = read_epd(text.as_bytes(), "t.epd".as_ref(), &strict).unwrap_err();
/// assert!(matches!(err, DataError::Input { ref location, .. } if location == "t.epd:2"));
/// # Ok::<(), DataError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Stop at the first malformed record instead of reporting, skipping and counting it.
    pub strict: bool,
    /// EPD results are from the side to move's point of view, not White's.
    pub stm_results: bool,
    /// How to extract positions when the file turns out to be PGN (`strict` above applies).
    pub extract: ExtractOptions,
}
