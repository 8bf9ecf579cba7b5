//! `tune emit`: weights as source code for an engine, through the one emitter (`trace::emit`):
//! a traced engine's tuned manifest in the engine's own names and shapes, a gradtune weights
//! file as its model's tables (`texel::emit::describe`), in C, C++, Rust, C# or a user's
//! template; a tuned manifest also as JSON.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use trace::emit::{describe, render_description, Language, Table};
use trace::Manifest;

/// A language of `--lang`.
#[derive(Clone, Debug)]
enum LangArg {
    /// The manifest itself with the new values (a traced engine's weights only).
    Json,
    /// Source text.
    Source(Language),
}

/// `json`, or a [`Language`] (`c`, `cpp`, `rust`, `csharp`, `PATH.jinja`).
fn parse_lang(s: &str) -> Result<LangArg, String> {
    if s.eq_ignore_ascii_case("json") {
        return Ok(LangArg::Json);
    }
    s.parse()
        .map(LangArg::Source)
        .map_err(|e: String| e.replace("(valid: ", "(valid: json, "))
}

/// Options of `tune emit`.
#[derive(clap::Args)]
pub struct Args {
    /// Weights: a gradtune weights file (e.g. a run's weights-int.json: its model's tables,
    /// material[5], pst[6][64], ..., a tapered value as S(mg, eg) in C and C++, a pair in Rust
    /// and C#), or a traced model's tuned manifest (as a traced run writes it). Integer
    /// weights are rounded half away from zero; the others stay as they are.
    weights: PathBuf,
    /// The traced engine's manifest: its names, shapes and types, with WEIGHTS's values (which
    /// must be for the same weights). Without it, a tuned manifest WEIGHTS is its own.
    #[arg(long)]
    manifest: Option<PathBuf>,
    /// The language: c, cpp, rust, csharp, json, or a template file NAME.jinja (its context
    /// is documented in `trace::emit`); json for a tuned manifest only. Without it, the one `-o`'s extension asks for (.h C, .hpp C++, .rs Rust, .cs C#,
    /// .json JSON), else C.
    #[arg(long, value_parser = parse_lang)]
    lang: Option<LangArg>,
    /// A minijinja template laying out the weights as the engine's own file (any file name;
    /// the same as --lang NAME.jinja), e.g. a per-engine template shipped under
    /// `engines/<name>/`. Its context (the tables in order as `tables`, by name as `params`)
    /// is documented in `trace::emit`.
    #[arg(long, value_name = "FILE", conflicts_with = "lang")]
    template: Option<PathBuf>,
    /// Write to this file (atomically) instead of the standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub fn run(mut args: Args) -> anyhow::Result<()> {
    if let Some(t) = args.template.take() {
        args.lang = Some(LangArg::Source(Language::Template(t)));
    }
    let lang = args
        .lang
        .clone()
        .unwrap_or_else(|| lang_of(args.output.as_deref()));
    let traced = args.manifest.is_some() || is_manifest(&args.weights);
    let (text, engine, params) = match (&lang, traced) {
        (LangArg::Json, true) => {
            let (manifest, w) = manifest_and_weights(&args)?;
            let json = serde_json::to_string_pretty(&manifest.to_json_with(&w))?;
            (
                json + "\n",
                manifest.engine().to_string(),
                manifest.params().len(),
            )
        }
        (LangArg::Json, false) => bail!(
            "{} is a gradtune weights file, JSON already; json is for a traced engine's tuned \
             manifest",
            args.weights.display()
        ),
        (LangArg::Source(l), _) => {
            let (weights, params) = if traced {
                let (manifest, w) = manifest_and_weights(&args)?;
                let n = manifest.params().len();
                (describe(&manifest, &w)?, n)
            } else {
                let (model, w) = eval::load_weights(&args.weights)?;
                (texel::emit::describe(&model, &w)?, model.len())
            };
            report_rounding(&weights.tables);
            let text = render_description(&weights, l, Some(&command_line()))
                .with_context(|| format!("emitting {} as {l}", args.weights.display()))?;
            (text, weights.engine, params)
        }
    };
    match &args.output {
        Some(path) => {
            fsutil::atomic::write(path, &text)
                .with_context(|| format!("writing {}", path.display()))?;
            let what = match &lang {
                LangArg::Json => "json".to_string(),
                LangArg::Source(l) => l.to_string(),
            };
            eprintln!(
                "wrote {} ({what} weights of {engine}, {params} parameters, from {})",
                path.display(),
                args.weights.display()
            );
        }
        None => print!("{text}"),
    }
    Ok(())
}

