//! The porting check: a manifest parameter that declares a catalogue group is compared, on
//! every trace, with gradtune's own counts of that group. An engine's port whose passed pawns
//! are counted one rank too high is caught, with the board and both counts; the right port
//! passes; a shape that does not fit the group is refused.

use eval::catalogue::{self, Count};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode};
use trace::{check_ports, parse_line, Manifest};

/// A manifest with one parameter, a port of `passed_pawns` (six ranks, tapered).
const MANIFEST: &str = r#"{
  "format": "gradtune-manifest", "version": 1, "engine": "port", "score": "white",
  "phase": {"max": 24},
  "params": [
    {"name": "material", "shape": [5], "value": [[100,100],[300,300],[300,300],[500,500],[900,900]]},
    {"name": "passed", "shape": [6], "catalogue": "passed_pawns",
     "value": [[5,10],[5,15],[10,25],[20,45],[40,80],[80,130]]}
  ]
}"#;

/// The positions of the fixture's EPD file (its first 400).
fn positions() -> Vec<Chess> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/quiet-labeled-1k.epd"
    );
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .take(400)
        .map(|l| {
            let fen: String = l.split_whitespace().take(4).collect::<Vec<_>>().join(" ");
            let fen: Fen = fen.parse().unwrap();
            fen.into_position(CastlingMode::Standard).unwrap()
        })
        .collect()
}

/// A trace line of `pos` whose `passed` counts are `counts` moved by `shift` elements (a
/// port counting ranks one too high: 1), dropped past the last element.
fn line(pos: &Chess, counts: &[Count], shift: u32) -> String {
    let fen = Fen::from_position(pos, EnPassantMode::Legal);
    let t: Vec<String> = counts
        .iter()
        .filter(|c| c.element + shift < 6)
        .map(|c| format!("{}:{}:{}", 5 + c.element + shift, c.white, c.black))
        .collect();
    let t = match t.is_empty() {
        true => String::new(),
        false => format!("; t {}", t.join(" ")),
    };
    format!("{fen} [0.5]; phase 12{t}")
}

/// The traces of the fixture's positions with the port's counts moved by `shift`.
fn traces(m: &Manifest, shift: u32) -> Vec<trace::Trace> {
    let group = catalogue::find("passed_pawns").unwrap();
    let mut counts = Vec::new();
    positions()
        .iter()
        .map(|pos| {
            group.counts(pos, &mut counts);
            parse_line(&line(pos, &counts, shift), m).unwrap().unwrap()
        })
        .collect()
}

#[test]
fn the_right_port_passes_and_an_off_by_one_rank_is_caught_with_its_board() {
    let m = Manifest::from_json(MANIFEST, "m.json").unwrap();
    let right = check_ports(&m, &traces(&m, 0), 5).unwrap();
    assert_eq!(right.len(), 1);
    assert_eq!(
        (right[0].param.as_str(), right[0].group.as_str()),
        ("passed", "passed_pawns")
    );
    assert_eq!(right[0].checked, 400);
    assert!(right[0].passed(), "{}", right[0]);

    let wrong = check_ports(&m, &traces(&m, 1), 5).unwrap();
    let r = &wrong[0];
    assert!(!r.passed());
    // Every position with a passed pawn differs; the others agree.
    let group = catalogue::find("passed_pawns").unwrap();
    let mut counts = Vec::new();
    let with_passers = positions()
        .iter()
        .filter(|p| {
            group.counts(p, &mut counts);
            !counts.is_empty()
        })
        .count();
    assert!(with_passers > 20, "{with_passers}");
    assert_eq!(r.failed, with_passers);
    assert_eq!(r.first.len(), 5);
    let first = &r.first[0];
    // The first disagreement: the engine's count sits one rank above the catalogue's.
    let said = r.to_string();
    assert!(said.contains(&first.fen), "{said}");
    assert!(
        said.contains(&format!("{} of 400 positions differ", with_passers)),
        "{said}"
    );
    assert!(first.element.starts_with("rank"), "{first:?}");
}

#[test]
fn a_port_whose_shape_is_not_the_groups_is_refused() {
    let json = MANIFEST.replace(
        r#""shape": [6], "catalogue": "passed_pawns",
     "value": [[5,10],[5,15],[10,25],[20,45],[40,80],[80,130]]"#,
        r#""shape": [5], "catalogue": "passed_pawns",
     "value": [[5,10],[5,15],[10,25],[20,45],[40,80]]"#,
    );
    assert_ne!(json, MANIFEST);
    let e = Manifest::from_json(&json, "m.json")
        .unwrap_err()
        .to_string();
    assert!(e.contains("params[1].catalogue"), "{e}");
    assert!(e.contains("has 6 elements (rank2 .. rank7)"), "{e}");
    assert!(e.contains("`passed`"), "{e}");
}
