//! `emit`: every built-in language on a manifest with scalars, arrays, 2-D and 3-D tables,
//! tapered and untapered, integer and float parameters. The C and C++ headers are compiled and
//! read back by a small program (with `cc`/`c++`, skipped with a message where missing), the
//! Rust constants compiled and read back with `rustc`; user templates render or fail naming
//! their file and line.

use crate::tools;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use trace::emit::{render, render_with, tables, EmitError, Language, Table};
use trace::Manifest;

/// A zero value of `shape` (nested arrays; a tapered element `[0, 0]`).
fn zeros(shape: &[usize], tapered: bool) -> Value {
    match shape.split_first() {
        None if tapered => json!([0, 0]),
        None => json!(0),
        Some((&n, rest)) => Value::Array((0..n).map(|_| zeros(rest, tapered)).collect()),
    }
}

/// The test manifest and weights with fractions, halves and negatives to round.
fn manifest() -> (Manifest, Vec<f64>) {
    let params = [
        ("material", vec![6], true, true),
        ("pst", vec![6, 64], true, true),
        ("tempo", vec![], true, true),
        ("bonus", vec![], false, true),
        ("ks_scale", vec![], false, false),
        ("ks_weight", vec![8], false, true),
        ("passed", vec![2, 8], false, true),
        ("curve", vec![2, 3], true, false),
        ("cube", vec![2, 2, 3], false, false),
    ];
    let params: Vec<Value> = params
        .iter()
        .map(|(name, shape, tapered, integer)| {
            json!({ "name": name, "shape": shape, "tapered": tapered, "integer": integer,
                    "value": zeros(shape, *tapered) })
        })
        .collect();
    let doc = json!({ "format": "gradtune-manifest", "version": 1, "engine": "fixture",
                      "score": "white", "phase": { "max": 24 }, "params": params });
    let m = Manifest::from_json(&doc.to_string(), "test.json").unwrap();
    let n = m.weights().len();
    // Steps of 0.75 from -250 (fractions .0, .25, .5, .75, negative and positive), a third
    // added to every seventh weight.
    let w = (0..n)
        .map(|i| i as f64 * 0.75 - 250.0 + if i % 7 == 0 { 1.0 / 3.0 } else { 0.0 })
        .collect();
    (m, w)
}

/// The values as the engine should read them: integers rounded half away from zero.
fn expected(tables: &[Table]) -> Vec<f64> {
    tables
        .iter()
        .flat_map(|t| {
            t.values
                .iter()
                .map(move |&v| if t.integer { v.round() } else { v })
        })
        .collect()
}

/// A fresh directory for one test.
fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("emit")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `cmd`, failing the test with its output unless it succeeds; returns its stdout.
fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Every number in `text`, in order (brackets, parentheses and commas ignored).
fn numbers(text: &str) -> Vec<f64> {
    text.split(|c: char| c.is_whitespace() || "[](),{}".contains(c))
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap_or_else(|_| panic!("not a number: {s}")))
        .collect()
}

/// The engine's own packing, declared before the weights are included (Ethereal's macro).
const ENGINE_S: &str = "#define S(mg, eg) ((int)((unsigned int)(eg) << 16) + (mg))\n";

/// A C (or C++) program printing every table of `tables` from `header`: integers as `%d`
/// (tapered ones unpacked from `S(mg, eg)` as Ethereal does), floats with 17 digits.
fn c_reader(header: &str, tables: &[Table]) -> String {
    let mut s =
        format!("#include <stdio.h>\n#include <stdint.h>\n{ENGINE_S}#include \"{header}\"\n");
    s.push_str("static void pi(int v) { printf(\"%d \", v); }\n");
    s.push_str("static void ps(int v) { pi((int16_t)(uint16_t)(unsigned)v); ");
    s.push_str("pi((int16_t)(uint16_t)((unsigned)(v + 0x8000) >> 16)); }\n");
    s.push_str("static void pd(double v) { printf(\"%.17g \", v); }\n");
    s.push_str("int main(void) {\n");
    for t in tables {
        let (ty, f) = match (t.integer, t.tapered) {
            (true, true) => ("int", "ps"),
            (true, false) => ("int", "pi"),
            (false, _) => ("double", "pd"),
        };
        let count = format!("sizeof({0}) / sizeof({ty})", t.name);
        s.push_str(&format!(
            "  {{ const {ty} *p = (const {ty} *)&{0}; for (unsigned i = 0; i < {count}; i++) {f}(p[i]); }}\n",
            t.name
        ));
    }
    s.push_str("  return 0;\n}\n");
    s
}

