//! Unit tests of labelling: progress files read back, positions located in their files.

use std::time::Duration;

use data::Sample;

use super::progress::{progress_header, read_progress};
use super::{LabelInput, LabelSettings, Source};
use crate::limits::SearchLimits;
use crate::uci_client::EngineSpec;

fn settings() -> LabelSettings {
    LabelSettings {
        engine: EngineSpec::new("engine --flag"),
        limits: SearchLimits::depth(5),
        timeout: Duration::from_secs(1),
        jobs: 1,
        fresh: true,
    }
}

fn input() -> LabelInput {
    let pos = shakmaty::Chess::default();
    LabelInput {
        samples: vec![Sample::from_position(&pos, 0.5, None, 0); 3],
        sources: vec![Source {
            path: "in.epd".into(),
            start: 0,
            len: 3,
        }],
    }
}

#[test]
fn progress_files_are_read_back_dropping_a_cut_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.epd.progress");
    let header = progress_header(&input(), &settings(), "go depth 5");
    std::fs::write(&path, format!("{header}0 5\n2 -3\n1 4")).unwrap();
    let p = read_progress(&path, &header, 3).unwrap();
    assert_eq!(p.labels, [(0, 5), (2, -3)]);
    assert!(p.differences.is_empty());
    assert_eq!(p.len as usize, header.len() + "0 5\n2 -3\n".len());

    // Other settings: the differences are named.
    let other = progress_header(&input(), &settings(), "go depth 6");
    let p = read_progress(&path, &other, 3).unwrap();
    assert_eq!(p.differences, ["was `go depth 5`, now `go depth 6`"]);

    // A corrupt line or an index out of range: an error naming the file and line.
    for bad in ["0 5\nx y\n", "0 5\n3 1\n", "0 5 7\n"] {
        std::fs::write(&path, format!("{header}{bad}")).unwrap();
        let err = read_progress(&path, &header, 3).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{}: line ", path.display())),
            "{err}"
        );
    }
    std::fs::write(&path, "something else\n").unwrap();
    let err = read_progress(&path, &header, 3).unwrap_err().to_string();
    assert!(err.contains("not a progress file"), "{err}");
}

#[test]
fn locations_name_the_file_and_position() {
    let mut input = input();
    input.sources.push(Source {
        path: "b.epd".into(),
        start: 3,
        len: 2,
    });
    assert_eq!(input.location(0), "in.epd: position 1");
    assert_eq!(input.location(4), "b.epd: position 2");
    assert_eq!(input.location(9), "position 10");
}
