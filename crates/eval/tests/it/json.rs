//! Weights as JSON by name: exact round trips, and refusals naming every offending parameter.

use crate::common;

use eval::{
    load_weights, save_weights, tables, weights_from_json, weights_to_json, Model, ModelKind,
    ParamError,
};

fn refusal(text: &str) -> String {
    match weights_from_json(text) {
        Ok(_) => panic!(
            "accepted invalid weights:\n{}",
            &text[..text.len().min(300)]
        ),
        Err(e) => e.to_string(),
    }
}

/// The default psqt file with its `params` entries edited by `f` (one entry per line).
fn edited(f: impl FnOnce(&mut Vec<String>)) -> String {
    edited_file(
        ModelKind::Psqt,
        &Model::new(ModelKind::Psqt).default_weights(),
        f,
    )
}

/// The file of `w` (weights of `kind`) with its `params` entries edited by `f`.
fn edited_file(kind: ModelKind, w: &[f64], f: impl FnOnce(&mut Vec<String>)) -> String {
    let model = Model::new(kind);
    let text = weights_to_json(&model, w);
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // lines: "{", "  \"model\": ...", "  \"params\": {", entries..., "  }", "}"
    let mut entries: Vec<String> = lines[3..lines.len() - 2]
        .iter()
        .map(|l| l.trim_end_matches(',').to_string())
        .collect();
    f(&mut entries);
    let body = entries.join(",\n");
    lines.truncate(3);
    format!("{}\n{body}\n  }}\n}}\n", lines.join("\n"))
}

#[test]
fn round_trip_is_exact_for_both_models() {
    for kind in ModelKind::ALL {
        let model = Model::new(kind);
        for seed in 0..5 {
            let mut w = common::random_weights(&model, seed);
            w[0] = 0.1 + 0.2; // a value without a short decimal form
            w[1] = -1e-300;
            let text = weights_to_json(&model, &w);
            let (back, w2) = weights_from_json(&text).expect("own output is valid");
            assert_eq!(back.kind(), kind);
            assert_eq!(w2, w, "{kind}: round trip changed weights");
        }
    }
}

