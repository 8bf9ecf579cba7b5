//! `tune bench`: throughput of the recorded evaluations (value and gradient per pass) and the
//! time L-BFGS takes to converge, on a million positions, printed as one JSON object.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::bail;
use eval::{Model, ModelKind};
use optim::{
    fit_k, Budget, Control, Link, LossKind, Method, Objective, ObjectiveConfig, RunConfig, Sigmoid,
};
use serde_json::{json, Value};
use texel::chess::{param_specs, record_samples, Leaf};

/// Options of `tune bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Positions file (EPD, PGN or cache). Default: `tcec-standard.pgn.zst` from the shared
    /// data folder (`$GRADTUNE_SHARED_DATA`, or `../shared/data` next to the repository).
    #[arg(long, value_name = "FILE")]
    pub data: Option<PathBuf>,
    /// Use the first this many positions of the file.
    #[arg(long, default_value_t = 1_000_000)]
    pub positions: usize,
    /// Timed passes (value and gradient) per model; the best is reported.
    #[arg(long, default_value_t = 20)]
    pub passes: usize,
    /// Fraction of the games held out for validation (for the L-BFGS run).
    #[arg(long, default_value_t = 0.1)]
    pub valid_fraction: f64,
    /// Models to measure (repeatable).
    #[arg(long = "model", value_name = "MODEL", default_values = ["psqt", "full"])]
    pub models: Vec<ModelKind>,
    /// Skip the L-BFGS convergence run.
    #[arg(long)]
    pub no_lbfgs: bool,
}

fn default_data() -> anyhow::Result<PathBuf> {
    let dir = match std::env::var_os("GRADTUNE_SHARED_DATA") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    };
    let p = dir.join("tcec-standard.pgn.zst");
    if !p.is_file() {
        bail!(
            "no benchmark data: {} is missing (give --data FILE or set GRADTUNE_SHARED_DATA)",
            p.display()
        );
    }
    Ok(p)
}

/// Training and validation objectives, recording seconds, starting weights.
type Prepared = (Arc<Objective>, Option<Arc<Objective>>, f64, Vec<f64>);

/// Records `samples` for one model and returns the training and validation objectives and the
/// recording time.
fn objectives(
    model: &Model,
    train_s: &[data::Sample],
    valid_s: &[data::Sample],
) -> anyhow::Result<Prepared> {
    let start = model.default_weights();
    let t0 = Instant::now();
    let train_set = Arc::new(record_samples(model, train_s, &start, Leaf::Static, None));
    let valid_set = Arc::new(record_samples(model, valid_s, &start, Leaf::Static, None));
    let record = t0.elapsed().as_secs_f64();
    if train_set.is_empty() {
        bail!("no training positions");
    }
    let link0 = Link {
        sigmoid: Sigmoid::Logistic,
        k: 1.0,
        loss: LossKind::Mse,
    };
    let (k, _) = fit_k(&train_set, &start, link0);
    let cfg = ObjectiveConfig {
        link: Link { k, ..link0 },
        l1: 0.0,
        l2: 1e-8,
        lambda: 1.0,
    };
    let specs = param_specs(model);
    let bounds: Vec<Option<(f64, f64)>> = specs.iter().map(|p| p.bounds).collect();
    let train =
        Arc::new(Objective::new(train_set, cfg, start.clone(), None)?.with_bounds(&bounds)?);
    let valid = if valid_set.is_empty() {
        None
    } else {
        Some(Arc::new(train.with_set(valid_set)?))
    };
    Ok((train, valid, record, start))
}

/// Best-of-`passes` value-and-gradient throughput of `obj` at `x`, in positions per second.
fn throughput(obj: &Objective, x: &[f64], passes: usize) -> (f64, f64) {
    let mut best = f64::INFINITY;
    for _ in 0..passes.max(1) {
        let t = Instant::now();
        let (e, g) = obj.value_and_gradient(x);
        let s = t.elapsed().as_secs_f64();
        std::hint::black_box((e, g));
        best = best.min(s);
    }
    (obj.set().len() as f64 / best, best)
}

