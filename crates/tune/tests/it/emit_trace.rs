//! `tune emit` of a traced engine's weights: a tuned manifest (the manifest with its values
//! replaced) as C, C++, Rust, C#, JSON or a user's template, through the real binary.

use crate::common;

use std::path::Path;

use common::{arg, run};
use trace::emit::{render_with, Language};
use trace::Manifest;

/// A tuned manifest: tapered and untapered, integer and float, scalar, array and table.
const TUNED: &str = r#"{
  "format": "gradtune-manifest", "version": 1, "engine": "tiny", "score": "white",
  "phase": { "max": 24 },
  "params": [
    { "name": "material", "shape": [3], "value": [[100, 121], [300, -281], [-1, 0]] },
    { "name": "pst", "shape": [2, 3], "tapered": false, "value": [[1, 2, 3], [5, 5, -7]] },
    { "name": "tempo", "shape": [], "value": [20, 10] },
    { "name": "ks_scale", "shape": [], "tapered": false, "integer": false, "value": 0.35 }
  ]
}"#;

/// Writes `text` as `name` in `dir`, returning the path.
fn file(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_tuned_manifest_is_emitted_in_every_language() {
    let dir = tempfile::tempdir().unwrap();
    let tuned = file(dir.path(), "tuned.json", TUNED);
    let m = Manifest::load(&tuned).unwrap();
    let w = m.initial_weights();

    // C by default, to the standard output; the header names the command.
    let r = run(&["emit", arg(&tuned)]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let command = format!("tune emit {}", arg(&tuned));
    assert_eq!(
        r.stdout,
        render_with(&m, &w, &Language::C, Some(&command)).unwrap()
    );
    assert!(r
        .stdout
        .contains("const int material[3] = { S(100, 121), S(300, -281), S(-1, 0) };"));
    assert!(r
        .stdout
        .contains("const int pst[2][3] = {\n    { 1, 2, 3 },\n    { 5, 5, -7 },\n};"));
    assert!(r.stdout.contains("const int tempo = S(20, 10);"));
    assert!(r.stdout.contains("const double ks_scale = 0.35;"));
    assert!(
        !r.stderr.contains("rounded"),
        "nothing to round: {}",
        r.stderr
    );

    // Each language by --lang and by -o's extension, written atomically.
    for (lang, name, wanted) in [
        ("cpp", "w.hpp", "const decltype(S(0, 0)) material[3] = "),
        (
            "rust",
            "w.rs",
            "pub const material: [(i32, i32); 3] = [(100, 121), ",
        ),
        (
            "csharp",
            "Weights.cs",
            "public static readonly (int Mg, int Eg)[] material = ",
        ),
    ] {
        let by_lang = dir.path().join(format!("by-lang-{name}"));
        let r = run(&["emit", arg(&tuned), "--lang", lang, "-o", arg(&by_lang)]);
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        let text = std::fs::read_to_string(&by_lang).unwrap();
        assert!(text.contains(wanted), "{lang}: {text}");
        assert!(r.stderr.contains(arg(&by_lang)), "{}", r.stderr);
        let by_ext = dir.path().join(name);
        let r = run(&["emit", arg(&tuned), "-o", arg(&by_ext)]);
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        assert!(
            std::fs::read_to_string(&by_ext).unwrap().contains(wanted),
            "{name}"
        );
    }

    // JSON: the manifest again.
    let json = dir.path().join("out.json");
    let r = run(&["emit", arg(&tuned), "-o", arg(&json)]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(Manifest::load(&json).unwrap().initial_weights(), w);

    // A user template.
    let tpl = file(
        dir.path(),
        "mine.jinja",
        "{% for t in tables %}{{ t.name }}={{ t.flat }}\n{% endfor %}",
    );
    let r = run(&["emit", arg(&tuned), "--lang", arg(&tpl)]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "material=[[100, 121], [300, -281], [-1, 0]]\npst=[1, 2, 3, 5, 5, -7]\ntempo=[[20, 10]]\nks_scale=[0.35]\n"
    );
    // --template takes a template of any name, its values also by name.
    let layout = file(
        dir.path(),
        "engine-layout.txt",
        "{% for v in params.material.values %}{{ v|max }} {% endfor %}{{ params.tempo.mg }}\n",
    );
    let r = run(&["emit", arg(&tuned), "--template", arg(&layout)]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout, "121 300 0 20\n");
}

#[test]
fn a_manifest_gives_names_and_types_to_the_weights_of_another() {
    let dir = tempfile::tempdir().unwrap();
    let tuned = file(dir.path(), "tuned.json", TUNED);
    // The engine's manifest declares ks_scale an integer: its names and types win, and the
    // tuned 0.35 is rounded (and said so).
    let declared = TUNED.replace(r#""integer": false, "value": 0.35"#, r#""value": 1"#);
    let engine = file(dir.path(), "engine.json", &declared);
    let r = run(&[
        "emit",
        "--manifest",
        arg(&engine),
        arg(&tuned),
        "--lang",
        "rust",
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stdout.contains("pub const ks_scale: i32 = 0;"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("rounded 1 of 15 integer weights (largest change 0.350)"),
        "{}",
        r.stderr
    );

    // A manifest of other parameters is refused, naming both files and the first difference.
    let other = file(
        dir.path(),
        "other.json",
        &TUNED.replace("\"tempo\"", "\"tempi\""),
    );
    let out = dir.path().join("w.h");
    let r = run(&[
        "emit",
        "--manifest",
        arg(&other),
        arg(&tuned),
        "-o",
        arg(&out),
    ]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    for part in ["tuned.json", "other.json", "tempo.mg", "tempi.mg"] {
        assert!(r.stderr.contains(part), "{part}: {}", r.stderr);
    }
    assert!(!out.exists());
}

#[test]
fn bad_templates_and_languages_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let tuned = file(dir.path(), "tuned.json", TUNED);
    let broken = file(
        dir.path(),
        "broken.jinja",
        "ok\n{% for t in tables %}\n{{ t.name ( }}\n{% endfor %}\n",
    );
    let out = dir.path().join("w.txt");
    let r = run(&["emit", arg(&tuned), "--lang", arg(&broken), "-o", arg(&out)]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(
        r.stderr.contains(arg(&broken)) && r.stderr.contains("line 3"),
        "{}",
        r.stderr
    );
    assert!(!out.exists());

    let r = run(&["emit", arg(&tuned), "--lang", "fortran"]);
    assert_eq!(r.code, Some(2), "a usage error: {}", r.stderr);
    assert!(r.stderr.contains("csharp"), "{}", r.stderr);

    // A gradtune weights file goes through the same templates: every language (one emitter,
    // issue 41); before, it took c or rust only.
    let model = eval::Model::new(eval::ModelKind::Psqt);
    let weights = dir.path().join("psqt.json");
    eval::save_weights(&weights, &model, &model.default_weights()).unwrap();
    let r = run(&["emit", arg(&weights), "--lang", "csharp"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("material"), "{}", r.stdout);
    let r = run(&["emit", arg(&weights), "--lang", "cpp"]);
    assert_eq!(r.code, Some(0), "the C header is C++ too: {}", r.stderr);
}
