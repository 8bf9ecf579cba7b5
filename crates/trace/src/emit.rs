//! Weights back in the engine's own names, shapes and language.
//!
//! [`tables`] turns a [`Manifest`] and a weight vector into one [`Table`] a parameter; [`render`]
//! prints them as source text through a [minijinja](https://docs.rs/minijinja) template: a
//! built-in one for C, C++, Rust or C# ([`Language`]), or a user's `.jinja` file.
//!
//! This is gradtune's one emitter: any weights described as tables (a [`Description`]) are
//! written through it, [`render_description`]. gradtune's own models (`psqt`, `full`) are
//! described so by `texel::emit::describe` (this crate does not know them), so their source
//! has the same style as an engine's: `material[5]` of `S(mg, eg)`, `pst[6][64]`, ...
//!
//! The generic C and C++ output defines no macro (no include guard, no `S`): it is tables an
//! engine author includes, or pastes, where the engine's own `S` is already declared.
//!
//! - **C** (`weights.h`): `const int material[6] = { S(82, 94), ... };`, tables nested
//!   (`const int pst[6][64] = { { S(0, 0), ... }, ... };`, 8 values a line), scalars
//!   `const int tempo = S(20, 10);`, untapered values plain `int`s, non-integer parameters
//!   `double` (a tapered one with a last dimension `[2]`: `{ mg, eg }`). `S(mg, eg)` is the
//!   engine's own macro (as Ethereal's): with tapered integer tables the file stops with an
//!   `#error` if `S` is not defined before it; a packed half must fit 16 bits. A header
//!   comment names the engine and the command.
//! - **C++** (`weights.hpp`): the same, tapered integers of the type the engine's `S` returns
//!   (`const decltype(S(0, 0)) material[6] = { S(82, 94), ... };`), so `S` may be a macro or
//!   a function, `constexpr` or not (4ku's is a plain function).
//! - **Rust** (`weights.rs`): `pub const pst: [[(i32, i32); 64]; 6] = [...];`, tuples
//!   `(mg, eg)`, `[i32; N]` untapered, `f64` for non-integer parameters; keywords as raw
//!   identifiers (`r#type`).
//! - **C#** (`Weights.cs`): `public static class Weights` with `public static readonly int[,]`
//!   arrays, `(int Mg, int Eg)[]` for tapered ones, `public const int` scalars; keywords as
//!   `@params`.
//!
//! Integer parameters are rounded half away from zero and printed as integers; the others
//! print with the shortest digits that read back to the same `f64`.
//!
//! # The template context
//!
//! Built-in and user templates see the same values:
//! - `engine`: the manifest's engine name (`gradtune psqt` for a built-in model); `command`:
//!   the command that wrote the file, or none; `generator`: `gradtune` and its version;
//!   `language`: `c`, `cpp`, `rust`, `csharp` or `template`; `notes`: lines on how to use the
//!   weights ([`Description::notes`]: units, index orders, the blend), which the built-in
//!   templates print as comments, empty for a manifest.
//! - `tables`: one map a parameter, in manifest order, with `name` (as in the manifest),
//!   `ident` (the name as an identifier of the built-in language, escaped if a keyword; for a
//!   user template the name), `shape` (list of dimensions), `dims` (its length), `len` (the
//!   number of elements), `scalar` (`dims == 0`), `tapered`, `integer`, `values` (nested lists
//!   along the shape, each element a number, or an `[mg, eg]` list if tapered; a scalar is its
//!   one element), `mg` and `eg` (the same nesting with one phase's numbers; an untapered
//!   parameter's values in both), `flat` (the elements row-major, one list).
//! - `params`: the same maps by parameter name (`params.material.eg[1]`), for a template that
//!   lays out an engine's own file, including values it derives (4ku's `max_material` is
//!   `{% for v in params.material.values %}{{ v|max }}, {% endfor %}`).
//! - Integers are integers (rounded), other values floats. The filter `literal` prints a
//!   number as a C/C++/Rust/C# literal (`-3`, `0.5`, `1.0`, `1e-7`); `ident` makes any text an
//!   identifier (`my-engine` → `my_engine`); minijinja's built-in filters and tests are there
//!   (`batch`, `upper`, `join`, `length`, ...).
//! - Blocks are trimmed (`trim_blocks`, `lstrip_blocks`), the trailing newline kept, nothing is
//!   auto-escaped, and printing an undefined value is an error (so a misspelt key is named
//!   with its template line). A template is one file: `include`/`import` of others is not
//!   available; macros are.
//!
//! A user template, e.g. one line a table:
//! ```text
//! {% for t in tables %}{{ t.name }} = {{ t.flat }};
//! {% endfor %}
//! ```
//!
//! ```
//! use trace::emit::{render, Language};
//!
//! let m = trace::Manifest::from_json(r#"{"format": "gradtune-manifest", "version": 1,
//!   "engine": "tiny", "score": "white", "phase": {"max": 24}, "params": [
//!   {"name": "material", "shape": [2], "value": [[100, 120], [300, 280]]},
//!   {"name": "ks_weight", "shape": [3], "tapered": false, "value": [0, 8, 16]}]}"#, "m.json")?;
//! let w = [100.4, 119.5, 300.0, 280.0, 0.0, 8.49, -16.5];
//! let c = render(&m, &w, &Language::C)?;
//! assert!(c.contains("const int material[2] = { S(100, 120), S(300, 280) };"));
//! assert!(!c.contains("#define"));
//! assert!(c.contains("const int ks_weight[3] = { 0, 8, -17 };"));
//! let rust = render(&m, &w, &Language::Rust)?;
//! assert!(rust.contains("pub const material: [(i32, i32); 2] = [(100, 120), (300, 280)];"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # How to add an output format
//!
//! A built-in language is a template file and a [`Language`] variant:
//!
//! 1. The template: `crates/trace/src/emit/<lang>.jinja`, included as a `const <LANG>_TEMPLATE:
//!    &str = include_str!("emit/<lang>.jinja")` in `emit.rs`. It sees the context of "The template
//!    context" above (`engine`, `command`, `generator`, `language`, `tables` with `name`,
//!    `ident`, `shape`, `values`, `mg`, `eg`, `flat`, ...; the filters `literal` and `ident`).
//! 2. A `Language` variant in `emit.rs`, with its arms in `Language::key` (the `language` value
//!    templates see), `FromStr` (its names on `--lang`), `from_path` (the file extensions that
//!    choose it), `file_name` (the file a run's `--emit` writes) and `render_description`
//!    (`builtin(Lang::X, "<lang>.jinja", X_TEMPLATE)`); `key`, `file_name` and
//!    `render_description` match exhaustively, so the compiler points at them, `FromStr` and
//!    `from_path` end in `_` and must be found by hand.
//! 3. A `Lang` variant in `emit/names.rs` (its `label`, and in `identifier` its keywords: escaped
//!    as `r#name` / `@name` where the language can, refused where it cannot; `identifier` ends in
//!    `_ => Ok(name)`, so a missing arm lets keywords through silently), and in
//!    `emit/context.rs`'s `Target::packs` whether tapered integers pack as `S(mg, eg)`.
//! 4. A test in `crates/trace/tests/it/emit.rs`: compile the output and read the weights back where
//!    a compiler exists (`c_family_round_trip`, `rust_constants_compile_...`), else check its
//!    declarations (`csharp_class_declares_every_table`), and the language in `languages_parse`.
//!
//! `tune emit --lang <lang>` then takes it (`crates/tune/src/emit.rs` parses through
//! `Language::from_str`). Followed for real for the four built-in languages (commit `73e4f38`: C,
//! C++, Rust and C# are each a `.jinja` file and a variant).
//!
//! A *user* template needs no code: `tune emit TUNED.json --lang mine.jinja` (`TUNED.json` the
//! tuned manifest a run writes) (any name ending in `.jinja`, `.j2` or `.jinja2`; `--template FILE`
//! takes any name), rendered with the same context, where the tables are also there by name
//! (`params.material`) for values an engine derives; an undefined name in it is an error with its
//! template line (`a_user_template_renders_with_the_documented_context`,
//! `a_user_template_derives_values_by_name`, `broken_user_templates_are_named_with_their_line`). No
//! built-in template defines a macro (`no_built_in_output_defines_a_macro`): C and C++ use the
//! engine's own `S(mg, eg)`, declared before the tables. gradtune's own models are printed by the
//! same templates from `texel::emit::describe` (`crates/texel/tests/it/emit.rs` compiles them in C and
//! Rust and reads the weights back). A user template, from a file, by name:
//!
//! ```
//! use trace::emit::{render, Language};
//! use trace::Manifest;
//!
//! let m = Manifest::from_json(r#"{
//!   "format": "gradtune-manifest", "version": 1, "engine": "tiny", "score": "white",
//!   "phase": { "max": 24 },
//!   "params": [ { "name": "material", "shape": [2], "value": [[100, 120], [300, 280]] } ]
//! }"#, "tiny.json")?;
//! let dir = tempfile::tempdir()?;
//! let mine = dir.path().join("mine.jinja");
//! // 4ku's `max_material`: the larger phase of each `material` entry, derived by the template.
//! std::fs::write(&mine, "{% for v in params.material.values %}{{ v|max }} {% endfor %}")?;
//! let out = render(&m, &m.initial_weights(), &Language::Template(mine))?;
//! assert_eq!(out.trim_end(), "120 300");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod context;
mod error;
mod names;
mod table;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use minijinja::{AutoEscape, Environment, UndefinedBehavior, Value};

