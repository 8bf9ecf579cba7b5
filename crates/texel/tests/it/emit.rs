//! gradtune's own models through the one emitter (`texel::emit`): every parameter is in one
//! table element; the C header compiles with the system C compiler (after an engine's `S`) and
//! the Rust constants with `rustc`, and both read back the values of the weights as JSON at
//! the places the layout promises (material by piece, the piece-square tables by piece and
//! square, mobility by count, pawn terms by relative rank, the scalars).

use crate::tools;

use std::path::Path;
use std::process::Command;

use eval::{weights_to_json, Model, ModelKind};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use texel::emit::{describe, source};
use trace::emit::{EmitError, Language};

/// Random weights around the defaults, inside the bounds.
fn random_weights(model: &Model, seed: u64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let one = |p: &eval::ParamInfo| match p.bounds {
        Some((lo, hi)) => rng.gen_range(lo + 0.1 * (hi - lo)..lo + 0.5 * (hi - lo)),
        None => p.init + rng.gen_range(-60.0..60.0),
    };
    model.params().iter().map(one).collect()
}

/// Runs `cmd` in `dir`, failing the test with its output unless it succeeds; returns stdout.
fn run(dir: &Path, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A value to read back: the table, the index expression, the phase of a tapered element
/// (`None` untapered), the parameter's name, whether it is an integer.
struct Probe {
    table: &'static str,
    index: String,
    phase: Option<usize>,
    name: String,
    integer: bool,
}

/// The values each model's test program prints.
fn probes(kind: ModelKind) -> Vec<Probe> {
    let p = |table, index: String, phase, name: String, integer| Probe {
        table,
        index,
        phase,
        name,
        integer,
    };
    let mut v = Vec::new();
    for (i, r) in ["pawn", "knight", "bishop", "rook", "queen"]
        .iter()
        .enumerate()
    {
        for (k, phase) in ["mg", "eg"].iter().enumerate() {
            let name = format!("material.{r}.{phase}");
            v.push(p("material", format!("[{i}]"), Some(k), name, true));
        }
    }
    // Piece index and square index (a1 = 0 .. h8 = 63).
    for (piece, role, sq, square) in [
        (1, "knight", 28, "e4"),
        (0, "pawn", 52, "e7"),
        (5, "king", 6, "g1"),
        (3, "rook", 63, "h8"),
    ] {
        for (k, phase) in ["mg", "eg"].iter().enumerate() {
            let name = format!("pst.{role}.{phase}.{square}");
            v.push(p("pst", format!("[{piece}][{sq}]"), Some(k), name, true));
        }
    }
    if kind == ModelKind::Full {
        for (table, index, phase, name, integer) in [
            (
                "mobility_queen",
                "[27]",
                Some(0),
                "mobility.queen.27.mg",
                true,
            ),
            (
                "mobility_knight",
                "[0]",
                Some(1),
                "mobility.knight.0.eg",
                true,
            ),
            (
                "pawns_passed",
                "[5]",
                Some(1),
                "pawns.passed.rank6.eg",
                true,
            ),
            (
                "pawns_passed_free_path",
                "[1]",
                Some(0),
                "pawns.passed.free_path.rank2.mg",
                true,
            ),
            (
                "king_safety_attack_queen",
                "",
                None,
                "king_safety.attack.queen",
                true,
            ),
            ("tempo", "", Some(1), "tempo.eg", true),
            ("phase_queen", "", None, "phase.queen", false),
            (
                "king_safety_quadratic",
                "",
                None,
                "king_safety.quadratic",
                false,
            ),
        ] {
            v.push(p(table, index.into(), phase, name.into(), integer));
        }
    }
    v
}

/// The engine's own packing, declared before the weights are included (Ethereal's macro).
const ENGINE_S: &str = "#define S(mg, eg) ((int)((unsigned int)(eg) << 16) + (mg))\n";

/// Checks the printed lines against the weights as JSON: integers rounded (half away from
/// zero), the others exactly.
fn check(kind: ModelKind, printed: &str, probes: &[Probe], json: &serde_json::Value) {
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), probes.len(), "{kind}: {printed}");
    for (p, line) in probes.iter().zip(lines) {
        let want = json["params"][&p.name]
            .as_f64()
            .unwrap_or_else(|| panic!("{} not in the JSON", p.name));
        let got: f64 = line.parse().unwrap();
        let want = if p.integer { want.round() } else { want };
        assert_eq!(got, want, "{kind}: {}{} ({})", p.table, p.index, p.name);
    }
}

/// For each model: random weights (from `seed`), their source in `lang` written as `file` in
/// a directory of its own, and `read_back(dir, probes)`, which compiles a program printing the
/// probes and returns what it printed, checked against the weights as JSON.
fn round_trip(
    lang: Language,
    file: &str,
    seed: u64,
    read_back: impl Fn(&Path, &[Probe]) -> String,
) {
    let dir = tempfile::tempdir().unwrap();
    for kind in ModelKind::ALL {
        let model = Model::new(kind);
        let w = random_weights(&model, seed);
        let json: serde_json::Value = serde_json::from_str(&weights_to_json(&model, &w)).unwrap();
        let sub = dir.path().join(kind.name());
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(file), source(&model, &w, &lang, None).unwrap()).unwrap();
        let probes = probes(kind);
        let printed = read_back(&sub, &probes);
        check(kind, &printed, &probes, &json);
    }
}

