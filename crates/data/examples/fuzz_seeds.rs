//! Seed inputs for the fuzz targets that read files gradtune itself writes (see `fuzz/run` and
//! `docs/fuzzing.md`): binary caches of samples loaded from small slices of real data, and
//! weights files of both models, all written by the library.
//!
//! ```text
//! cargo run -p data --example fuzz_seeds -- CORPUS_DIR SLICE...
//! ```
//!
//! Each `SLICE` (EPD or PGN, a few games or lines) is loaded with `data::load`; the samples are
//! written as caches to `CORPUS_DIR/cache_reader/` (plain and zstd; all of them, the first
//! one, and none), and the default and perturbed weights of each model as JSON to
//! `CORPUS_DIR/weights_json/`.

use std::path::{Path, PathBuf};

use data::{load, write_cache, LoadOptions, Sample};
use eval::{save_weights, Model, ModelKind};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args_os().skip(1);
    let Some(corpus) = args.next().map(PathBuf::from) else {
        return Err("usage: fuzz_seeds CORPUS_DIR SLICE...".into());
    };
    let caches = corpus.join("cache_reader");
    let weights = corpus.join("weights_json");
    std::fs::create_dir_all(&caches)?;
    std::fs::create_dir_all(&weights)?;

    write_cache(&caches.join("seed-empty.gtc"), &[])?;
    let mut written = 1;
    for slice in args.map(PathBuf::from) {
        let (samples, _) = load(&slice, &LoadOptions::default())?;
        let stem = slice
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let subsets: [(&str, &[Sample]); 2] =
            [("all", &samples), ("one", &samples[..samples.len().min(1)])];
        for (what, subset) in subsets {
            for ext in ["gtc", "gtc.zst"] {
                write_cache(&caches.join(format!("seed-{stem}-{what}.{ext}")), subset)?;
                written += 1;
            }
        }
    }

    for kind in [ModelKind::Psqt, ModelKind::Full] {
        let model = Model::new(kind);
        let w = model.default_weights();
        save(&weights, &model, &w, "default")?;
        // Fractional values of both signs and magnitudes, as a tuning run writes them.
        let tuned: Vec<f64> = w
            .iter()
            .enumerate()
            .map(|(i, &x)| x + ((i * 7919) % 2001) as f64 / 16.0 - 62.5 + 1e-3 / (i + 1) as f64)
            .collect();
        save(&weights, &model, &tuned, "tuned")?;
        written += 2;
    }
    println!("{written} seed files in {}", corpus.display());
    Ok(())
}

fn save(dir: &Path, model: &Model, w: &[f64], what: &str) -> Result<(), eval::ParamError> {
    let name = format!("seed-{}-{what}.json", model.kind().name());
    save_weights(&dir.join(name), model, w)
}
