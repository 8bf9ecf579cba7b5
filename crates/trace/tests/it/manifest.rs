//! Manifest validation (each error names the file, the JSON path and, for expressions, the
//! column) and the weights seen from outside: names, twins, indices, smoothness neighbours,
//! the manifest written back.

use crate::common;

use common::{fixture, FIXTURE, LINEAR};
use trace::{parse_line, Manifest, TraceError};

fn err(json: &str) -> TraceError {
    Manifest::from_json(json, "bad.json").expect_err("the manifest should be rejected")
}

fn fixture_with(from: &str, to: &str) -> String {
    assert!(FIXTURE.contains(from), "{from}");
    FIXTURE.replacen(from, to, 1)
}

fn manifest_error(json: &str) -> (String, String) {
    match err(json) {
        TraceError::Manifest {
            origin,
            path,
            message,
        } => {
            assert_eq!(origin, "bad.json");
            (path, message)
        }
        e => panic!("expected a manifest error, got {e}"),
    }
}

fn expression_error(json: &str) -> (String, usize, String) {
    match err(json) {
        TraceError::Expression {
            origin,
            path,
            column,
            message,
        } => {
            assert_eq!(origin, "bad.json");
            (path, column, message)
        }
        e => panic!("expected an expression error, got {e}"),
    }
}

#[test]
fn duplicate_names() {
    let (path, msg) = manifest_error(&fixture_with("\"name\": \"tempo\"", "\"name\": \"pst\""));
    assert_eq!(path, "params[5].name");
    assert!(
        msg.contains("duplicate name `pst` (first at params[1].name)"),
        "{msg}"
    );
    let (path, msg) = manifest_error(&fixture_with(
        "\"king_attackers\", \"pawns\"",
        "\"king_attackers\", \"pst\"",
    ));
    assert_eq!(path, "features[1]");
    assert!(msg.contains("duplicate name `pst`"), "{msg}");
    let (path, msg) = manifest_error(&fixture_with("\"name\": \"tempo\"", "\"name\": \"phase\""));
    assert_eq!(path, "params[5].name");
    assert!(msg.contains("reserved"), "{msg}");
}

#[test]
fn shape_and_value_disagree() {
    let (path, msg) = manifest_error(&fixture_with("\"shape\": [2, 4]", "\"shape\": [2, 5]"));
    assert_eq!(path, "params[1].value[0]");
    assert!(msg.contains("4 entries, the shape [2, 5] says 5"), "{msg}");
    let (path, msg) = manifest_error(&fixture_with(
        "[[1, 2], [3, 4], [5, 6], [7, 8]]",
        "[[1, 2], [3, 4], [5, 6], 7]",
    ));
    assert_eq!(path, "params[1].value[0][3]");
    assert!(msg.contains("an [mg, eg] pair"), "{msg}");
    let (path, msg) = manifest_error(&fixture_with("\"value\": [4, 9]", "\"value\": [4, [9, 1]]"));
    assert_eq!(path, "params[4].value[1]");
    assert!(msg.contains("expected a number"), "{msg}");
    // An `integer` parameter's fraction (a run's unrounded `weights.json`) is read as it is.
    let m = Manifest::from_json(&fixture_with("[1025, 936]", "[1025.5, 936]"), "m").unwrap();
    assert_eq!(
        m.initial_weights()[m.index_of("material[4].mg").unwrap()],
        1025.5
    );
    let (path, msg) = manifest_error(&fixture_with("[1025, 936]", "[2025, 936]"));
    assert_eq!(path, "params[0].value[4][0]");
    assert!(msg.contains("outside the bounds [-2000, 2000]"), "{msg}");
    let (path, msg) = manifest_error(&fixture_with(
        "\"bounds\": [-2000, 2000]",
        "\"bounds\": [2000, -2000]",
    ));
    assert_eq!(path, "params[0].bounds");
    assert!(msg.contains("above"), "{msg}");
    let (path, _) = manifest_error(&fixture_with("\"shape\": [6]", "\"shape\": [0]"));
    assert_eq!(path, "params[0].shape[0]");
}

