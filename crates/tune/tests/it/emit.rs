//! `tune emit`: a gradtune weights file as source code (C, Rust, C++, C#) through the one
//! emitter, through the real binary.

use crate::common;

use common::{arg, run};
use eval::{Model, ModelKind};
use trace::emit::Language;

/// `model`'s weights `w` as `texel::emit` writes them in `lang`, without a command.
fn expected(model: &Model, w: &[f64], lang: Language) -> String {
    texel::emit::source(model, w, &lang, None).unwrap()
}

/// `text` without the line naming the command that wrote it.
fn without_command(text: &str) -> String {
    let lines = text.split_inclusive('\n');
    lines
        .filter(|l| !l.contains("Command: tune emit"))
        .collect()
}

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
        assert_eq!(without_command(&text), expected(&model, &w, Language::C));
        assert!(text.contains(&format!("gradtune's `{kind}` model")));
        let material =
            "const int material[5] = { S(100, 100), S(300, 300), S(300, 300), S(500, 500), S(900, 1013) };";
        assert!(text.contains(material), "{text}");
        let command = format!(
            " * Command: tune emit {} --lang c -o {}\n",
            arg(&weights),
            arg(&header)
        );
        assert!(text.contains(&command), "{text}");
        assert!(r.stderr.contains(arg(&header)), "{}", r.stderr);
        assert!(r.stderr.contains("rounded 2 of "), "{}", r.stderr);

        let rs = dir.path().join(format!("{kind}.rs"));
        let r = run(&["emit", arg(&weights), "-o", arg(&rs)]);
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        assert_eq!(
            without_command(&std::fs::read_to_string(&rs).unwrap()),
            expected(&model, &w, Language::Rust)
        );

        // To the standard output, C by default.
        let r = run(&["emit", arg(&weights)]);
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        assert_eq!(
            without_command(&r.stdout),
            expected(&model, &w, Language::C)
        );
        for lang in [Language::Rust, Language::Cpp, Language::CSharp] {
            let r = run(&["emit", arg(&weights), "--lang", &lang.to_string()]);
            assert_eq!(r.code, Some(0), "{}", r.stderr);
            assert_eq!(without_command(&r.stdout), expected(&model, &w, lang));
        }
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
    // JSON is for a traced engine's tuned manifest; a gradtune weights file is JSON already.
    let good = dir.path().join("good.json");
    let model = Model::new(ModelKind::Psqt);
    eval::save_weights(&good, &model, &model.default_weights()).unwrap();
    let r = run(&["emit", arg(&good), "--lang", "json"]);
    assert_eq!(r.code, Some(1));
    assert!(r.stderr.contains("JSON already"), "{}", r.stderr);
}
