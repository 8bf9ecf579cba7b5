//! Unit tests of the runner: progress files read back, positions located in their files.

use data::Sample;

use super::progress::{progress_header, read_progress, AnswerTexts, Progress};
use super::{PositionInput, Source};
use crate::error::EngineError;

fn samples() -> Vec<Sample> {
    vec![Sample::from_position(&shakmaty::Chess::default(), 0.5, None, 0); 3]
}

fn input_of(samples: Vec<Sample>, path: &str) -> PositionInput {
    let len = samples.len();
    let sources = vec![Source {
        path: path.into(),
        start: 0,
        len,
    }];
    PositionInput::from_samples(samples, sources)
}

fn input() -> PositionInput {
    input_of(samples(), "in.epd")
}

/// The answers of a progress file, with `read_progress`'s report.
fn read<A>(
    path: &std::path::Path,
    name: &str,
    header: &str,
    decode: impl Fn(&str) -> Result<A, String>,
) -> Result<(Vec<(usize, A)>, Progress), EngineError> {
    let mut answers = Vec::new();
    let p = read_progress(path, name, header, 3, decode, |i, _, a| {
        answers.push((i, a))
    })?;
    Ok((answers, p))
}

fn score(text: &str) -> Result<i32, String> {
    text.parse::<i32>().map_err(|e| e.to_string())
}

#[test]
fn progress_files_are_read_back_dropping_a_cut_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.epd.progress");
    let header = progress_header("label", "engine e\ngo depth 5\n", &input());
    assert!(header.starts_with("gradtune-label 1\nengine e\ngo depth 5\npositions 3\n"));
    std::fs::write(&path, format!("{header}0 5\n2 -3\n1 4")).unwrap();
    let (answers, p) = read(&path, "label", &header, score).unwrap();
    assert_eq!(answers, [(0, 5), (2, -3)]);
    assert_eq!(p.answers, 2);
    assert!(p.differences.is_empty());
    assert_eq!(p.len as usize, header.len() + "0 5\n2 -3\n".len());

    // Other settings: the differences are named.
    let other = progress_header("label", "engine e\ngo depth 6\n", &input());
    let (answers, p) = read(&path, "label", &other, score).unwrap();
    assert_eq!(p.differences, ["was `go depth 5`, now `go depth 6`"]);
    assert_eq!((answers.len(), p.answers), (0, 2), "counted, not decoded");

    // The same positions named by another path continue; other positions do not.
    let moved = input_of(samples(), "/elsewhere/in.epd");
    let header_moved = progress_header("label", "engine e\ngo depth 5\n", &moved);
    assert!(header_moved.ends_with("files /elsewhere/in.epd\n"));
    let (_, p) = read(&path, "label", &header_moved, score).unwrap();
    assert!(p.differences.is_empty(), "{:?}", p.differences);
    let mut other = samples();
    other[1].result = 1.0;
    let header_other = progress_header(
        "label",
        "engine e\ngo depth 5\n",
        &input_of(other, "in.epd"),
    );
    let (_, p) = read(&path, "label", &header_other, score).unwrap();
    assert_eq!(p.differences.len(), 1, "{:?}", p.differences);
    assert!(
        p.differences[0].starts_with("was `fingerprint "),
        "{:?}",
        p.differences
    );

    // A corrupt line or an index out of range: an error naming the file and line.
    for bad in ["0 5\nx y\n", "0 5\n3 1\n", "0 5 7\n", "0 5\n1\n"] {
        std::fs::write(&path, format!("{header}{bad}")).unwrap();
        let err = read(&path, "label", &header, score)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(&format!("{}: line ", path.display())),
            "{err}"
        );
    }
    // Another subcommand's progress file, or something else.
    std::fs::write(&path, format!("{header}0 5\n")).unwrap();
    let err = read(&path, "trace", &header, score)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a progress file of `tune trace`"), "{err}");
    std::fs::write(&path, "something else\n").unwrap();
    let err = read(&path, "label", &header, score)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a progress file"), "{err}");
}

#[test]
fn answers_with_spaces_are_kept_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.progress");
    let header = progress_header("trace", "engine e\n", &input());
    std::fs::write(&path, format!("{header}1 phase 3; t 0:1:0 5:1:1\n")).unwrap();
    std::fs::write(
        &path,
        format!("{header}1 phase 3; t 0:1:0 5:1:1\n0 phase 4\n2 phase 5; t 1:0:1"),
    )
    .unwrap();
    let mut offsets = Vec::new();
    let keep = |i, offset, a: String| offsets.push((i, offset, a));
    read_progress(&path, "trace", &header, 3, |t| Ok(t.to_string()), keep).unwrap();
    let answers: Vec<(usize, &str)> = offsets.iter().map(|(i, _, a)| (*i, a.as_str())).collect();
    // The cut last line is dropped.
    assert_eq!(answers, [(1, "phase 3; t 0:1:0 5:1:1"), (0, "phase 4")]);
    // Each answer's text is read back at its offset, in any order.
    let mut texts = AnswerTexts::open(&path).unwrap();
    for &(_, offset, ref a) in offsets.iter().rev().chain(&offsets) {
        assert_eq!(&texts.text_at(offset).unwrap(), a);
    }
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