#[test]
fn files_round_trip_and_errors_name_the_file() {
    let dir = std::env::temp_dir().join(format!("eval-json-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("w.json");
    let model = Model::new(ModelKind::Full);
    let w = common::random_weights(&model, 9);
    save_weights(&path, &model, &w).unwrap();
    let (m2, w2) = load_weights(&path).unwrap();
    assert_eq!(m2.kind(), ModelKind::Full);
    assert_eq!(w2, w);

    std::fs::write(&path, "{\"model\": \"full\", \"params\": {}}").unwrap();
    let e = load_weights(&path).unwrap_err().to_string();
    assert!(e.contains("w.json") && e.contains("missing"), "{e}");

    let missing = dir.join("nope.json");
    let e = load_weights(&missing).unwrap_err().to_string();
    assert!(e.contains("nope.json") && e.contains("read"), "{e}");

    let mut bad = w.clone();
    bad[5] = f64::NAN;
    let e = save_weights(&path, &model, &bad).unwrap_err().to_string();
    assert!(e.contains(&model.params()[5].name), "{e}");
    let e = save_weights(&path, &model, &w[1..]).unwrap_err();
    assert!(matches!(e, ParamError::Length { .. }), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The message and its `source` chain, joined as `anyhow` prints `{:#}`.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cur = e.source();
    while let Some(s) = cur {
        text = format!("{text}: {s}");
        cur = s.source();
    }
    text
}

#[test]
fn printing_the_error_chain_does_not_repeat_the_message() {
    let dir = tempdir();
    let path = dir.join("w.json");
    std::fs::write(&path, "{\"model\": \"psqt\", \"params\": {}}").unwrap();
    let e = chain(&load_weights(&path).unwrap_err());
    assert_eq!(e.matches("missing parameters").count(), 1, "{e}");
    let missing = dir.join("nope.json");
    let io = std::fs::read(&missing).unwrap_err().to_string();
    let e = chain(&load_weights(&missing).unwrap_err());
    assert_eq!(e.matches("nope.json").count(), 1, "{e}");
    assert_eq!(e.matches(&io).count(), 1, "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn tempdir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("eval-json-chain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn unknown_names_are_refused_by_name() {
    let text = edited(|e| {
        e.push("    \"material.dragon.mg\": 1.0".into());
        e.push("    \"pst.knight.mg.i9\": 2.0".into());
    });
    let msg = refusal(&text);
    assert!(msg.contains("2 unknown parameters"), "{msg}");
    assert!(
        msg.contains("`material.dragon.mg`") && msg.contains("`pst.knight.mg.i9`"),
        "{msg}"
    );
}

/// A `full` file written before a group existed (none of its names) reads with the group at its
/// defaults, 0, and the rest as written: the files of before `threats` (which lack every group
/// added after it too, [`eval::LATER_GROUPS`]) and of before `push_threats` and `outposts` (and
/// those after them). A file with only some of a group is refused, naming the missing ones.
#[test]
fn a_later_group_may_be_absent_as_a_whole_but_not_in_part() {
    let model = Model::new(ModelKind::Full);
    let w: Vec<f64> = (0..model.len()).map(|i| (i % 97) as f64 + 0.5).collect();
    let size = |group: &str| model.params().iter().filter(|p| p.group == group).count();
    assert_eq!(
        (size("threats"), size("push_threats"), size("outposts")),
        (32, 4, 4)
    );
    for absent in [&eval::LATER_GROUPS[..], &eval::LATER_GROUPS[1..]] {
        let old = edited_file(ModelKind::Full, &w, |e| {
            e.retain(|l| {
                !absent
                    .iter()
                    .any(|g| l.trim_start().starts_with(&format!("\"{g}.")))
            })
        });
        let (read, w_read) = weights_from_json(&old).unwrap();
        assert_eq!(read.kind(), ModelKind::Full);
        for (i, (&a, &b)) in w_read.iter().zip(&w).enumerate() {
            let p = &model.params()[i];
            let expected = if absent.contains(&p.group.as_str()) {
                0.0
            } else {
                b
            };
            assert_eq!(a, expected, "{absent:?}: {}", p.name);
        }
    }
    for name in ["threats.waiting.hanging.eg", "outposts.bishop.mg"] {
        let part = edited_file(ModelKind::Full, &w, |e| {
            e.retain(|l| !l.contains(&format!("\"{name}\"")))
        });
        let msg = refusal(&part);
        assert!(msg.contains("1 missing parameters"), "{msg}");
        assert!(msg.contains(&format!("`{name}`")), "{msg}");
    }
}

#[test]
fn missing_names_are_refused_by_name() {
    let text = edited(|e| {
        e.retain(|l| !l.contains("\"material.rook.eg\"") && !l.contains("\"pst.king.eg.h8\""))
    });
    let msg = refusal(&text);
    assert!(msg.contains("2 missing parameters"), "{msg}");
    assert!(
        msg.contains("`material.rook.eg`") && msg.contains("`pst.king.eg.h8`"),
        "{msg}"
    );
}

#[test]
fn duplicate_names_are_refused_by_name() {
    let text = edited(|e| e.push("    \"pst.pawn.mg.e4\": 7.0".into()));
    let msg = refusal(&text);
    assert!(
        msg.contains("duplicate") && msg.contains("`pst.pawn.mg.e4`"),
        "{msg}"
    );
}

#[test]
fn non_finite_and_non_numeric_values_are_refused_by_name() {
    // `null` is what serde_json writes for NaN and infinities.
    let text = edited(|e| {
        for l in e.iter_mut() {
            if l.contains("\"material.queen.mg\"") {
                *l = "    \"material.queen.mg\": null".into();
            }
            if l.contains("\"pst.bishop.eg.c3\"") {
                *l = "    \"pst.bishop.eg.c3\": \"12\"".into();
            }
        }
    });
    let msg = refusal(&text);
    assert!(msg.contains("`material.queen.mg = null`"), "{msg}");
    assert!(msg.contains("pst.bishop.eg.c3"), "{msg}");

    // Literals JSON cannot hold: refused while parsing, still naming the parameter.
    for literal in ["NaN", "Infinity", "-inf", "1e999"] {
        let text = edited(|e| {
            for l in e.iter_mut() {
                if l.contains("\"material.knight.eg\"") {
                    *l = format!("    \"material.knight.eg\": {literal}");
                }
            }
        });
        let msg = refusal(&text);
        assert!(msg.contains("material.knight.eg"), "{literal}: {msg}");
    }
}

#[test]
fn huge_values_are_refused_by_name_when_read_and_written() {
    let text = edited(|e| {
        for l in e.iter_mut() {
            if l.contains("\"material.rook.mg\"") {
                *l = "    \"material.rook.mg\": -1e300".into();
            }
        }
    });
    let msg = refusal(&text);
    assert!(msg.contains("`material.rook.mg = -1e+300`"), "{msg}");
    assert!(msg.contains("beyond +-1e9"), "{msg}");
    // The largest magnitude allowed reads back.
    let edge = edited(|e| {
        for l in e.iter_mut() {
            if l.contains("\"material.rook.mg\"") {
                *l = format!("    \"material.rook.mg\": {:?}", -eval::MAX_WEIGHT);
            }
        }
    });
    assert!(weights_from_json(&edge).is_ok());

    let model = Model::new(ModelKind::Psqt);
    let mut w = model.default_weights();
    w[model.index_of("pst.pawn.mg.e4").unwrap()] = 2e9;
    let path = tempdir().join("huge.json");
    let err = save_weights(&path, &model, &w).unwrap_err().to_string();
    assert!(err.contains("pst.pawn.mg.e4 = 2e9"), "{err}");
    assert!(!path.exists());
}

#[test]
fn model_field_is_checked() {
    let msg = refusal("{\"model\": \"nnue\", \"params\": {}}");
    assert!(msg.contains("nnue") && msg.contains("psqt, full"), "{msg}");
    let msg = refusal("{\"params\": {}}");
    assert!(msg.contains("model"), "{msg}");
    let msg = refusal("{\"model\": \"psqt\", \"model\": \"full\", \"params\": {}}");
    assert!(msg.contains("duplicate field `model`"), "{msg}");
    let msg = refusal("{\"model\": \"psqt\", \"params\": {}, \"extra\": 1}");
    assert!(msg.contains("extra"), "{msg}");
    let msg = refusal("[1, 2]");
    assert!(msg.contains("invalid weights JSON"), "{msg}");
}

#[test]
fn names_are_unique_and_well_formed() {
    for kind in ModelKind::ALL {
        let model = Model::new(kind);
        let mut seen = std::collections::HashSet::new();
        for (i, p) in model.params().iter().enumerate() {
            assert!(seen.insert(p.name.clone()), "duplicate name {}", p.name);
            assert_eq!(model.index_of(&p.name), Some(i));
            assert!(
                p.name.starts_with(&p.group),
                "{} not in group {}",
                p.name,
                p.group
            );
            assert!(p
                .name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '_'));
            if let Some((lo, hi)) = p.bounds {
                assert!(lo <= p.init && p.init <= hi);
            }
        }
    }
    let psqt = Model::new(ModelKind::Psqt);
    let full = Model::new(ModelKind::Full);
    assert_eq!(psqt.len(), 778);
    assert!(
        (900..=1300).contains(&full.len()),
        "full has {}",
        full.len()
    );
    // psqt's layout is a prefix of full's.
    assert_eq!(&full.params()[..psqt.len()], psqt.params());
    for name in [
        "material.rook.eg",
        "pst.knight.mg.e4",
        "mobility.bishop.7.mg",
        "phase.queen",
        "tempo.eg",
    ] {
        assert!(full.index_of(name).is_some(), "{name}");
    }
}

#[test]
fn tables_show_the_weights() {
    let model = Model::new(ModelKind::Full);
    let mut w = model.default_weights();
    w[model.index_of("pst.knight.mg.e4").unwrap()] = 37.4;
    w[model.index_of("pawns.passed.rank6.eg").unwrap()] = 81.0;
    let t = tables(&model, &w);
    // pst.knight.mg: rank 4 row has 37 in the e column.
    let block = t.split("pst.knight.mg\n").nth(1).unwrap();
    let rank4 = block
        .lines()
        .find(|l| l.trim_start().starts_with("4 "))
        .unwrap();
    let cells: Vec<&str> = rank4.split_whitespace().collect();
    assert_eq!(cells, ["4", "0", "0", "0", "0", "37", "0", "0", "0"]);
    assert!(t.contains("pawns.passed.rank6.eg"));
}

#[test]
fn model_is_send_and_sync() {
    fn check<T: Send + Sync + Clone + std::fmt::Debug>() {}
    check::<Model>();
    check::<eval::Quiescence>();
}

/// The model's twins (`ParamInfo::twin`) are exactly the pairs its names spell: one `mg`
/// component, and the same name with `eg` in its place.
#[test]
fn twins_are_the_pairs_the_names_spell() {
    for kind in [eval::ModelKind::Psqt, eval::ModelKind::Full] {
        let model = eval::Model::new(kind);
        let mut pairs = 0;
        for (i, p) in model.params().iter().enumerate() {
            let parts: Vec<&str> = p.name.split('.').collect();
            let spelled = (parts.iter().filter(|c| **c == "mg").count() == 1)
                .then(|| {
                    let twin: Vec<&str> = parts
                        .iter()
                        .map(|c| if *c == "mg" { "eg" } else { c })
                        .collect();
                    model.index_of(&twin.join("."))
                })
                .flatten();
            assert_eq!(p.twin, spelled, "{kind}: {} (index {i})", p.name);
            pairs += usize::from(p.twin.is_some());
        }
        if kind == eval::ModelKind::Psqt {
            assert_eq!(
                pairs * 2,
                model.len(),
                "psqt is material and tables, all tapered"
            );
        }
        assert!(pairs > 0);
    }
}