#[test]
fn bad_expressions_give_path_and_column() {
    let (path, column, msg) = expression_error(&fixture_with(
        "\"eg\": \"-max(s, 0) / 20\"",
        "\"eg\": \"-max(s, 0) / / 20\"",
    ));
    assert_eq!((path.as_str(), column), ("terms[0].eg", 14));
    assert!(msg.contains("expected a number, a name or `(`"), "{msg}");
    let (path, column, msg) = expression_error(&fixture_with(
        "\"eg\": \"-max(s, 0) / 20\"",
        "\"eg\": \"-max(s, 0) / twenty\"",
    ));
    assert_eq!((path.as_str(), column), ("terms[0].eg", 14));
    assert!(msg.contains("unknown name `twenty`"), "{msg}");
    // mg/eg are not defined in a per-side term.
    let (_, column, msg) = expression_error(&fixture_with(
        "\"eg\": \"-max(s, 0) / 20\"",
        "\"eg\": \"-max(s, 0) / eg\"",
    ));
    assert_eq!(column, 14);
    assert!(msg.contains("not defined in a per-side term"), "{msg}");
    // An index made of something else than literals and features.
    let (_, column, msg) =
        expression_error(&fixture_with("ks_weight[king_attackers]", "ks_weight[s]"));
    assert_eq!(column, 42);
    assert!(
        msg.contains("an index may use only numbers and features, not `s`"),
        "{msg}"
    );
    let (_, _, msg) = expression_error(&fixture_with("ks_weight[king_attackers]", "ks_weight[8]"));
    assert!(
        msg.contains("index 8 of `ks_weight` is out of range 0..8"),
        "{msg}"
    );
    let (_, _, msg) = expression_error(&fixture_with("ks_weight[king_attackers]", "ks_weight"));
    assert!(msg.contains("write 1 index, found 0"), "{msg}");
    // A tapered parameter in `eval` needs its component.
    let with_eval = fixture_with("\"terms\": [", "\"eval\": \"mg + tempo\", \"terms\": [");
    let (path, column, msg) = expression_error(&with_eval);
    assert_eq!((path.as_str(), column), ("eval", 6));
    assert!(msg.contains("write `tempo.mg` or `tempo.eg`"), "{msg}");
}

#[test]
fn sums_used_by_exactly_one_term() {
    let (path, msg) = manifest_error(&fixture_with("{ \"name\": \"tempo\"", "{ \"name\": \"mob\", \"shape\": [2], \"sum\": \"mobility\", \"value\": [[1, 2], [3, 4]] },\n    { \"name\": \"tempo\""));
    assert_eq!(path, "params[5].sum");
    assert!(msg.contains("sum `mobility` is used by no term"), "{msg}");
    let (path, msg) = manifest_error(&fixture_with(
        "{ \"name\": \"complexity\", \"sum\": \"complexity\"",
        "{ \"name\": \"complexity\", \"sum\": \"king_safety\"",
    ));
    assert_eq!(path, "terms[1].sum");
    assert!(msg.contains("already used by terms[0]"), "{msg}");
    let (path, msg) = manifest_error(&fixture_with(
        "{ \"name\": \"complexity\", \"sum\": \"complexity\"",
        "{ \"name\": \"complexity\", \"sum\": \"nothing\"",
    ));
    assert_eq!(path, "terms[1].sum");
    assert!(msg.contains("no parameter adds to sum `nothing`"), "{msg}");
}

#[test]
fn document_level_errors() {
    let (path, msg) = manifest_error("{\"format\": \"gradtune-manifest\", \"version\": 2}");
    assert_eq!(path, "version");
    assert!(msg.contains("not supported"), "{msg}");
    let (path, msg) = manifest_error(&fixture_with(
        "\"score\": \"white\"",
        "\"score\": \"black\"",
    ));
    assert_eq!(path, "score");
    assert!(msg.contains("side_to_move"), "{msg}");
    let (path, msg) = manifest_error(&fixture_with(
        "\"tapered\": false, \"integer\": false,\n      \"value\": [0",
        "\"taperd\": false, \"integer\": false,\n      \"value\": [0",
    ));
    assert_eq!(path, "params[3].taperd");
    assert!(msg.contains("unknown key"), "{msg}");
    let (path, msg) = manifest_error("{ not json");
    assert_eq!(path, "$");
    assert!(msg.contains("not valid JSON"), "{msg}");
    // The file name is the origin of a loaded manifest.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("engine.json");
    std::fs::write(&p, fixture_with("\"score\": \"white\"", "\"score\": 1")).unwrap();
    let e = Manifest::load(&p).unwrap_err().to_string();
    assert!(e.starts_with(&format!("{}: score: ", p.display())), "{e}");
}

