//! [`SampleReader`]: a file a batch at a time gives what [`load`] gives, in every format.

use crate::common;

use data::{load, write_cache, write_epd, DataError, LoadOptions, Sample, SampleReader};

/// Every batch of `path` (none empty, none above 16,384), and the final report.
fn batches(path: &std::path::Path) -> (Vec<usize>, Vec<Sample>, data::Report) {
    let mut r = SampleReader::open(path, &LoadOptions::default()).unwrap();
    let (mut sizes, mut all) = (Vec::new(), Vec::new());
    while let Some(b) = r.next_batch().unwrap() {
        sizes.push(b.len());
        all.extend(b);
    }
    assert_eq!(r.next_batch().unwrap(), None, "done stays done");
    (sizes, all, r.into_report())
}

#[test]
fn batches_are_the_whole_load_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    // EPD over several batches, with a malformed line and lines without game ids; a cache of
    // the same; PGN games.
    let (base, _) = load(
        &common::fixture("quiet-labeled-1k.epd"),
        &LoadOptions::default(),
    )
    .unwrap();
    let many: Vec<Sample> = base.iter().cycle().take(40_000).copied().collect();
    let epd = dir.path().join("many.epd.zst");
    write_epd(&epd, &many).unwrap();
    let mut text = String::from_utf8(fsutil::source::read_all(&epd).unwrap()).unwrap();
    text.insert_str(0, "not a position\n");
    let plain = dir.path().join("many.epd");
    std::fs::write(&plain, text).unwrap();
    let cache = dir.path().join("many.gtc.zst");
    write_cache(&cache, &many).unwrap();
    let pgn = common::fixture("tcec-standard-300.pgn.zst");
    for path in [&plain, &epd, &cache, &pgn] {
        let (want, want_report) = load(path, &LoadOptions::default()).unwrap();
        let (sizes, got, report) = batches(path);
        assert_eq!(got, want, "{}", path.display());
        assert_eq!(report, want_report, "{}", path.display());
        assert!(sizes.iter().all(|&n| n > 0 && n <= 16_384), "{sizes:?}");
        assert!(sizes.len() >= 2, "{}: {sizes:?}", path.display());
    }
    let (_, _, report) = batches(&plain);
    assert_eq!((report.errors, report.kept), (1, 40_000));
}

#[test]
fn a_file_without_positions_is_unrecognised_at_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("junk.epd");
    std::fs::write(&path, "junk\nmore junk\n").unwrap();
    let mut r = SampleReader::open(&path, &LoadOptions::default()).unwrap();
    let err = r.next_batch().unwrap_err();
    assert!(matches!(err, DataError::Unrecognised { .. }), "{err}");
    let empty = dir.path().join("empty.epd");
    std::fs::write(&empty, "").unwrap();
    let err = SampleReader::open(&empty, &LoadOptions::default())
        .err()
        .unwrap();
    assert!(err.to_string().contains("the file is empty"), "{err}");
}
