//! Times a traced load (read, verify, split by game, record) as `tune` does it, for
//! `scripts/trace-load-bench.sh`; run it under `/usr/bin/time -v` for the peak memory.
//!
//! ```text
//! cargo run --release -p texel --example load_traces -- MANIFEST TRACES... [--no-verify]
//! cargo run --release -p texel --example load_traces -- MANIFEST TRACES... --write-binary OUT
//! ```
//!
//! The first form prints the load's time, the positions of each side and their stores' bytes;
//! the second reads the traces and writes them as a binary cache (`GTTRACE1`; zstd if `OUT`
//! ends in `.zst`).

use std::path::PathBuf;
use std::time::Instant;

use texel::setup::{SetupOptions, TraceOptions};
use texel::traced::Traced;
use texel::Tunable;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let verify = !args.iter().any(|a| a == "--no-verify");
    args.retain(|a| a != "--no-verify");
    let binary_out = match args.iter().position(|a| a == "--write-binary") {
        Some(i) if i + 1 < args.len() => {
            let out = PathBuf::from(args.remove(i + 1));
            args.remove(i);
            Some(out)
        }
        Some(_) => return Err("--write-binary needs a path".into()),
        None => None,
    };
    if args.len() < 2 {
        return Err(
            "usage: load_traces MANIFEST TRACES... [--no-verify | --write-binary OUT]".into(),
        );
    }
    let manifest = PathBuf::from(&args[0]);
    let files: Vec<PathBuf> = args[1..].iter().map(PathBuf::from).collect();
    let t0 = Instant::now();
    if let Some(out) = binary_out {
        let m = trace::Manifest::load(&manifest)?;
        let (traces, report) = trace::read_traces(&files, &m, &trace::ReadOptions::default())?;
        trace::write_binary(&out, &traces)?;
        println!(
            "{report}\n{} traces written to {}",
            traces.len(),
            out.display()
        );
        return Ok(());
    }
    let opts = SetupOptions {
        ..SetupOptions::new(TraceOptions {
            verify,
            ..TraceOptions::new(manifest, files)
        })
    };
    let loaded = <Traced as Tunable>::load(&opts, &|| false)?;
    let secs = t0.elapsed().as_secs_f64();
    for n in &loaded.notes {
        println!("{n}");
    }
    println!(
        "load: {secs:.2} s; train {} positions ({} store bytes), validation {} ({} bytes)",
        loaded.train.len(),
        loaded.train.heap_bytes(),
        loaded.valid.len(),
        loaded.valid.heap_bytes()
    );
    Ok(())
}