/// Renders C or C++, compiles the header alone (`-c`) and a reader program, and checks that
/// the program prints the rounded weights.
fn c_family_round_trip(lang: Language, compiler: &str, std: &str, ext: &str) {
    if !tools::have(compiler, "the C/C++ emission tests compile the header") {
        return;
    }
    let (m, w) = manifest();
    let d = dir(&format!("{lang}"));
    let header = format!("weights.{ext}");
    std::fs::write(d.join(&header), render(&m, &w, &lang).unwrap()).unwrap();
    let unit = if ext == "h" { "check.c" } else { "check.cpp" };
    std::fs::write(d.join(unit), format!("{ENGINE_S}#include \"{header}\"\n")).unwrap();
    run(Command::new(compiler).current_dir(&d).args([
        std,
        "-Wall",
        "-Wextra",
        "-pedantic",
        "-Werror",
        "-c",
        unit,
    ]));
    let t = tables(&m, &w);
    let main = if ext == "h" { "main.c" } else { "main.cpp" };
    std::fs::write(d.join(main), c_reader(&header, &t)).unwrap();
    run(Command::new(compiler)
        .current_dir(&d)
        .args([std, "-o", "reader", main]));
    let printed = numbers(&run(&mut Command::new(d.join("reader"))));
    assert_eq!(printed, expected(&t));
}

#[test]
fn c_header_compiles_and_reads_back_the_rounded_weights() {
    c_family_round_trip(Language::C, "cc", "-std=c99", "h");
}

#[test]
fn cpp_header_compiles_and_reads_back_the_rounded_weights() {
    c_family_round_trip(Language::Cpp, "c++", "-std=c++17", "hpp");
}

#[test]
fn rust_constants_compile_and_read_back_the_rounded_weights() {
    if !tools::have("rustc", "the Rust emission test compiles the constants") {
        return;
    }
    let (m, w) = manifest();
    let d = dir("rust");
    std::fs::write(
        d.join("weights.rs"),
        render(&m, &w, &Language::Rust).unwrap(),
    )
    .unwrap();
    run(Command::new("rustc").current_dir(&d).args([
        "--crate-type",
        "lib",
        "--edition",
        "2021",
        "-D",
        "warnings",
        "--emit",
        "metadata",
        "weights.rs",
    ]));
    let t = tables(&m, &w);
    let mut main = String::from("include!(\"weights.rs\");\nfn main() {\n");
    for table in &t {
        main.push_str(&format!("    println!(\"{{:?}}\", {});\n", table.name));
    }
    main.push_str("}\n");
    std::fs::write(d.join("main.rs"), main).unwrap();
    run(Command::new("rustc").current_dir(&d).args([
        "--edition",
        "2021",
        "-o",
        "reader",
        "main.rs",
    ]));
    let printed = numbers(&run(&mut Command::new(d.join("reader"))));
    assert_eq!(printed, expected(&t));
}

/// The C header has the shape engines include as `weights.h`: the engine's `S` required, never
/// defined, tapered tables as `S(mg, eg)` with 8 a line, scalars, plain untapered ints, the
/// command in the comment.
#[test]
fn c_header_has_the_documented_shape() {
    let (m, w) = manifest();
    let c = render_with(&m, &w, &Language::C, Some("tune emit --lang c out.json")).unwrap();
    assert!(c.contains("#ifndef S\n#error \"define S(mg, eg)"), "{c}");
    assert!(c.contains(" * Command: tune emit --lang c out.json\n"));
    assert!(
        c.contains("const int material[6] = { S(-250, -249), S(-249, -248), "),
        "{c}"
    );
    assert!(
        c.contains("const int pst[6][64] = {\n    {\n        S("),
        "{c}"
    );
    let rows: Vec<&str> = c.lines().filter(|l| l.starts_with("        S(")).collect();
    assert_eq!(rows.len(), 6 * 8, "64-entry rows are 8 lines of 8");
    assert!(rows.iter().all(|l| l.matches("S(").count() == 8));
    assert!(c.contains("const int tempo = S("));
    assert!(c.contains("const int ks_weight[8] = { "));
    assert!(c.contains("const double curve[2][3][2] = {\n"));
    assert!(c.ends_with("};\n"), "{c}");
}

/// C#: no compiler here, so the declarations are checked as text.
#[test]
fn csharp_class_declares_every_table() {
    let (m, w) = manifest();
    let cs = render(&m, &w, &Language::CSharp).unwrap();
    for decl in [
        "public static class Weights\n{\n",
        "    public static readonly (int Mg, int Eg)[] material = { (-250, -249), ",
        "    public static readonly (int Mg, int Eg)[,] pst = {\n        {\n            (",
        "    public static readonly (int Mg, int Eg) tempo = (",
        "    public const int bonus = ",
        "    public const double ks_scale = ",
        "    public static readonly int[,] passed = {\n",
        "    public static readonly (double Mg, double Eg)[,] curve = {\n",
        "    public static readonly double[,,] cube = {\n",
    ] {
        assert!(cs.contains(decl), "missing {decl:?} in\n{cs}");
    }
    assert!(cs.ends_with("\n}\n"));
    // Every value is there, rounded, in order.
    let body = &cs[cs.find("{\n").unwrap()..];
    let printed: Vec<f64> = body
        .lines()
        .filter_map(|l| l.split_once(" = ").map(|(_, v)| v).or(Some(l)))
        .flat_map(|v| numbers(&v.replace([';', '{', '}'], " ")))
        .collect();
    assert_eq!(printed, expected(&tables(&m, &w)));
}