use crate::Manifest;

use self::context::Target;
pub use self::error::EmitError;
use self::names::Lang;
pub use self::table::Table;

/// The built-in C template.
const C_TEMPLATE: &str = include_str!("emit/c.jinja");
/// The built-in C++ template.
const CPP_TEMPLATE: &str = include_str!("emit/cpp.jinja");
/// The built-in Rust template.
const RUST_TEMPLATE: &str = include_str!("emit/rust.jinja");
/// The built-in C# template.
const CSHARP_TEMPLATE: &str = include_str!("emit/csharp.jinja");

/// The parameters of `manifest` with the weights `w` (the optimiser's vector: every element in
/// index order, a tapered one `mg` then `eg`), one [`Table`] a parameter in manifest order.
///
/// `w` should have one value per weight of the manifest ([`render`] checks it): missing ones
/// are NaN (which rendering refuses), extra ones ignored.
pub fn tables(manifest: &Manifest, w: &[f64]) -> Vec<Table> {
    manifest
        .params()
        .iter()
        .map(|p| {
            let start = p.first_weight;
            let len = p.len() * p.per_element();
            let values = (start..start + len).map(|i| w.get(i).copied().unwrap_or(f64::NAN));
            Table {
                name: p.name.clone(),
                shape: p.shape.clone(),
                tapered: p.tapered,
                integer: p.integer,
                values: values.collect(),
            }
        })
        .collect()
}

