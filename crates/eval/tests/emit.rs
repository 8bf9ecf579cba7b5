//! The emitted C header compiles with the system C compiler and holds the weights of the JSON
//! file; the C and Rust outputs share one layout.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use eval::emit::{source, Lang, Layout, Shape};
use eval::{c_source, rust_source, weights_to_json, Model, ModelKind};

/// The C compiler to use: `$CC`, else the first of `cc`, `gcc`, `clang` that runs.
fn c_compiler() -> Option<String> {
    std::env::var("CC")
        .ok()
        .into_iter()
        .chain(["cc", "gcc", "clang"].map(String::from))
        .find(|cc| Command::new(cc).arg("--version").output().is_ok())
}

/// Values read from the weights as JSON (the file a run writes), rounded as the header does.
fn from_json(json: &serde_json::Value, name: &str) -> f64 {
    json["params"][name]
        .as_f64()
        .unwrap_or_else(|| panic!("{name} not in the JSON"))
}

/// `(C expression, parameter name, is an integer)`: the values the test program prints.
fn probes(kind: ModelKind) -> Vec<(String, String, bool)> {
    let mut v = Vec::new();
    let roles = ["pawn", "knight", "bishop", "rook", "queen"];
    for (i, r) in roles.iter().enumerate() {
        v.push((
            format!("MATERIAL_MG[{i}]"),
            format!("material.{r}.mg"),
            true,
        ));
        v.push((
            format!("MATERIAL_EG[{i}]"),
            format!("material.{r}.eg"),
            true,
        ));
    }
    // Piece index and square index (a1 = 0 .. h8 = 63).
    for (piece, role, sq, name) in [
        (1, "knight", 28, "e4"),
        (0, "pawn", 52, "e7"),
        (5, "king", 6, "g1"),
        (3, "rook", 63, "h8"),
    ] {
        for phase in ["mg", "eg"] {
            v.push((
                format!("PST_{}[{piece}][{sq}]", phase.to_uppercase()),
                format!("pst.{role}.{phase}.{name}"),
                true,
            ));
        }
    }
    if kind == ModelKind::Full {
        for (expr, name, int) in [
            ("MOBILITY_QUEEN_MG[27]", "mobility.queen.27.mg", true),
            ("MOBILITY_KNIGHT_EG[0]", "mobility.knight.0.eg", true),
            ("PAWNS_PASSED_EG[5]", "pawns.passed.rank6.eg", true),
            (
                "PAWNS_PASSED_FREE_PATH_MG[1]",
                "pawns.passed.free_path.rank2.mg",
                true,
            ),
            ("KING_SAFETY_ATTACK_QUEEN", "king_safety.attack.queen", true),
            ("TEMPO_EG", "tempo.eg", true),
            ("PHASE_QUEEN", "phase.queen", false),
            ("KING_SAFETY_QUADRATIC", "king_safety.quadratic", false),
        ] {
            v.push((expr.to_string(), name.to_string(), int));
        }
    }
    v
}