/// The language an output file's extension asks for: `.json` JSON, else
/// [`Language::from_path`], else (or without a file) C.
fn lang_of(output: Option<&Path>) -> LangArg {
    match output {
        Some(p)
            if p.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("json")) =>
        {
            LangArg::Json
        }
        Some(p) => LangArg::Source(Language::from_path(p).unwrap_or(Language::C)),
        None => LangArg::Source(Language::C),
    }
}

/// Whether `path` holds a trace manifest (`"format": "gradtune-manifest"`) rather than a
/// gradtune weights file; `false` if it cannot be read as JSON (the weights reader then says
/// why).
fn is_manifest(path: &Path) -> bool {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|json| {
            json.get("format").and_then(|f| f.as_str()) == Some("gradtune-manifest")
        })
}

/// A traced engine's manifest (`--manifest`, else the tuned manifest WEIGHTS itself) and the
/// weights of WEIGHTS.
fn manifest_and_weights(args: &Args) -> anyhow::Result<(Manifest, Vec<f64>)> {
    let tuned = Manifest::load(&args.weights)?;
    let w = tuned.initial_weights();
    let manifest = match &args.manifest {
        Some(path) => {
            let m = Manifest::load(path)?;
            same_weights(&m, &tuned, path, &args.weights)?;
            m
        }
        None => tuned,
    };
    Ok((manifest, w))
}

/// Fails unless `tuned` (WEIGHTS) has the same weights, by name and in order, as `manifest`.
fn same_weights(
    manifest: &Manifest,
    tuned: &Manifest,
    mpath: &Path,
    wpath: &Path,
) -> anyhow::Result<()> {
    let (a, b) = (manifest.weights(), tuned.weights());
    if let Some((i, (x, y))) = a
        .iter()
        .zip(b)
        .enumerate()
        .find(|(_, (x, y))| x.name != y.name)
    {
        bail!(
            "{} does not fit the manifest {}: weight {i} is `{}` there but `{}` in the manifest",
            wpath.display(),
            mpath.display(),
            y.name,
            x.name
        );
    }
    if a.len() != b.len() {
        bail!(
            "{} does not fit the manifest {}: {} weights, the manifest has {}",
            wpath.display(),
            mpath.display(),
            b.len(),
            a.len()
        );
    }
    Ok(())
}

/// Says on the standard error how far rounding moved the integer weights (weights a table
/// declares integer, from a file where they were not).
fn report_rounding(tables: &[Table]) {
    let (mut moved, mut integer, mut largest) = (0, 0, 0.0f64);
    for t in tables.iter().filter(|t| t.integer) {
        integer += t.values.len();
        moved += t.values.iter().filter(|v| v.round() != **v).count();
        largest = largest.max(t.rounding());
    }
    if moved > 0 {
        eprintln!("rounded {moved} of {integer} integer weights (largest change {largest:.3})");
    }
}

/// The command line, for the header of the file: `tune` and the arguments, quoted where a
/// shell would need it.
fn command_line() -> String {
    let quote = |a: String| {
        if !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
        {
            a
        } else {
            format!("'{}'", a.replace('\'', r"'\''"))
        }
    };
    std::iter::once("tune".to_string())
        .chain(std::env::args().skip(1).map(quote))
        .collect::<Vec<_>>()
        .join(" ")
}