#[test]
fn a_user_template_renders_with_the_documented_context() {
    let (m, w) = manifest();
    let d = dir("user");
    let path = d.join("mine.jinja");
    std::fs::write(
        &path,
        "// {{ engine }} ({{ language }})\n{% for t in tables if t.scalar %}\n{{ t.name|upper }}={{ t.values }} {{ t.mg|literal }}/{{ t.eg|literal }}\n{% endfor %}\n{{ tables[0].shape }} {{ tables[0].dims }} {{ tables[0].len }} {{ tables[0].flat[1] }} {{ tables[1].values[5][63] }}\n",
    )
    .unwrap();
    let out = render(&m, &w, &Language::Template(path.clone())).unwrap();
    let t = tables(&m, &w);
    let r = |v: f64| v.round() as i64;
    let tempo = &t[2].values;
    let bonus = t[3].values[0];
    let ks = t[4].values[0];
    let pst = &t[1].values;
    let want = format!(
        "// fixture (template)\nTEMPO=[{0}, {1}] {0}/{1}\nBONUS={2} {2}/{2}\nKS_SCALE={3} {4:?}/{4:?}\n[6] 1 6 [{5}, {6}] [{7}, {8}]\n",
        r(tempo[0]),
        r(tempo[1]),
        r(bonus),
        minijinja_float(ks),
        ks,
        r(t[0].values[2]),
        r(t[0].values[3]),
        r(pst[2 * 383]),
        r(pst[2 * 383 + 1]),
    );
    assert_eq!(out, want);
}

/// How minijinja prints a float (`{{ x }}`): Rust's `Display`, with `.0` on whole numbers.
fn minijinja_float(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

#[test]
fn broken_user_templates_are_named_with_their_line() {
    let (m, w) = manifest();
    let d = dir("broken");
    let syntax = d.join("syntax.jinja");
    std::fs::write(
        &syntax,
        "// ok\n{% for t in tables %}\n{{ t.name ( }}\n{% endfor %}\n",
    )
    .unwrap();
    let e = render(&m, &w, &Language::Template(syntax.clone())).unwrap_err();
    assert!(
        matches!(e, EmitError::Template { line: Some(3), .. }),
        "{e:?}"
    );
    let text = e.to_string();
    assert!(
        text.contains(&syntax.display().to_string()) && text.contains("line 3"),
        "{text}"
    );

    let undefined = d.join("undefined.jinja");
    std::fs::write(&undefined, "// ok\n\n{{ engin }}\n").unwrap();
    let e = render(&m, &w, &Language::Template(undefined.clone()))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&undefined.display().to_string()) && e.contains("line 3"),
        "{e}"
    );

    let missing = d.join("missing.jinja");
    let e = render(&m, &w, &Language::Template(missing.clone())).unwrap_err();
    assert!(matches!(e, EmitError::Read { .. }), "{e:?}");
    assert!(e.to_string().contains(&missing.display().to_string()));
}

#[test]
fn bad_weights_are_refused() {
    let (m, mut w) = manifest();
    let e = render(&m, &w[1..], &Language::C).unwrap_err();
    assert!(matches!(e, EmitError::Weights { .. }), "{e:?}");
    w[6] = f64::INFINITY; // material[3].mg
    let e = render(&m, &w, &Language::Rust).unwrap_err().to_string();
    assert!(e.contains("material[3].mg"), "{e}");
    w[6] = 40000.0; // beyond what S packs in C, fine in Rust
    let e = render(&m, &w, &Language::C).unwrap_err().to_string();
    assert!(e.contains("material[3].mg") && e.contains("32767"), "{e}");
    assert!(render(&m, &w, &Language::Rust).is_ok());
}