#[test]
fn weights_names_twins_and_indices() {
    let m = fixture();
    let w = m.weights();
    assert_eq!(w.len(), 6 * 2 + 8 * 2 + 4 * 2 + 8 + 2 + 2);
    assert_eq!(w[0].name, "material[0].mg");
    assert_eq!(w[0].twin, Some(1));
    assert_eq!((w[1].name.as_str(), w[1].twin), ("material[0].eg", None));
    let k = m.index_of("pst[1][2].eg").unwrap();
    assert_eq!(k, 12 + (4 + 2) * 2 + 1);
    assert_eq!((w[k].init, w[k].group.as_str()), (-6.0, "pst"));
    assert_eq!(m.index_of("ks_weight[3]").map(|k| w[k].init), Some(1.5));
    assert_eq!(m.index_of("tempo.eg"), Some(w.len() - 1));
    assert_eq!(m.trace_index("pst", &[1, 2]), Some(6 + 6));
    assert_eq!(m.trace_index("pst", &[2, 0]), None);
    assert_eq!(m.trace_index("tempo", &[]), Some(28));
    assert_eq!(m.element_name(13).as_deref(), Some("pst[1][3]"));
    assert_eq!(
        w[m.index_of("material[2].mg").unwrap()].bounds,
        Some((-2000.0, 2000.0))
    );
    assert!(!w[m.index_of("ks_weight[3]").unwrap()].integer);
    assert!(!m.is_linear());
    assert!(Manifest::from_json(LINEAR, "l").unwrap().is_linear());
}

#[test]
fn smoothing_pairs_follow_the_shapes() {
    let m = fixture();
    let pairs = m.smoothing_pairs();
    let idx = |n: &str| m.index_of(n).unwrap();
    assert!(pairs.contains(&(idx("pst[0][1].mg"), idx("pst[0][2].mg"))));
    assert!(pairs.contains(&(idx("pst[0][1].eg"), idx("pst[1][1].eg"))));
    assert!(!pairs.contains(&(idx("pst[0][3].mg"), idx("pst[1][0].mg"))));
    assert!(pairs.contains(&(idx("ks_weight[6]"), idx("ks_weight[7]"))));
    assert!(pairs.iter().all(|&(a, b)| a < b));
    // pst 2x4: 2*3 + 1*4 = 10 neighbour pairs, per phase.
    let pst: Vec<_> = pairs
        .iter()
        .filter(|p| m.weights()[p.0].group == "pst")
        .collect();
    assert_eq!(pst.len(), 20);
}

#[test]
fn written_back_manifest_is_valid_with_the_new_values() {
    let m = fixture();
    let mut w = m.initial_weights();
    let k = m.index_of("pst[1][2].eg").unwrap();
    w[k] = 12.6;
    let j = m.index_of("ks_weight[3]").unwrap();
    w[j] = 1.234;
    let json = m.to_json_with(&w);
    assert_eq!(
        json["params"][1]["value"][1][2],
        serde_json::json!([-5, 13])
    );
    let back = Manifest::from_json(&json.to_string(), "back.json").unwrap();
    let wb = back.initial_weights();
    assert_eq!(wb[k], 13.0);
    assert_eq!(wb[j], 1.234);
    assert_eq!(back.weights().len(), m.weights().len());
}

#[test]
fn linear_terms_give_the_evaluation() {
    let m = Manifest::from_json(LINEAR, "l").unwrap();
    let t = parse_line(
        "4k3/8/8/8/8/8/3P4/4K3 b - - [0.5]; phase 10; const 3; t 0:2:1 0:0:1 1:1:0 6:0:1",
        &m,
    )
    .unwrap()
    .unwrap();
    let mut terms = Vec::new();
    let c = m.linear_terms(&t, &mut terms).unwrap();
    // material[0] counts cancel (2 - 2): no term; knights and tempo remain.
    assert!(
        terms.iter().all(|x| x.0 != 0 && x.0 != 1 && x.1 != 0.0),
        "{terms:?}"
    );
    assert!(terms.windows(2).all(|p| p[0].0 < p[1].0));
    let w = m.initial_weights();
    let v: f64 = terms.iter().map(|&(i, c)| w[i as usize] * c).sum::<f64>() + c;
    let e: f64 = m.evaluate(&t, &w).unwrap();
    assert!((v - e).abs() < 1e-9, "{v} vs {e}");
    assert!(fixture().linear_terms(&t, &mut terms).is_none());
}