#[test]
fn the_c_header_compiles_and_holds_the_json_values() {
    if !tools::have("cc", "the C emission test compiles the header") {
        return;
    }
    round_trip(Language::C, "weights.h", 11, |sub, probes| {
        let mut main = format!(
            "#include <stdio.h>\n#include <stdint.h>\n{ENGINE_S}#include \"weights.h\"\n\
             static int mg(int s) {{ return (int16_t)(uint16_t)(unsigned)s; }}\n\
             static int eg(int s) {{ return (int16_t)(uint16_t)((unsigned)(s + 0x8000) >> 16); }}\n\
             int main(void) {{\n"
        );
        for p in probes {
            let expr = format!("{}{}", p.table, p.index);
            main += &match (p.phase, p.integer) {
                (Some(k), _) => format!("    printf(\"%d\\n\", {}({expr}));\n", ["mg", "eg"][k]),
                (None, true) => format!("    printf(\"%d\\n\", {expr});\n"),
                (None, false) => format!("    printf(\"%.17g\\n\", {expr});\n"),
            };
        }
        main += "    return 0;\n}\n";
        std::fs::write(sub.join("main.c"), main).unwrap();
        let strict = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"];
        run(
            sub,
            "cc",
            &[&strict[..], &["-o", "probe", "main.c"]].concat(),
        );
        run(sub, &sub.join("probe").display().to_string(), &[])
    });
}

#[test]
fn the_rust_constants_compile_and_hold_the_json_values() {
    if !tools::have("rustc", "the Rust emission test compiles the constants") {
        return;
    }
    round_trip(Language::Rust, "weights.rs", 4, |sub, probes| {
        let lib = ["--edition", "2021", "--crate-type", "lib", "-D", "warnings"];
        run(
            sub,
            "rustc",
            &[&lib[..], &["--emit", "metadata", "weights.rs"]].concat(),
        );
        let mut main = String::from("include!(\"weights.rs\");\nfn main() {\n");
        for p in probes {
            let field = p.phase.map(|k| format!(".{k}")).unwrap_or_default();
            main += &format!("    println!(\"{{}}\", {}{}{field});\n", p.table, p.index);
        }
        main += "}\n";
        std::fs::write(sub.join("main.rs"), main).unwrap();
        run(
            sub,
            "rustc",
            &["--edition", "2021", "-o", "probe", "main.rs"],
        );
        run(sub, &sub.join("probe").display().to_string(), &[])
    });
}

/// Every parameter is in exactly one element of one table, and nothing else is there but
/// the 0 of array slots no parameter fills; table names are unique.
#[test]
fn every_parameter_is_in_one_table_element() {
    for kind in ModelKind::ALL {
        let model = Model::new(kind);
        // Weight i is i + 1, so every value names its parameter and padding (0) stands out.
        let w: Vec<f64> = (1..=model.len()).map(|i| i as f64).collect();
        let d = describe(&model, &w).unwrap();
        let mut values: Vec<f64> = d.tables.iter().flat_map(|t| t.values.clone()).collect();
        values.retain(|&v| v != 0.0);
        values.sort_by(f64::total_cmp);
        assert_eq!(values, w, "{kind}");
        let mut names: Vec<&str> = d.tables.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "{kind}: a table name twice");
        assert_eq!(d.engine, format!("gradtune {kind}"));
        assert!(d.notes[0].contains(&format!("`{kind}` model, {} parameters", model.len())));
    }
    let model = Model::new(ModelKind::Psqt);
    let e = describe(&model, &[1.0]).unwrap_err();
    assert!(matches!(e, EmitError::Weights { got: 1, .. }), "{e}");
}

/// The Rust constants show the weights where an engine looks for them (formerly asserted on
/// `eval::rust_source`'s `MATERIAL_EG`, `PST_MG`, `PAWNS_PASSED_EG`, `PHASE_QUEEN`).
#[test]
fn rust_constants_show_the_weights() {
    let model = Model::new(ModelKind::Full);
    let mut w = model.default_weights();
    w[model.index_of("pst.knight.mg.e4").unwrap()] = 37.4;
    w[model.index_of("pawns.passed.rank6.eg").unwrap()] = 81.0;
    let src = source(&model, &w, &Language::Rust, None).unwrap();
    let material = "pub const material: [(i32, i32); 5] = \
                    [(100, 100), (300, 300), (300, 300), (500, 500), (900, 900)];";
    assert!(src.contains(material), "{src}");
    // e4 is square 28: the fourth row of eight (rank 4) of the knight's table, fifth entry.
    let pst = src
        .split("pub const pst: [[(i32, i32); 64]; 6] = [\n")
        .nth(1)
        .unwrap();
    let knight = pst.split("    [\n").nth(2).unwrap();
    let rank4 = knight.lines().nth(3).unwrap();
    assert!(
        rank4
            .trim_start()
            .starts_with("(0, 0), (0, 0), (0, 0), (0, 0), (37, 0),"),
        "{rank4}"
    );
    let passed = "pub const pawns_passed: [(i32, i32); 8] = \
                  [(0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 81), (0, 0), (0, 0)];";
    assert!(src.contains(passed), "{src}");
    assert!(src.contains("pub const phase_queen: f64 = 4.0;"));
    assert!(src.contains("pub const mobility_queen: [(i32, i32); 28] = ["));
    let note = format!("// gradtune's `full` model, {} parameters", model.len());
    assert!(src.contains(&note), "{src}");
}
