//! `tune bench`: the load (time and peak resident memory, read from the OS), the throughput of
//! the recorded evaluations (value and gradient per pass) and the time L-BFGS takes to
//! converge, on a million positions (or `--positions N`), printed as one JSON object.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::bail;
use eval::{Model, ModelKind};
use optim::{Budget, Control, Method, Objective, RunConfig};
use serde_json::{json, Value};
use tapered::Stop;
use texel::setup::{BuiltIn, ObjectiveOptions, SetupOptions, SplitOptions, TraceOptions};

/// Options of `tune bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Positions file (EPD, PGN or cache). Default: `tcec-standard.pgn.zst` from the shared
    /// data folder (`$GRADTUNE_SHARED_DATA`, or `../shared/data` next to the repository).
    #[arg(long, value_name = "FILE")]
    pub data: Option<PathBuf>,
    /// Use the first this many positions of the file; more than a cache holds repeats the
    /// cache (each copy's games kept apart, as for several files).
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
    /// Also measure psqt's evaluation of the same positions as an engine's traces (a manifest
    /// of psqt's tapered pairs; the same nonzeros a position), as `psqt_as_traces`, through
    /// the traced model's path (read, record, pass).
    #[arg(long)]
    pub traced: bool,
}

/// A fresh temporary directory for the bench's trace files.
fn tempfile_dir() -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("tune-bench-traces-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// A training objective and the point its passes are timed at.
type Timed = (Arc<Objective>, Vec<f64>);

/// psqt's and its traces' passes timed alternately (`passes` each, the best of each kept), so
/// that both see the same machine: the figures of a shared machine, whose load changes
/// between two sequential measurements.
fn interleaved(psqt: &Timed, traced: &Timed, passes: usize) -> Value {
    let (mut a, mut b) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..passes.max(1) {
        a = a.min(throughput(&psqt.0, &psqt.1, 1).1);
        b = b.min(throughput(&traced.0, &traced.1, 1).1);
    }
    eprintln!(
        "interleaved: psqt {a:.4} s, psqt_as_traces {b:.4} s a pass: the traces at {:.0}% of \
         psqt's speed",
        100.0 * a / b
    );
    json!({
        "psqt_best_pass_seconds": a,
        "traced_best_pass_seconds": b,
        "traced_speed_relative_to_psqt": a / b,
    })
}

/// Loads and records `opts` as model `M` (time and peak resident memory), then measures the
/// value-and-gradient pass and, with `lbfgs`, L-BFGS to convergence; the figures, the
/// recorded set's bytes a position, and the training objective with the start.
fn measure<M: texel::Tunable>(
    name: &str,
    opts: &SetupOptions<M::Source>,
    passes: usize,
    lbfgs: bool,
) -> anyhow::Result<(serde_json::Map<String, Value>, f64, Timed)> {
    let peak_reset = texel::memory::reset_peak();
    let before = texel::memory::rss();
    let setup = texel::setup::prepare_as::<M>(opts, Stop::Never)?;
    let peak = texel::memory::peak_rss();
    let (train, valid, start) = (setup.train.clone(), setup.valid.clone(), setup.start);
    let set = train.set();
    let valid_len = valid.as_ref().map_or(0, |v| v.set().len());
    let n = set.len() + valid_len;
    eprintln!(
        "{name}: {n} positions ({} training, {valid_len} validation) loaded and recorded in \
         {:.1} s",
        set.len(),
        setup.seconds,
    );
    let mut m = serde_json::Map::new();
    m.insert("positions".into(), json!(n));
    m.insert("train_positions".into(), json!(set.len()));
    m.insert("valid_positions".into(), json!(valid_len));
    m.insert("load_record_seconds".into(), json!(setup.seconds));
    m.insert("k".into(), json!(train.config().link.k));
    m.insert("start_train_loss".into(), json!(train.data_loss(&start)));
    if let (Some(peak), Some(before)) = (peak, before) {
        note_memory(name, &mut m, (before, peak), peak_reset, n);
    }
    let x0 = train.reduce(&start);
    let (pps, best) = throughput(&train, &x0, passes);
    eprintln!(
        "{name}: best pass {best:.4} s, {:.2} M positions/s",
        pps / 1e6
    );
    m.insert("params".into(), json!(setup.model.len()));
    m.insert("linear_positions".into(), json!(set.linear_len()));
    // Positions in the compact stores: tapered linear rows, and sums plus a shared head.
    m.insert("phased_positions".into(), json!(set.phased_len()));
    m.insert("sums_and_head_positions".into(), json!(set.headed_len()));
    let bpp = set.heap_bytes() as f64 / set.len().max(1) as f64;
    m.insert("bytes_per_position".into(), json!(bpp));
    m.insert("gradient_pass_seconds".into(), json!(best));
    m.insert("gradient_positions_per_second".into(), json!(pps));
    if lbfgs {
        lbfgs_to_convergence(name, &train, valid, &start, &mut m)?;
    }
    Ok((m, bpp, (train, x0)))
}

/// Notes the peak resident memory of the load (`before` and `peak`, in bytes) in `m` and on
/// stderr, per position of `n`.
fn note_memory(
    name: &str,
    m: &mut serde_json::Map<String, Value>,
    (before, peak): (u64, u64),
    peak_reset: bool,
    n: usize,
) {
    // Without a reset the peak is the process's since its start (an earlier model's).
    let growth = peak.saturating_sub(before);
    eprintln!(
        "{name}: peak resident memory {:.1} MB, {:.1} MB above the start of the load \
         ({:.0} bytes a position){}",
        mb(peak),
        mb(growth),
        growth as f64 / n.max(1) as f64,
        if peak_reset {
            ""
        } else {
            " (peak not reset: an upper bound)"
        },
    );
    m.insert("peak_rss_bytes".into(), json!(peak));
    m.insert("peak_rss_growth_bytes".into(), json!(growth));
    m.insert(
        "peak_rss_growth_bytes_per_position".into(),
        json!(growth as f64 / n.max(1) as f64),
    );
    m.insert("peak_rss_reset".into(), json!(peak_reset));
}

/// Runs L-BFGS to convergence from `start` and notes its time, passes and losses in `m`.
fn lbfgs_to_convergence(
    name: &str,
    train: &Arc<Objective>,
    valid: Option<Arc<Objective>>,
    start: &[f64],
    m: &mut serde_json::Map<String, Value>,
) -> anyhow::Result<()> {
    eprintln!("{name}: L-BFGS to convergence");
    let cfg = RunConfig {
        method: Method::Lbfgs,
        budget: Budget::iterations(5000),
        ..RunConfig::default()
    };
    let o = optim::run(train.clone(), valid, start, &cfg, Arc::new(Control::new()))?;
    m.insert("lbfgs_seconds_to_converge".into(), json!(o.spent.seconds));
    m.insert("lbfgs_passes".into(), json!(o.spent.passes));
    m.insert("lbfgs_iterations".into(), json!(o.spent.iterations));
    m.insert("lbfgs_best_iteration".into(), json!(o.best_iter));
    m.insert("lbfgs_reason".into(), json!(o.reason));
    m.insert(
        "lbfgs_train_loss".into(),
        json!([o.train_loss.0, o.train_loss.1]),
    );
    if let Some((a, b)) = o.valid_loss {
        m.insert("lbfgs_valid_loss".into(), json!([a, b]));
    }
    Ok(())
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

/// The records a cache's header announces, `None` for another format.
fn cache_count(path: &std::path::Path) -> anyhow::Result<Option<u64>> {
    Ok(match data::files::detect(path)? {
        data::Format::Cache => Some(data::cache::CacheReader::open(path, false)?.count()),
        _ => None,
    })
}

/// Megabytes, for the messages.
fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

/// [`measure`] for psqt's evaluation of the same positions written as traces (in a temporary
/// directory, removed after).
fn measure_traced(
    name: &str,
    args: &Args,
    path: &Path,
    copies: usize,
) -> anyhow::Result<(serde_json::Map<String, Value>, f64, Timed)> {
    // psqt's evaluation of the same positions as traces: the same nonzeros a position.
    let dir = tempfile_dir()?;
    let data = vec![path.to_path_buf(); copies];
    let files = crate::bench_traced::psqt_as_traces(&data, args.positions, &dir)?;
    let opts = SetupOptions {
        split: SplitOptions {
            valid_fraction: args.valid_fraction,
            seed: 1,
            ..SplitOptions::default()
        },
        objective: ObjectiveOptions {
            l2: Some(1e-8),
            ..ObjectiveOptions::default()
        },
        ..SetupOptions::new(TraceOptions {
            verify: false,
            ..TraceOptions::new(files.0, vec![files.1])
        })
    };
    eprintln!("{name}: loading and recording the traces");
    let measured = measure::<texel::traced::Traced>(name, &opts, args.passes, false);
    std::fs::remove_dir_all(&dir).ok();
    measured
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let path = match &args.data {
        Some(p) => p.clone(),
        None => default_data()?,
    };
    // More positions than a cache holds: the file again and again, each copy's games apart.
    let copies = match cache_count(&path)? {
        Some(n) if n > 0 => (args.positions as u64).div_ceil(n).max(1) as usize,
        _ => 1,
    };
    let mut out = serde_json::Map::new();
    out.insert("data".into(), json!(path.display().to_string()));
    out.insert("data_copies".into(), json!(copies));
    out.insert("threads".into(), json!(rayon::current_num_threads()));
    let base = texel::memory::rss();
    out.insert("rss_before_bytes".into(), json!(base));
    let mut bytes_per_position = Vec::new();
    // psqt's objective and start, kept for the interleaved comparison with its traces.
    let mut psqt = None;
    for &kind in &args.models {
        let opts = SetupOptions {
            source: BuiltIn {
                data: vec![path.clone(); copies],
                model: Some(kind),
                ..BuiltIn::default()
            },
            split: SplitOptions {
                valid_fraction: args.valid_fraction,
                seed: 1,
                first: Some(args.positions),
                ..SplitOptions::default()
            },
            objective: ObjectiveOptions {
                l2: Some(1e-8),
                ..ObjectiveOptions::default()
            },
            ..SetupOptions::default()
        };
        let lbfgs = kind == ModelKind::Psqt && !args.no_lbfgs;
        let name = kind.to_string();
        eprintln!("{kind}: loading and recording {}", path.display());
        let (m, bpp, obj) = measure::<Model>(&name, &opts, args.passes, lbfgs)?;
        if kind == ModelKind::Psqt && args.traced {
            psqt = Some(obj);
        }
        bytes_per_position.push((name.clone(), bpp));
        out.insert(name, Value::Object(m));
    }
    if args.traced {
        let name = "psqt_as_traces".to_string();
        let (m, bpp, traced) = measure_traced(&name, &args, &path, copies)?;
        bytes_per_position.push((name.clone(), bpp));
        out.insert(name, Value::Object(m));
        if let Some(psqt) = &psqt {
            out.insert(
                "traced_vs_psqt".into(),
                interleaved(psqt, &traced, args.passes),
            );
        }
    }
    // Last: its 1 GiB buffer would be every model's peak.
    let bw = read_bandwidth();
    eprintln!("memory read bandwidth {:.1} GB/s", bw / 1e9);
    out.insert("memory_read_bytes_per_second".into(), json!(bw));
    for (name, bpp) in bytes_per_position {
        if let Some(Value::Object(m)) = out.get_mut(&name) {
            m.insert(
                "bandwidth_bound_positions_per_second".into(),
                json!(bw / bpp),
            );
        }
    }
    println!("{}", serde_json::to_string_pretty(&Value::Object(out))?);
    Ok(())
}
