//! `tune emit`: a weights file as source code for an engine (a C header or Rust constants);
//! the layout and the writing are `eval::emit`'s.

use std::path::PathBuf;

use eval::emit::{save_source, source, Lang};

/// The languages of `--lang`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum LangArg {
    /// A C header (`static const int MATERIAL_MG[5]`, `PST_MG[6][64]`, ...); also C++.
    C,
    /// Rust constants (`pub const MATERIAL_MG: [i32; 5]`, ...).
    Rust,
}

impl From<LangArg> for Lang {
    fn from(l: LangArg) -> Lang {
        match l {
            LangArg::C => Lang::C,
            LangArg::Rust => Lang::Rust,
        }
    }
}

/// Options of `tune emit`.
#[derive(clap::Args)]
pub struct Args {
    /// Weights (JSON from `tune`, e.g. a run's weights-int.json); the model is read from it.
    /// Centipawn weights are rounded to integers; the phase weights and the king-safety shape
    /// stay as they are in the file.
    weights: PathBuf,
    /// The language; without it, the one `-o`'s extension asks for (`.h` C, `.rs` Rust),
    /// else C.
    #[arg(long, value_enum)]
    lang: Option<LangArg>,
    /// Write to this file (atomically) instead of the standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let (model, w) = eval::load_weights(&args.weights)?;
    let lang = args
        .lang
        .map(Lang::from)
        .or_else(|| args.output.as_deref().and_then(Lang::from_path))
        .unwrap_or(Lang::C);
    match &args.output {
        Some(path) => {
            save_source(path, &model, &w, lang)?;
            eprintln!(
                "wrote {} ({} source of the {} weights of {})",
                path.display(),
                lang,
                model.kind(),
                args.weights.display()
            );
        }
        None => print!("{}", source(&model, &w, lang)),
    }
    Ok(())
}