#[test]
fn contributions_add_up_to_the_evaluation() {
    let m = fixture();
    let t = parse_line(
        "4k3/8/8/8/8/8/3P4/4K3 w - - [1.0]; phase 9; const 5; t 0:1:0 7:1:0 16:2:0 14:0:1 26:2:1 28:1:0; f king_attackers:3:1",
        &m,
    )
    .unwrap()
    .unwrap();
    let w = m.initial_weights();
    let parts = m.contributions(&t, &w);
    let names: Vec<&str> = parts.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "material",
            "pst",
            "tempo",
            "king_safety",
            "complexity",
            "const"
        ]
    );
    let sum: f64 = parts.iter().map(|p| p.1).sum();
    let v: f64 = m.evaluate(&t, &w).unwrap();
    assert!((sum - v).abs() < 1e-9, "{sum} vs {v}");
}

#[test]
fn feature_index_out_of_range_is_an_evaluation_error() {
    let m = fixture();
    let t = parse_line(
        "4k3/8/8/8/8/8/3P4/4K3 w - - [1.0]; phase 9; t 16:1:0; f king_attackers:9:0",
        &m,
    )
    .unwrap()
    .unwrap();
    let e = m.evaluate::<f64>(&t, &m.initial_weights()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "`ks_weight` index 9 out of range (dimension 0 has 8 elements)"
    );
}

#[test]
fn written_back_unrounded_manifest_reads_back_exactly() {
    let m = fixture();
    let mut w = m.initial_weights();
    let k = m.index_of("pst[1][2].eg").unwrap();
    w[k] = 12.6;
    let json = m.to_json_unrounded(&w);
    assert_eq!(json["params"][1]["value"][1][2][1], serde_json::json!(12.6));
    let back = Manifest::from_json(&json.to_string(), "back.json").unwrap();
    assert_eq!(back.initial_weights(), w);
}

/// The fixture with `centre` set to `decl` (JSON text).
fn with_centre(decl: &str) -> String {
    let end = FIXTURE.rfind('}').unwrap();
    format!("{}, \"centre\": {decl}}}", &FIXTURE[..end])
}