/// A language to write weights in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Language {
    /// A C header.
    C,
    /// A C++ header.
    Cpp,
    /// Rust constants.
    Rust,
    /// A C# static class.
    CSharp,
    /// A user's minijinja template file (see the module documentation for its context).
    Template(PathBuf),
}

impl Language {
    /// The language a file name asks for by its extension: `.h`/`.c` C, `.hpp`/`.hh`/`.hxx`/
    /// `.cpp`/`.cc` C++, `.rs` Rust, `.cs` C#; `None` for anything else.
    pub fn from_path(path: &Path) -> Option<Language> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "h" | "c" => Some(Language::C),
            "hpp" | "hh" | "hxx" | "cpp" | "cc" | "cxx" => Some(Language::Cpp),
            "rs" => Some(Language::Rust),
            "cs" => Some(Language::CSharp),
            _ => None,
        }
    }

    /// The file a tuning run writes in this language (`--emit`): `weights.h`, `weights.hpp`,
    /// `weights.rs` or `Weights.cs`; `None` for a user's template, which names no file.
    pub fn file_name(&self) -> Option<&'static str> {
        match self {
            Language::C => Some("weights.h"),
            Language::Cpp => Some("weights.hpp"),
            Language::Rust => Some("weights.rs"),
            Language::CSharp => Some("Weights.cs"),
            Language::Template(_) => None,
        }
    }

    /// `c`, `cpp`, `rust`, `csharp`, or `template`.
    fn key(&self) -> &'static str {
        match self {
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Rust => "rust",
            Language::CSharp => "csharp",
            Language::Template(_) => "template",
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Language::Template(path) => write!(f, "{}", path.display()),
            other => f.write_str(other.key()),
        }
    }
}

impl FromStr for Language {
    type Err = String;

    /// `c`, `cpp` (also `c++`), `rust` (also `rs`), `csharp` (also `cs`, `c#`), any case, or
    /// the path of a template file: a name ending in `.jinja`, `.j2` or `.jinja2`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "c" => return Ok(Language::C),
            "cpp" | "c++" => return Ok(Language::Cpp),
            "rust" | "rs" => return Ok(Language::Rust),
            "csharp" | "cs" | "c#" => return Ok(Language::CSharp),
            _ => {}
        }
        let lower = s.to_ascii_lowercase();
        if [".jinja", ".j2", ".jinja2"]
            .iter()
            .any(|e| lower.ends_with(e))
        {
            return Ok(Language::Template(PathBuf::from(s)));
        }
        Err(format!(
            "unknown language `{s}` (valid: c, cpp, rust, csharp, or a template file NAME.jinja)"
        ))
    }
}

/// `e` (from the template named `file` unless it names another) as an [`EmitError`].
fn template_error(e: minijinja::Error, file: &str) -> EmitError {
    let message = match e.detail() {
        Some(detail) => format!("{}: {detail}", e.kind()),
        None => e.kind().to_string(),
    };
    EmitError::Template {
        file: e.name().unwrap_or(file).to_string(),
        line: e.line(),
        message,
    }
}

