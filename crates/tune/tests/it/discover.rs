//! `tune discover` through the real binary: on the synthetic traced engine (its `tempo` declared
//! a port of the catalogue's `tempo`) it writes discover.json with every key the docs name, and
//! the flagged group says so; bad options fail before any data is read.

use crate::common;

use crate::fixture;

use common::{arg, run};
use fixture::{write, Kind};

#[test]
fn discover_on_traces_writes_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), Kind::Linear, 600, 5, None);
    // Declare the engine's tempo a port of the catalogue's (one element each).
    let m = std::fs::read_to_string(&f.manifest).unwrap();
    let from = "{\"name\": \"tempo\",";
    assert!(m.contains(from), "{m}");
    let m = m.replacen(from, "{\"name\": \"tempo\", \"catalogue\": \"tempo\",", 1);
    std::fs::write(&f.manifest, m).unwrap();
    let out = dir.path().join("out");
    let r = run(&[
        "discover",
        "--trace",
        arg(&f.traces),
        "--manifest",
        arg(&f.manifest),
        "--valid-fraction",
        "0.3",
        "--groups",
        "knight_table",
        "tempo",
        "--out",
        arg(&out),
        "--quiet",
    ]);
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("knight_table"), "{}", r.stdout);
    assert!(out.join("discover.svg").is_file());
    let text = std::fs::read_to_string(out.join("discover.json")).unwrap();
    let j: serde_json::Value = serde_json::from_str(&text).unwrap();
    for key in [
        "model",
        "k",
        "l2",
        "level",
        "correction",
        "split",
        "base_loss",
        "groups",
        "controls",
        "greedy",
        "chosen",
    ] {
        assert!(j.get(key).is_some(), "no `{key}` in {text}");
    }
    for key in [
        "train_positions",
        "train_games",
        "held_out_positions",
        "held_out_games",
    ] {
        assert!(
            j["split"][key].as_u64().is_some_and(|n| n > 0),
            "{key}: {text}"
        );
    }
    let g = &j["groups"][0];
    for key in [
        "name",
        "elements",
        "gain",
        "se",
        "z",
        "p",
        "significant",
        "notes",
        "values",
    ] {
        assert!(g.get(key).is_some(), "no `{key}` in a group: {text}");
    }
    let group = |name: &str| {
        let all = j["groups"].as_array().unwrap();
        all.iter().find(|g| g["name"] == name).cloned().unwrap()
    };
    assert_eq!(group("tempo")["notes"][0], "already in the model", "{text}");
    assert!(
        group("knight_table")["notes"]
            .as_array()
            .unwrap()
            .is_empty(),
        "{text}"
    );
    let b1 = group("knight_table")["values"]["b1"].as_array().cloned();
    assert_eq!(b1.expect("b1: [mg, eg]").len(), 2);
    assert_eq!(
        j["controls"][0]["name"],
        format!("control: shuffled {}", g["name"].as_str().unwrap())
    );

    // The tuner starts the engine's port of `tempo` at its value plus the ranking's.
    let fit = dir.path().join("fit");
    let r = run(&[
        "lbfgs",
        "--trace",
        arg(&f.traces),
        "--manifest",
        arg(&f.manifest),
        "--discovered",
        arg(&out.join("discover.json")),
        "--max-iters",
        "2",
        "--out",
        arg(&fit),
    ]);
    assert_eq!(r.code, Some(0), "{}\n{}", r.stdout, r.stderr);
    let all = r.stdout.clone() + &r.stderr;
    assert!(
        all.contains("tempo (port of `tempo`) starts at the ranking's values"),
        "{all}"
    );
}

#[test]
fn discover_refuses_bad_options_before_reading() {
    let r = run(&["discover", "--data", "/no/such/file.epd", "--level", "1.5"]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("--level"), "{}", r.stderr);
    let r = run(&[
        "discover",
        "--data",
        "/no/such/file.epd",
        "--groups",
        "nope",
    ]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(
        r.stderr.contains("no catalogue group `nope`"),
        "{}",
        r.stderr
    );
}