/// Read bandwidth in bytes per second: the best of 3 parallel sums over a 1 GiB buffer.
fn read_bandwidth() -> f64 {
    use rayon::prelude::*;
    let buf: Vec<u64> = (0..(1u64 << 27)).collect();
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let t = Instant::now();
        let s: u64 = buf
            .par_chunks(1 << 16)
            .map(|c| c.iter().fold(0u64, |a, &x| a.wrapping_add(x)))
            .reduce(|| 0, u64::wrapping_add);
        std::hint::black_box(s);
        best = best.min(t.elapsed().as_secs_f64());
    }
    (buf.len() * 8) as f64 / best
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let path = match &args.data {
        Some(p) => p.clone(),
        None => default_data()?,
    };
    eprintln!("loading {}", path.display());
    let t0 = Instant::now();
    // The error names the file already (`x.epd: No such file ...`): no context repeating it.
    let (mut samples, _) = data::load(&path, &data::LoadOptions::default())?;
    samples.truncate(args.positions);
    if samples.is_empty() {
        bail!("{} holds no positions", path.display());
    }
    let n = samples.len();
    let (train_s, valid_s) = data::split_by_game(samples, args.valid_fraction, 1);
    eprintln!(
        "{} positions ({} training, {} validation) loaded in {:.1} s",
        n,
        train_s.len(),
        valid_s.len(),
        t0.elapsed().as_secs_f64()
    );
    let mut out = serde_json::Map::new();
    out.insert("positions".into(), json!(n));
    out.insert("train_positions".into(), json!(train_s.len()));
    out.insert("valid_positions".into(), json!(valid_s.len()));
    out.insert("threads".into(), json!(rayon::current_num_threads()));
    let bw = read_bandwidth();
    eprintln!("memory read bandwidth {:.1} GB/s", bw / 1e9);
    out.insert("memory_read_bytes_per_second".into(), json!(bw));
    for &kind in &args.models {
        let model = Model::new(kind);
        eprintln!("{kind}: recording");
        let (train, valid, record, start) = objectives(&model, &train_s, &valid_s)?;
        let set = train.set();
        let x0 = train.reduce(&start);
        let (pps, best) = throughput(&train, &x0, args.passes);
        eprintln!(
            "{kind}: best pass {best:.4} s, {:.2} M positions/s",
            pps / 1e6
        );
        let mut m = serde_json::Map::new();
        m.insert("params".into(), json!(model.len()));
        m.insert("linear_positions".into(), json!(set.linear_len()));
        // Positions in the compact stores: tapered linear rows, and sums plus a shared head.
        m.insert("phased_positions".into(), json!(set.phased_len()));
        m.insert("sums_and_head_positions".into(), json!(set.headed_len()));
        m.insert(
            "bytes_per_position".into(),
            json!(set.heap_bytes() as f64 / set.len().max(1) as f64),
        );
        m.insert("record_seconds".into(), json!(record));
        let bpp = set.heap_bytes() as f64 / set.len().max(1) as f64;
        m.insert(
            "bandwidth_bound_positions_per_second".into(),
            json!(bw / bpp),
        );
        m.insert("gradient_pass_seconds".into(), json!(best));
        m.insert("gradient_positions_per_second".into(), json!(pps));
        if kind == ModelKind::Psqt && !args.no_lbfgs {
            eprintln!("{kind}: L-BFGS to convergence");
            let cfg = RunConfig {
                method: Method::Lbfgs,
                budget: Budget {
                    max_iters: Some(5000),
                    ..Budget::default()
                },
                ..RunConfig::default()
            };
            let o = optim::run(train.clone(), valid, &start, &cfg, Arc::new(Control::new()))?;
            m.insert("lbfgs_seconds_to_converge".into(), json!(o.seconds));
            m.insert("lbfgs_passes".into(), json!(o.passes));
            m.insert("lbfgs_iterations".into(), json!(o.iterations));
            m.insert("lbfgs_best_iteration".into(), json!(o.best_iter));
            m.insert("lbfgs_reason".into(), json!(o.reason));
            m.insert(
                "lbfgs_train_loss".into(),
                json!([o.train_loss.0, o.train_loss.1]),
            );
            if let Some((a, b)) = o.valid_loss {
                m.insert("lbfgs_valid_loss".into(), json!([a, b]));
            }
        }
        out.insert(kind.to_string(), Value::Object(m));
    }
    println!("{}", serde_json::to_string_pretty(&Value::Object(out))?);
    Ok(())
}
