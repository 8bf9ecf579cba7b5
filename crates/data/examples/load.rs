//! Loads a file of labelled positions and prints the report and the time taken.
//!
//! `cargo run --release -p data --example load -- FILE [--strict] [--stm-results]`

use std::time::Instant;

use data::{load, LoadOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut path = None;
    let mut opts = LoadOptions::default();
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "--strict" => opts.strict = true,
            "--stm-results" => opts.stm_results = true,
            _ => path = Some(a),
        }
    }
    let path = path.ok_or("usage: load FILE [--strict] [--stm-results]")?;
    let t = Instant::now();
    let (samples, report) = load(path.as_ref(), &opts)?;
    println!(
        "{} samples in {:.3} s\n{report}",
        samples.len(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