/// The environment templates render in: trimmed blocks, no escaping, strict printing of
/// undefined values, the `literal` and `ident` filters.
fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    let syntax = minijinja::syntax::SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .keep_trailing_newline(true)
        .build()
        .expect("the default delimiters are valid");
    env.set_syntax(syntax);
    env.set_auto_escape_callback(|_| AutoEscape::None);
    env.set_undefined_behavior(UndefinedBehavior::SemiStrict);
    env.add_filter("literal", context::literal);
    env.add_filter("ident", |s: String| names::sanitize(&s));
    env
}

/// `manifest`'s parameters with the weights `w` as source text in `lang`.
///
/// Fails on a weight vector of the wrong length, a NaN or infinite weight, an integer out of
/// range, a name the language cannot use, or a user template that cannot be read, parsed or
/// rendered (naming its file and line).
pub fn render(manifest: &Manifest, w: &[f64], lang: &Language) -> Result<String, EmitError> {
    render_with(manifest, w, lang, None)
}

/// [`render`], naming in the header the `command` that wrote the file.
pub fn render_with(
    manifest: &Manifest,
    w: &[f64],
    lang: &Language,
    command: Option<&str>,
) -> Result<String, EmitError> {
    render_description(&describe(manifest, w)?, lang, command)
}

/// `manifest`'s parameters with the weights `w` as the emitter takes them: the engine's
/// name, no notes, [`tables`]. Fails on a weight vector of the wrong length.
pub fn describe(manifest: &Manifest, w: &[f64]) -> Result<Description, EmitError> {
    let expected = manifest.weights().len();
    if w.len() != expected {
        return Err(EmitError::Weights {
            expected,
            got: w.len(),
        });
    }
    Ok(Description {
        engine: manifest.engine().to_string(),
        notes: Vec::new(),
        tables: tables(manifest, w),
    })
}

/// Weights to write as source, shaped as a manifest's parameters: whose they are, notes for
/// the reader of the file, and one [`Table`] a parameter. A manifest gives one through
/// [`describe`]; gradtune's own models through `texel::emit::describe`.
#[derive(Clone, Debug, PartialEq)]
pub struct Description {
    /// The engine (or model) the weights are for: the template context's `engine`.
    pub engine: String,
    /// Lines telling the reader how to use the weights (units, index orders, how to blend),
    /// printed as comments by the built-in templates: the context's `notes`. Empty for a
    /// manifest, whose engine knows its own layout.
    pub notes: Vec<String>,
    /// The tables, in the order they are written.
    pub tables: Vec<Table>,
}

/// The weights `weights` as source text in `lang` (what [`render`] does once it has the
/// tables), naming in the header the `command` that wrote the file, if any.
///
/// Fails on a table whose values do not fit its shape, a NaN or infinite weight, an integer
/// out of range, a name the language cannot use, or a user template that cannot be read,
/// parsed or rendered.
pub fn render_description(
    weights: &Description,
    lang: &Language,
    command: Option<&str>,
) -> Result<String, EmitError> {
    let tables = &weights.tables;
    let builtin = |l: Lang, file: &str, source: &str| {
        let target = Target { lang: Some(l) };
        (format!("built-in {file}"), source.to_string(), target)
    };
    let (name, source, target) = match lang {
        Language::C => builtin(Lang::C, "c.jinja", C_TEMPLATE),
        Language::Cpp => builtin(Lang::Cpp, "cpp.jinja", CPP_TEMPLATE),
        Language::Rust => builtin(Lang::Rust, "rust.jinja", RUST_TEMPLATE),
        Language::CSharp => builtin(Lang::CSharp, "csharp.jinja", CSHARP_TEMPLATE),
        Language::Template(path) => {
            let source = std::fs::read_to_string(path).map_err(|error| EmitError::Read {
                path: path.clone(),
                error,
            })?;
            (path.display().to_string(), source, Target { lang: None })
        }
    };
    let values = tables
        .iter()
        .map(|t| context::table(t, target))
        .collect::<Result<Vec<_>, _>>()?;
    let by_name: std::collections::BTreeMap<String, Value> = tables
        .iter()
        .zip(&values)
        .map(|(t, v)| (t.name.clone(), v.clone()))
        .collect();
    let mut env = environment();
    env.add_template_owned(name.clone(), source)
        .map_err(|e| template_error(e, &name))?;
    let ctx = minijinja::context! {
        engine => weights.engine.clone(),
        notes => weights.notes.clone(),
        command,
        generator => format!("gradtune {}", env!("CARGO_PKG_VERSION")),
        language => lang.key(),
        tables => Value::from(values),
        params => Value::from(by_name),
    };
    let template = env
        .get_template(&name)
        .map_err(|e| template_error(e, &name))?;
    template.render(ctx).map_err(|e| template_error(e, &name))
}
