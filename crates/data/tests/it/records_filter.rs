//! Caches and EPD records through the extraction rules: the same positions as extracting the
//! games they came from with those rules (`files::read_all`, `records::filter_samples`).

use crate::common;

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use data::files::read_all;
use data::{extract_pgn, write_cache, write_epd, ExtractOptions, Filter, LoadOptions};

/// The first `games` games of the TCEC fixture (at most 300), as plain PGN in `dir`.
fn tcec_head(dir: &Path, games: usize) -> PathBuf {
    let (reader, _) = fsutil::source::open(&common::fixture("tcec-standard-300.pgn.zst")).unwrap();
    let path = dir.join("head.pgn");
    let mut out = std::fs::File::create(&path).unwrap();
    let mut seen = 0;
    for line in reader.lines() {
        let line = line.unwrap();
        if line.starts_with("[Event ") {
            seen += 1;
            if seen > games {
                break;
            }
        }
        writeln!(out, "{line}").unwrap();
    }
    path
}

#[test]
fn a_cache_through_the_rules_equals_the_games_through_them() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = tcec_head(dir.path(), 40);
    let every = ExtractOptions::default();
    let (all, _) = extract_pgn(std::slice::from_ref(&pgn), &every, None).unwrap();
    assert!(all.len() > 2_000, "{} positions", all.len());
    let cache = dir.path().join("all.gtc");
    write_cache(&cache, &all).unwrap();
    let epd = dir.path().join("all.epd");
    write_epd(&epd, &all).unwrap();

    let rules = [
        ExtractOptions {
            filter: Filter::Quiet,
            ..ExtractOptions::default()
        },
        ExtractOptions {
            filter: Filter::QuiescenceLeaf,
            skip_check: true,
            ..ExtractOptions::default()
        },
        ExtractOptions {
            filter: Filter::Quiet,
            max_per_game: Some(7),
            dedup: true,
            seed: 5,
            ..ExtractOptions::default()
        },
    ];
    for rule in rules {
        let (want, want_report) = extract_pgn(std::slice::from_ref(&pgn), &rule, None).unwrap();
        assert!(want.len() < all.len(), "{rule:?} dropped nothing");
        for file in [&cache, &epd] {
            let opts = LoadOptions {
                extract: rule.clone(),
                ..LoadOptions::default()
            };
            let (got, report) = read_all(std::slice::from_ref(file), &opts, &mut |_| {}).unwrap();
            assert_eq!(got, want, "{} with {rule:?}", file.display());
            assert_eq!(report.kept, want_report.kept);
            assert_eq!(report.results, want_report.results);
            assert_eq!(report.scored, want_report.scored);
            for reason in [
                "not quiet",
                "positions in check",
                "over the per-game limit",
                "duplicates",
            ] {
                assert_eq!(
                    report.skipped.get(reason),
                    want_report.skipped.get(reason),
                    "{reason}: {} with {rule:?}",
                    file.display()
                );
            }
        }
    }
}

#[test]
fn without_rules_a_cache_is_read_as_it_is_and_duplicates_go_across_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = tcec_head(dir.path(), 10);
    let (all, _) =
        extract_pgn(std::slice::from_ref(&pgn), &ExtractOptions::default(), None).unwrap();
    let cache = dir.path().join("all.gtc");
    write_cache(&cache, &all).unwrap();

    let (got, report) = read_all(
        std::slice::from_ref(&cache),
        &LoadOptions::default(),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(got, all);
    assert!(report.skipped.is_empty());

    // The same games as PGN and as a cache, deduplicated: the cache adds nothing.
    let dedup = LoadOptions {
        extract: ExtractOptions {
            dedup: true,
            ..ExtractOptions::default()
        },
        ..LoadOptions::default()
    };
    let (once, _) = read_all(std::slice::from_ref(&pgn), &dedup, &mut |_| {}).unwrap();
    let (both, report) = read_all(&[pgn, cache], &dedup, &mut |_| {}).unwrap();
    assert_eq!(both, once);
    assert_eq!(
        report.skipped["duplicates"] as usize,
        all.len() - once.len() + all.len()
    );
}
