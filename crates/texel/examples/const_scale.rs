//! Memory and pass time of a linear manifest whose traces carry a constant and an endgame scale
//! (as 4ku's do): synthetic traces (tapered material and table, about 20 coefficients a
//! position, phases `0..=24`, a scale below its maximum on most positions, a constant on
//! every one) recorded by `texel::traced::record_traces`, as a traced run records them. Prints
//! the layout (positions and bytes a position per store), the recording time and the best of
//! `PASSES` value-and-gradient passes.
//!
//! ```sh
//! nice -n 10 cargo run --release -p texel --example const_scale -- 500000 10
//! ```

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::Chess;
use tapered::Stop;
use texel::traced::{record_traces, Traced};
use trace::{Manifest, Trace};

/// Tapered material (6) and a 6 x 8 table: 54 elements, 108 weights.
fn manifest() -> Manifest {
    let pair = "[0, 0]";
    let material = [pair; 6].join(", ");
    let row = format!("[{}]", [pair; 8].join(", "));
    let pst = [row.as_str(); 6].join(", ");
    let json = format!(
        r#"{{"format": "gradtune-manifest", "version": 1, "engine": "const-scale",
  "score": "white", "phase": {{"max": 24}}, "scale": {{"max": 128}},
  "params": [
    {{"name": "material", "shape": [6], "value": [{material}]}},
    {{"name": "pst", "shape": [6, 8], "value": [{pst}]}}
  ]}}"#
    );
    Manifest::from_json(&json, "const-scale.json").expect("the manifest")
}

fn traces(n: usize, rng: &mut ChaCha8Rng) -> Vec<Trace> {
    let board = data::PackedBoard::from_position(&Chess::default());
    (0..n)
        .map(|i| {
            let mut coeffs: Vec<(u32, f32, f32)> = (0..6)
                .map(|k| (k, rng.gen_range(0..4) as f32, rng.gen_range(0..4) as f32))
                .collect();
            for _ in 0..14 {
                let k = rng.gen_range(6..54);
                let (w, b) = if rng.gen_bool(0.5) {
                    (1.0, 0.0)
                } else {
                    (0.0, 1.0)
                };
                coeffs.push((k, w, b));
            }
            coeffs.sort_by_key(|c| c.0);
            coeffs.dedup_by_key(|c| c.0);
            Trace {
                board,
                result: [0.0, 0.5, 1.0][i % 3],
                score: None,
                game: (i / 100) as u32,
                white_to_move: true,
                phase: rng.gen_range(0..=24) as f32,
                scale: rng.gen_bool(0.83).then(|| rng.gen_range(0..128) as f32),
                constant: rng.gen_range(-40..40) as f32,
                eval: None,
                coeffs,
                features: Vec::new(),
            }
        })
        .collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args
        .next()
        .map_or(500_000, |a| a.parse().expect("POSITIONS"));
    let passes: usize = args.next().map_or(10, |a| a.parse().expect("PASSES"));
    let m = manifest();
    let mut rng = ChaCha8Rng::seed_from_u64(40);
    let ts = traces(n, &mut rng);
    let nonzeros = ts.iter().map(|t| t.coeffs.len()).sum::<usize>() as f64 / n as f64;
    let start = vec![0.0; m.weights().len()];
    let traced = Traced::new(m);
    let t0 = Instant::now();
    let set = record_traces(&traced, &ts, &start, None);
    let record = t0.elapsed().as_secs_f64();
    drop(ts);
    let layout = set.layout();
    println!("{n} positions, {nonzeros:.1} coefficients each; recorded in {record:.2} s");
    for s in &layout.stores {
        let per = s.bytes as f64 / s.positions.max(1) as f64;
        println!(
            "  {}: {} positions, {per:.1} bytes a position",
            s.store, s.positions
        );
    }
    for w in layout.warnings() {
        println!("  note: {w}");
    }
    let w: Vec<f64> = (0..start.len())
        .map(|_| rng.gen_range(-200.0..200.0))
        .collect();
    let go = AtomicBool::new(false);
    let f = |i: usize, q: f64| {
        let p = 1.0 / (1.0 + (-q / 400.0).exp());
        let y = set.targets()[i].value;
        ((p - y) * (p - y), 2.0 * (p - y) * p * (1.0 - p) / 400.0)
    };
    let mut best = f64::INFINITY;
    let mut g = vec![0.0; w.len()];
    for _ in 0..passes {
        g.iter_mut().for_each(|x| *x = 0.0);
        let t = Instant::now();
        set.pass(&w, 0..set.len(), None, Some(&mut g), f, Stop::from(&go));
        best = best.min(t.elapsed().as_secs_f64());
    }
    let rate = set.len() as f64 / best / 1e6;
    println!("best of {passes} passes: {best:.4} s, {rate:.2} M positions/s");
}
