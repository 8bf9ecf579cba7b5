//! Ports of catalogue groups started at a ranking's values ([`Discovered::apply`],
//! [`write_started`]): the greedy selection's joint values before a group's own, added to the
//! port's current values and rounded where the engine's weights are integers; other weights
//! untouched; a ranking of another catalogue's elements, a manifest without a port and a file
//! that is not a ranking refused.

use texel::discover::{write_started, Discovered};
use trace::Manifest;

/// An engine with a plain table, its side-to-move bonus declared a port of `tempo` (at the
/// engine's old constant), `threats` ported at 0, and a real-valued port of `bishop_pair`.
const MANIFEST: &str = r#"{"format": "gradtune-manifest", "version": 1, "engine": "x",
  "score": "white", "phase": {"max": 24}, "params": [
  {"name": "values", "shape": [2], "value": [[100, 120], [300, 310]]},
  {"name": "tempo", "shape": [], "catalogue": "tempo", "value": [29, 10]},
  {"name": "threats", "shape": [2, 8], "catalogue": "threats",
   "value": [[[0,0],[0,0],[0,0],[0,0],[0,0],[0,0],[0,0],[0,0]],
             [[0,0],[0,0],[0,0],[0,0],[0,0],[0,0],[0,0],[0,0]]]},
  {"name": "pair", "shape": [], "catalogue": "bishop_pair", "integer": false,
   "value": [1.5, 2.5]}]}"#;

/// A ranking: tempo and threats chosen (joint values), tempo also alone (other values), the
/// bishop pair ranked but not chosen.
fn ranking() -> String {
    let threat = |side: &str, k: &str, v: [f64; 2]| format!("\"{side}.{k}\": [{}, {}]", v[0], v[1]);
    let kinds = [
        "pawn_on_knight",
        "pawn_on_bishop",
        "pawn_on_rook",
        "pawn_on_queen",
        "minor_on_rook",
        "minor_on_queen",
        "rook_on_queen",
        "hanging",
    ];
    let mut values = Vec::new();
    for (s, side) in ["to_move", "waiting"].into_iter().enumerate() {
        for (k, kind) in kinds.into_iter().enumerate() {
            let x = (10 * s + k) as f64;
            values.push(threat(side, kind, [x + 0.4, -x - 0.6]));
        }
    }
    format!(
        r#"{{"model": "x", "groups": [
          {{"name": "tempo", "values": {{"tempo": [-99.0, -99.0]}}}},
          {{"name": "bishop_pair", "values": {{"bishop_pair": [10.25, -4.5]}}}},
          {{"name": "threats", "values": {{}}}}],
        "chosen": [
          {{"group": "tempo", "values": {{"tempo": [-15.4, -6.7]}}}},
          {{"group": "threats", "values": {{{}}}}}]}}"#,
        values.join(", ")
    )
}

#[test]
fn ports_start_at_the_rankings_values_and_the_rest_stays() {
    let m = Manifest::from_json(MANIFEST, "m").unwrap();
    let d = Discovered::from_json(&ranking()).unwrap();
    let mut w = m.initial_weights();
    let before = w.clone();
    let ports = d.apply(&m, &mut w).unwrap();
    let at = |name: &str| m.index_of(name).unwrap();
    // The plain table is no port: untouched.
    assert_eq!(w[..4], before[..4]);
    // tempo: the joint values (not its own fit's -99), added to 29 and 10, rounded.
    assert_eq!((w[at("tempo.mg")], w[at("tempo.eg")]), (14.0, 3.0));
    // threats: each element's joint values from 0, rounded (x + 0.4 -> x, -x - 0.6 -> -x - 1).
    assert_eq!(w[at("threats[0][3].mg")], 3.0);
    assert_eq!(w[at("threats[0][3].eg")], -4.0);
    assert_eq!(w[at("threats[1][7].mg")], 17.0);
    assert_eq!(w[at("threats[1][7].eg")], -18.0);
    // Not chosen: its fit alone, added exactly (the parameter is real-valued).
    assert_eq!((w[at("pair.mg")], w[at("pair.eg")]), (11.75, -2.0));
    let sources: Vec<(&str, &str)> = ports.iter().map(|p| (p.param.as_str(), p.source)).collect();
    assert_eq!(
        sources,
        [
            ("tempo", "chosen"),
            ("threats", "chosen"),
            ("pair", "alone")
        ]
    );
    assert_eq!(ports[0].largest, 15.0);
    assert!(
        ports[2].to_string().contains("its fit alone"),
        "{}",
        ports[2]
    );
}

#[test]
fn a_port_the_ranking_did_not_fit_keeps_its_values() {
    let m = Manifest::from_json(MANIFEST, "m").unwrap();
    let d = Discovered::from_json(r#"{"groups": [{"name": "space", "values": {}}]}"#).unwrap();
    let mut w = m.initial_weights();
    let before = w.clone();
    let ports = d.apply(&m, &mut w).unwrap();
    assert_eq!(w, before);
    assert!(ports.iter().all(|p| p.source == "not ranked"), "{ports:?}");
    assert!(ports[0].to_string().contains("keeps its manifest values"));
}

#[test]
fn a_ranking_of_other_elements_and_files_that_are_not_rankings_are_refused() {
    let m = Manifest::from_json(MANIFEST, "m").unwrap();
    let other = r#"{"chosen": [{"group": "tempo", "values": {"side_to_move": [1, 2]}}]}"#;
    let err = Discovered::from_json(other)
        .unwrap()
        .apply(&m, &mut m.initial_weights())
        .unwrap_err()
        .to_string();
    assert!(err.contains("no element `tempo`"), "{err}");
    assert!(Discovered::from_json("{}")
        .unwrap_err()
        .contains("no group"));
    assert!(Discovered::from_json("[1, 2]").is_err());
}

#[test]
fn the_started_manifest_is_written_and_reads_back_with_the_new_values() {
    let dir = tempfile::tempdir().unwrap();
    let (manifest, found, to) = (
        dir.path().join("m.json"),
        dir.path().join("discover.json"),
        dir.path().join("start.json"),
    );
    std::fs::write(&manifest, MANIFEST).unwrap();
    std::fs::write(&found, ranking()).unwrap();
    let ports = write_started(&manifest, &found, &to).unwrap();
    assert_eq!(ports.len(), 3);
    let back = Manifest::load(&to).unwrap();
    let mut expected = Manifest::load(&manifest).unwrap().initial_weights();
    Discovered::from_json(&ranking())
        .unwrap()
        .apply(&back, &mut expected)
        .unwrap();
    assert_eq!(back.initial_weights(), expected);

    // A manifest without a port: refused, naming both files.
    let plain = dir.path().join("plain.json");
    std::fs::write(
        &plain,
        r#"{"format": "gradtune-manifest", "version": 1, "engine": "x", "score": "white",
        "phase": {"max": 24}, "params": [{"name": "v", "shape": [1], "value": [[1, 2]]}]}"#,
    )
    .unwrap();
    let err = write_started(&plain, &found, &dir.path().join("no.json"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("declares no port") && err.contains("discover.json"),
        "{err}"
    );
    assert!(!dir.path().join("no.json").exists());
}