/// Compiles `main.c` (which includes `weights.h`) in `dir` with strict warnings, runs it and
/// returns its output.
fn compile_and_run(cc: &str, dir: &Path) -> String {
    let exe = dir.join("probe");
    let out = Command::new(cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-o"])
        .arg(&exe)
        .arg(dir.join("main.c"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cc}: {e}"));
    assert!(
        out.status.success(),
        "the header does not compile with {cc}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    assert!(run.status.success());
    String::from_utf8(run.stdout).unwrap()
}

#[test]
fn the_c_header_compiles_and_holds_the_json_values() {
    let Some(cc) = c_compiler() else {
        println!("skipped: no C compiler found (tried $CC, cc, gcc, clang)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for kind in ModelKind::ALL {
        let model = Model::new(kind);
        let w = common::random_weights(&model, 11);
        let json: serde_json::Value = serde_json::from_str(&weights_to_json(&model, &w)).unwrap();
        let sub: PathBuf = dir.path().join(kind.name());
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join("weights.h"), c_source(&model, &w)).unwrap();
        let probes = probes(kind);
        let mut main = String::from(
            "#include <stdio.h>\n#include \"weights.h\"\n/* Included twice: the guard. */\n\
             #include \"weights.h\"\nint main(void) {\n",
        );
        for (expr, _, int) in &probes {
            if *int {
                main += &format!("    printf(\"%d\\n\", {expr});\n");
            } else {
                main += &format!("    printf(\"%.17g\\n\", {expr});\n");
            }
        }
        main += "    return 0;\n}\n";
        std::fs::write(sub.join("main.c"), main).unwrap();
        let printed = compile_and_run(&cc, &sub);
        let lines: Vec<&str> = printed.lines().collect();
        assert_eq!(lines.len(), probes.len(), "{kind}: {printed}");
        for ((expr, name, int), line) in probes.iter().zip(lines) {
            let want = from_json(&json, name);
            let got: f64 = line.parse().unwrap();
            if *int {
                assert_eq!(got, want.round(), "{kind}: {expr} ({name})");
            } else {
                assert_eq!(got, want, "{kind}: {expr} ({name})");
            }
        }
    }
}

/// The two languages print the same items with the same values: every array and scalar name
/// of the layout appears in both, and the numbers in each item's text agree.
#[test]
fn c_and_rust_print_the_same_layout() {
    for kind in ModelKind::ALL {
        let model = Model::new(kind);
        let w = common::random_weights(&model, 5);
        let layout = Layout::new(&model, &w);
        let c = c_source(&model, &w);
        let rust = rust_source(&model, &w);
        assert_eq!(rust, source(&model, &w, Lang::Rust));
        let mut entries = 0;
        for item in &layout.items {
            let (c_decl, rust_decl) = match &item.shape {
                Shape::Array(v) => (
                    format!("static const int {}[{}] = {{", item.name, v.len()),
                    format!("pub const {}: [i32; {}] = [", item.name, v.len()),
                ),
                Shape::Boards(b) => (
                    format!("static const int {}[{}][64] = {{", item.name, b.len()),
                    format!("pub const {}: [[i32; 64]; {}] = [", item.name, b.len()),
                ),
                Shape::Int(v) => (
                    format!("static const int {} = {v};", item.name),
                    format!("pub const {}: i32 = {v};", item.name),
                ),
                Shape::Float(v) => (
                    format!("static const double {} = {v:?};", item.name),
                    format!("pub const {}: f64 = {v:?};", item.name),
                ),
            };
            assert!(c.contains(&c_decl), "{kind}: {c_decl}");
            assert!(rust.contains(&rust_decl), "{kind}: {rust_decl}");
            entries += match &item.shape {
                Shape::Array(v) => v.len(),
                Shape::Boards(b) => b.len() * 64,
                _ => 1,
            };
        }
        // Every parameter is in exactly one entry (arrays may add unused slots).
        assert!(
            entries >= model.len(),
            "{kind}: {entries} < {}",
            model.len()
        );
        // The numbers, in order, are the same in both languages (comments aside).
        assert_eq!(numbers(&c, "/*"), numbers(&rust, "//"), "{kind}");
    }
}

/// The numbers of the declarations, comments (from `comment` to the end of the line) removed.
fn numbers(text: &str, comment: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split(comment).next().unwrap_or(""))
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim_start().starts_with('*'))
        .flat_map(|l| {
            // Drop the array lengths of declarations: `[5]`, `; 5]`, `[6][64]`.
            let body = l.split_once('=').map_or(l, |(_, rhs)| rhs);
            body.split(|c: char| !(c.is_ascii_digit() || c == '-' || c == '.' || c == 'e'))
                .filter(|t| t.parse::<f64>().is_ok())
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn languages_parse_by_name() {
    for lang in Lang::ALL {
        assert_eq!(lang.name().parse::<Lang>(), Ok(lang));
    }
    assert_eq!("H".parse::<Lang>(), Ok(Lang::C));
    assert_eq!(Lang::C.file_name(), "weights.h");
    let err = "fortran".parse::<Lang>().unwrap_err();
    assert!(err.contains("fortran") && err.contains("c, rust"), "{err}");
}