#[test]
fn centre_declarations_are_validated_with_their_path() {
    let ok = Manifest::from_json(
        &with_centre(r#"[{"table": "pst", "into": "ks_attack", "groups": [1, 0]}]"#),
        "m",
    )
    .unwrap();
    assert_eq!(ok.centrings().len(), 1);
    let labels: Vec<&str> = ok.centrings()[0]
        .sets
        .iter()
        .map(|s| s.label.as_str())
        .collect();
    assert_eq!(labels, ["pst[0..2]", "pst[2..4]"]);
    let cases = [
        (r#"{"table": "pst"}"#, "centre", "expected an array"),
        (
            r#"[{"table": "nope", "into": "ks_attack"}]"#,
            "centre[0].table",
            "no parameter is named `nope`",
        ),
        (r#"[{"table": "pst"}]"#, "centre[0]", "missing `into`"),
        (
            r#"[{"table": "pst", "into": "pst"}]"#,
            "centre[0].into",
            "into itself",
        ),
        (
            r#"[{"table": "pst", "into": "ks_attack", "scale": 0}]"#,
            "centre[0].scale",
            "moves nothing",
        ),
        (
            r#"[{"table": "pst", "into": "ks_attack", "groups": [9]}]"#,
            "centre[0].groups[0]",
            "from 0 to",
        ),
        (
            r#"[{"table": "pst", "into": "ks_attack", "groups": [1, 1]}]"#,
            "centre[0].groups[1]",
            "twice",
        ),
        (
            r#"[{"table": "pst", "into": "ks_attack", "exclude": ["pst[9][9]"]}]"#,
            "centre[0].exclude[0]",
            "not an element of `pst`",
        ),
        (
            r#"[{"table": "pst", "into": "ks_attack", "sideways": 1}]"#,
            "centre[0].sideways",
            "unknown key",
        ),
        (
            r#"[{"table": "pst", "into": "material"}]"#,
            "centre[0]",
            "not a whole number of groups",
        ),
        (
            r#"[{"into": "material"}]"#,
            "centre[0]",
            "missing `table` or `elements`",
        ),
        (
            r#"[{"table": "pst", "elements": ["pst"], "into": "material"}]"#,
            "centre[0]",
            "not both",
        ),
        (
            r#"[{"elements": []}]"#,
            "centre[0].elements",
            "nothing to centre",
        ),
        (
            r#"[{"elements": "pst"}]"#,
            "centre[0].elements",
            "expected an array",
        ),
        (
            r#"[{"elements": ["pst", "nope"]}]"#,
            "centre[0].elements[1]",
            "no parameter is named `nope`",
        ),
        (
            r#"[{"elements": ["pst[2]"]}]"#,
            "centre[0].elements[0]",
            "index 2 is out of range",
        ),
        (
            r#"[{"elements": ["pst[1][0][0]"]}]"#,
            "centre[0].elements[0]",
            "up to 2 indices",
        ),
        (
            r#"[{"elements": ["pst[x]"]}]"#,
            "centre[0].elements[0]",
            "up to 2 indices",
        ),
        (
            r#"[{"elements": ["pst", "pst[1][2]"]}]"#,
            "centre[0].elements[1]",
            "`pst[1][2]` is named twice (also by `pst`)",
        ),
        (
            r#"[{"elements": ["pst[1]", "ks_weight"]}]"#,
            "centre[0].elements[1]",
            "all tapered or all not",
        ),
        (
            r#"[{"elements": ["pst[1]"], "into": "material"}]"#,
            "centre[0].into",
            "`into` is one element",
        ),
        (
            r#"[{"elements": ["pst[1]"], "into": "pst[1][3]"}]"#,
            "centre[0].into",
            "also one of the elements",
        ),
        (
            r#"[{"elements": ["pst[1]"], "into": "ks_weight[0]"}]"#,
            "centre[0].into",
            "all tapered or all not",
        ),
        (
            r#"[{"elements": ["pst[1]"], "groups": [0]}]"#,
            "centre[0].groups",
            "goes with `table`",
        ),
        (
            r#"[{"elements": ["pst[1]"], "exclude": ["pst[0][1]"]}]"#,
            "centre[0].exclude[0]",
            "not among the elements",
        ),
        (
            r#"[{"elements": ["pst[1][1]", "tempo"], "exclude": ["tempo", "pst[1][1]"]}]"#,
            "centre[0].exclude",
            "every element is excluded",
        ),
        (
            r#"[{"elements": ["pst"], "scale": 0}]"#,
            "centre[0].scale",
            "moves nothing",
        ),
        (
            r#"[{"table": "pst", "into": "ks_weight"}]"#,
            "centre[0]",
            "both be tapered",
        ),
        (
            r#"[{"table": "pst", "into": "ks_attack", "exclude": ["pst[0][0]", "pst[0][1]"]}]"#,
            "centre[0].exclude",
            "group 0 is excluded",
        ),
    ];
    for (decl, want_path, want) in cases {
        let (path, msg) = manifest_error(&with_centre(decl));
        assert_eq!(path, want_path, "{decl}: {msg}");
        assert!(msg.contains(want), "{decl}: {msg}");
    }
}

#[test]
fn json_is_read_as_written_kinds_and_all() {
    // `null` is a value of the wrong kind, not an absent key (bounds and term expressions
    // excepted, where it means none).
    let (path, msg) = manifest_error(&fixture_with(
        "\"sum\": \"complexity\",\n      \"value\"",
        "\"sum\": null,\n      \"value\"",
    ));
    assert_eq!(path, "params[4].sum");
    assert!(msg.contains("expected a string, found null"), "{msg}");
    let m = Manifest::from_json(
        &fixture_with("\"bounds\": [-2000, 2000]", "\"bounds\": null"),
        "m",
    )
    .unwrap();
    assert_eq!(m.weights()[0].bounds, None);
    // An object is never read from an array, field by field.
    let (path, msg) = manifest_error(&fixture_with(
        "{ \"name\": \"tempo\", \"shape\": [], \"value\": [20, 10] }",
        "[\"tempo\", [], [20, 10]]",
    ));
    assert_eq!(path, "params[5]");
    assert!(msg.contains("expected an object, found an array"), "{msg}");
    // Whole numbers are whole in the JSON too.
    let (path, msg) = manifest_error(&fixture_with("\"max\": 24", "\"max\": 24.0"));
    assert_eq!(path, "phase.max");
    assert!(msg.contains("found 24.0"), "{msg}");
    let (path, msg) = manifest_error(&fixture_with("\"version\": 1", "\"version\": 1.0"));
    assert_eq!(path, "version");
    assert!(msg.contains("version 1.0 is not supported"), "{msg}");
    // A repeated key: the last one counts, as in any JSON object read.
    let m = Manifest::from_json(
        &fixture_with(
            "\"engine\": \"fixture\"",
            "\"engine\": \"a\", \"engine\": \"b\"",
        ),
        "m",
    )
    .unwrap();
    assert_eq!(m.engine(), "b");
}

/// A parameter may name the catalogue group it ports (`tune discover` flags that group, `tune
/// verify` compares its counts); an unknown group, or a shape with another number of elements
/// than the group's, is an error at its path.
#[test]
fn catalogue_key_names_a_known_group_of_the_same_size() {
    let from = r#"{ "name": "ks_attack", "shape": [4],"#;
    let with = |group: &str| {
        fixture_with(
            from,
            &format!(r#"{{ "name": "ks_attack", "shape": [4], "catalogue": "{group}","#),
        )
    };
    let m = Manifest::from_json(&with("king_zone_attacks"), "m").unwrap();
    assert_eq!(
        m.params()[2].catalogue.as_deref(),
        Some("king_zone_attacks")
    );
    assert!(m.params().iter().filter(|p| p.catalogue.is_some()).count() == 1);
    let (path, msg) = manifest_error(&with("no_such"));
    assert_eq!(path, "params[2].catalogue");
    assert!(msg.contains("no catalogue group `no_such`"), "{msg}");
    let (path, msg) = manifest_error(&with("knight_table"));
    assert_eq!(path, "params[2].catalogue");
    assert!(
        msg.contains("which has 64 elements (a1 .. h8), but its shape [4] has 4"),
        "{msg}"
    );
}

/// The `elements` form: a set from several parameters (a row of one, all of another), into one
/// element or into none; centring moves each phase's mean, the directions it declares flat
/// are the members by 1 and `into` by `-scale`.
#[test]
fn a_centred_set_spans_parameters() {
    let m = Manifest::from_json(
        &with_centre(
            r#"[{"elements": ["pst[1]", "tempo"], "into": "material[2]", "scale": 2,
                 "exclude": ["pst[1][3]"]},
                {"elements": ["ks_weight[1]", "ks_weight[2]"]}]"#,
        ),
        "m.json",
    )
    .unwrap();
    let c = &m.centrings()[0];
    assert_eq!(c.sets.len(), 1);
    assert_eq!(c.sets[0].label, "pst[1] + tempo");
    let idx = |n: &str, at: &[usize]| m.trace_index(n, at).unwrap();
    let members = vec![
        idx("pst", &[1, 0]),
        idx("pst", &[1, 1]),
        idx("pst", &[1, 2]),
        idx("tempo", &[]),
    ];
    assert_eq!(c.sets[0].members, members);
    assert_eq!(c.sets[0].into, Some(idx("material", &[2])));
    let mut w = m.initial_weights();
    let before = w.clone();
    let moves = m.centre(&mut w);
    let at = |n: &str| m.index_of(n).unwrap();
    // mg: pst[1][0..3] are -1, -3, -5 and tempo 20: mean 2.75; into material[2].mg twice that.
    assert_eq!(moves[0].from, "pst[1] + tempo.mg");
    assert_eq!(moves[0].into, "material[2].mg");
    assert!((moves[0].mean - 2.75).abs() < 1e-12);
    assert!((w[at("material[2].mg")] - before[at("material[2].mg")] - 5.5).abs() < 1e-12);
    assert!((w[at("tempo.mg")] - (20.0 - 2.75)).abs() < 1e-12);
    assert_eq!(
        w[at("pst[1][3].mg")],
        before[at("pst[1][3].mg")],
        "excluded"
    );
    // Untapered, into nothing: the two weights' mean (0.5, 1) taken out.
    assert_eq!(
        (moves[2].from.as_str(), moves[2].into.as_str()),
        ("ks_weight[1] + ks_weight[2]", "")
    );
    assert!(
        (w[at("ks_weight[1]")] + 0.25).abs() < 1e-12
            && (w[at("ks_weight[2]")] - 0.25).abs() < 1e-12
    );
    assert_eq!(moves.len(), 3);
    // The directions: one per set and phase, named by their entry.
    let d = m.flat_directions();
    assert_eq!(d.len(), 3);
    assert_eq!(d[1].at, "m.json: centre[0]");
    assert_eq!(d[1].what, "pst[1] + tempo.eg -> material[2].eg");
    assert!(d[1].weights.contains(&(at("material[2].eg"), -2.0)));
    assert!(d[1].weights.contains(&(at("tempo.eg"), 1.0)));
    assert_eq!(d[1].weights.len(), 5);
    assert_eq!(d[2].what, "ks_weight[1] + ks_weight[2]");
    assert_eq!(
        d[2].weights,
        vec![(at("ks_weight[1]"), 1.0), (at("ks_weight[2]"), 1.0)]
    );
}