#[test]
fn languages_parse() {
    assert_eq!("c".parse::<Language>().unwrap(), Language::C);
    assert_eq!("CPP".parse::<Language>().unwrap(), Language::Cpp);
    assert_eq!("rust".parse::<Language>().unwrap(), Language::Rust);
    assert_eq!("csharp".parse::<Language>().unwrap(), Language::CSharp);
    assert_eq!(
        "tpl/mine.jinja".parse::<Language>().unwrap(),
        Language::Template(PathBuf::from("tpl/mine.jinja"))
    );
    let e = "pascal".parse::<Language>().unwrap_err();
    assert!(e.contains("pascal") && e.contains("csharp"), "{e}");
    assert_eq!(
        Language::from_path(Path::new("x/weights.h")),
        Some(Language::C)
    );
    assert_eq!(
        Language::from_path(Path::new("weights.hpp")),
        Some(Language::Cpp)
    );
    assert_eq!(
        Language::from_path(Path::new("weights.rs")),
        Some(Language::Rust)
    );
    assert_eq!(
        Language::from_path(Path::new("Weights.cs")),
        Some(Language::CSharp)
    );
    assert_eq!(Language::from_path(Path::new("weights.json")), None);
}

/// No built-in language defines (or redefines) a macro: the engine's `S` stays its own.
#[test]
fn no_built_in_output_defines_a_macro() {
    let (m, w) = manifest();
    for lang in [Language::C, Language::Cpp, Language::Rust, Language::CSharp] {
        let text = render(&m, &w, &lang).unwrap();
        let defines: Vec<&str> = text
            .lines()
            .filter(|l| l.trim_start().starts_with("#define") || l.contains("#undef"))
            .collect();
        assert!(defines.is_empty(), "{lang}: {defines:?}");
    }
    // Without a tapered integer table, C needs no `S` at all.
    let plain = Manifest::from_json(
        r#"{"format": "gradtune-manifest", "version": 1, "engine": "p", "score": "white",
        "phase": {"max": 24}, "params": [{"name": "v", "shape": [2], "tapered": false, "value": [1, 2]}]}"#,
        "p",
    )
    .unwrap();
    let c = render(&plain, &[1.0, 2.0], &Language::C).unwrap();
    assert!(!c.contains("S("), "{c}");
}

/// C++ tables take the type of the engine's `S`, which may be a plain (not `constexpr`)
/// function as 4ku's is; the engine's code after the include still uses its own `S`.
#[test]
fn cpp_header_compiles_after_an_engine_function_s() {
    if !tools::have("c++", "the C++ emission test compiles the header") {
        return;
    }
    let (m, w) = manifest();
    let d = dir("cpp-function-s");
    std::fs::write(
        d.join("weights.hpp"),
        render(&m, &w, &Language::Cpp).unwrap(),
    )
    .unwrap();
    let t = tables(&m, &w);
    let material = &t[0].values;
    let main =
        "#include <cstdint>\n#include <cstdio>\nusing i32 = int32_t;\n\
         [[nodiscard]] i32 S(const i32 mg, const i32 eg) { return static_cast<i32>(static_cast<uint32_t>(eg) << 16) + mg; }\n\
         #include \"weights.hpp\"\n\
         int main() { i32 p = material[1]; std::printf(\"%d %d %d\\n\", static_cast<int16_t>(p), static_cast<int16_t>((p + 0x8000) >> 16), S(1, 2) == 131073); }\n";
    std::fs::write(d.join("main.cpp"), main).unwrap();
    run(Command::new("c++").current_dir(&d).args([
        "-std=c++17",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-o",
        "reader",
        "main.cpp",
    ]));
    let printed = numbers(&run(&mut Command::new(d.join("reader"))));
    assert_eq!(printed, vec![material[2].round(), material[3].round(), 1.0]);
}

/// A user template reproduces an engine's own layout, values it derives included: 4ku's
/// `max_material` (the larger phase of each `material`) from the values by name.
#[test]
fn a_user_template_derives_values_by_name() {
    let (m, w) = manifest();
    let d = dir("derived");
    let path = d.join("fourku.jinja");
    std::fs::write(
        &path,
        "const i32 max_material[] = {{ '{' }}{% for v in params.material.values %}{{ v|max }}, {% endfor %}0};\nconst i32 material[] = {{ '{' }}{% for v in params.material.values %}S({{ v[0] }}, {{ v[1] }}), {% endfor %}0};\n{{ params.tempo.eg }}\n",
    )
    .unwrap();
    let out = render(&m, &w, &Language::Template(path)).unwrap();
    let t = tables(&m, &w);
    let mat = &t[0].values;
    let r = |v: f64| v.round() as i64;
    let maxes: String = (0..6)
        .map(|i| format!("{}, ", r(mat[2 * i]).max(r(mat[2 * i + 1]))))
        .collect();
    let pairs: String = (0..6)
        .map(|i| format!("S({}, {}), ", r(mat[2 * i]), r(mat[2 * i + 1])))
        .collect();
    let want = format!(
        "const i32 max_material[] = {{{maxes}0}};\nconst i32 material[] = {{{pairs}0}};\n{}\n",
        r(t[2].values[1])
    );
    assert_eq!(out, want);
}
