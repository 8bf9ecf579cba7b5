//! `tune emit`: a weights file as a C header or Rust constants, through the real binary.

mod common;

use common::{arg, run};
use eval::{Model, ModelKind};

#[test]
fn emit_writes_the_header_of_the_weights_file() {
    let dir = tempfile::tempdir().unwrap();
    for kind in ModelKind::ALL {
        let model = Model::new(kind);
        let mut w = model.default_weights();
        w[model.index_of("pst.knight.mg.e4").unwrap()] = 37.4;
        w[model.index_of("material.queen.eg").unwrap()] = 1012.6;
        let weights = dir.path().join(format!("{kind}.json"));
        eval::save_weights(&weights, &model, &w).unwrap();

        // To a file: the language from --lang, or from the extension.
        let header = dir.path().join(format!("{kind}.h"));
        let r = run(&["emit", arg(&weights), "--lang", "c", "-o", arg(&header)]);
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        let text = std::fs::read_to_string(&header).unwrap();
        assert_eq!(text, eval::c_source(&model, &w));
        assert!(text.contains(&format!("model `{kind}`")));
        assert!(text.contains("static const int MATERIAL_EG[5] = {100, 300, 300, 500, 1013};"));
        assert!(r.stderr.contains(arg(&header)), "{}", r.stderr);

        let rs = dir.path().join(format!("{kind}.rs"));
        let r = run(&["emit", arg(&weights), "-o", arg(&rs)]);
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        assert_eq!(
            std::fs::read_to_string(&rs).unwrap(),
            eval::rust_source(&model, &w)
        );

        // To the standard output, C by default.
        let r = run(&["emit", arg(&weights)]);
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        assert_eq!(r.stdout, eval::c_source(&model, &w));
        let r = run(&["emit", arg(&weights), "--lang", "rust"]);
        assert_eq!(r.stdout, eval::rust_source(&model, &w));
    }
    // Nothing but the outputs was left in the directory (no temporary files).
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "full.h",
            "full.json",
            "full.rs",
            "psqt.h",
            "psqt.json",
            "psqt.rs"
        ]
    );
}

#[test]
fn emit_refuses_a_bad_weights_file_and_an_unknown_language() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"model\": \"psqt\", \"params\": {\"nope\": 1}}").unwrap();
    let out = dir.path().join("w.h");
    let r = run(&["emit", arg(&bad), "-o", arg(&out)]);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr.contains("bad.json") && r.stderr.contains("nope"),
        "{}",
        r.stderr
    );
    assert!(!out.exists());
    let r = run(&["emit", arg(&bad), "--lang", "fortran"]);
    assert_eq!(r.code, Some(2), "a usage error: {}", r.stderr);
}
