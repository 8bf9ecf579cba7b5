//! The real `tune` binary stopped from outside: `kill -9` in the middle of writing a file leaves
//! the previous file whole (every output is written to a temporary file and renamed); Ctrl-C
//! (SIGINT) during a run stops it and saves the best weights so far; a second Ctrl-C exits at
//! once with code 130. Time bounds are generous: CI shares 2 cores.

#![cfg(unix)]

use crate::common;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::{arg, default_data, signal, tune};

/// The temporary files of atomic writes in `dir` (`.<name>.tmp-<pid>-<n>`).
pub(crate) fn temp_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    n.starts_with('.') && n.contains(".tmp-")
                })
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default()
}

fn file_size(p: &Path) -> u64 {
    std::fs::metadata(p).map_or(0, |m| m.len())
}

/// Waits for `child` to exit, at most `limit`.
pub(crate) fn wait_at_most(child: &mut Child, limit: Duration) -> ExitStatus {
    let t0 = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            panic!("tune did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Polls `cond` every few milliseconds until it holds; false if `child` exited first or after
/// `limit`.
pub(crate) fn wait_for(child: &mut Child, limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let t0 = Instant::now();
    while t0.elapsed() < limit {
        if cond() {
            return true;
        }
        if child.try_wait().expect("try_wait").is_some() {
            return cond();
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    false
}

/// `tune extract` writing a large cache over an existing file, killed with SIGKILL once bytes
/// reach the temporary file: the old file is intact, byte for byte. (Should the kill land after
/// the rename, the new file must load whole; the test retries until one kill lands mid-write.)
#[test]
fn kill_9_mid_write_leaves_the_old_file_intact() {
    // The embedded dataset, every position kept: 220,834 records to write.
    let input = default_data();
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("set.gtc.zst");
    let old: Vec<u8> = b"the previous cache, which must survive\n".repeat(1000);
    let mut mid_write = 0;
    for _attempt in 0..5 {
        std::fs::write(&target, &old).unwrap();
        let mut child = tune()
            .args([
                "extract",
                arg(&input),
                "--filter",
                "none",
                "-o",
                arg(&target),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // A bound, not a speed check: on a loaded 2-core machine the debug build can take
        // minutes to reach the write.
        let writing = wait_for(&mut child, Duration::from_secs(600), || {
            temp_files(dir.path()).iter().any(|t| file_size(t) > 0)
        });
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        let now = std::fs::read(&target).unwrap();
        if now == old {
            assert!(
                writing,
                "tune exited, or was killed after 600 s, without writing: {status:?}"
            );
            assert_eq!(status.signal(), Some(9));
            // The temporary file is all a kill leaves behind.
            assert_eq!(temp_files(dir.path()).len(), 1);
            mid_write += 1;
        } else {
            // Killed after the rename (or it finished): the new file is whole.
            let (samples, _) = data::load(&target, &data::LoadOptions::default())
                .expect("a renamed cache is complete");
            assert!(samples.len() > 100_000, "{}", samples.len());
        }
        for t in temp_files(dir.path()) {
            std::fs::remove_file(t).unwrap();
        }
        if mid_write > 0 {
            break;
        }
    }
    assert!(
        mid_write > 0,
        "no kill landed while the file was being written"
    );
}

/// The arguments of an L-BFGS run of the `full` model on the embedded data (220,834
/// positions), long enough to be interrupted, bounded by `--time` should the signal be missed.
fn long_run(out: &Path) -> Child {
    tune()
        .args([
            "lbfgs",
            "--data",
            arg(&default_data()),
            "--model",
            "full",
            "--max-iters",
            "100000",
            "--time",
            "300",
            "--out",
            arg(out),
            "--quiet",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn log_lines(out: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(out.join("log.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Ctrl-C during the optimisation: the run stops, exits 0, and its files hold the kept iterate
/// of the log: `weights.json` loads, `summary.json` says `interrupted`.
#[test]
fn sigint_mid_run_saves_the_best_weights() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut child = long_run(&out);
    // A few iterations logged: the optimisation is under way.
    let running = wait_for(&mut child, Duration::from_secs(240), || {
        log_lines(&out).len() >= 3
    });
    assert!(running, "the run did not log 3 iterations");
    signal(child.id(), "INT");
    let t0 = Instant::now();
    let status = wait_at_most(&mut child, Duration::from_secs(60));
    let took = t0.elapsed();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(status.code(), Some(0), "{status:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    eprintln!("stopped {took:?} after SIGINT");

    let (model, w) = eval::load_weights(&out.join("weights.json")).expect("weights.json loads");
    assert_eq!(model.kind(), eval::ModelKind::Full);
    assert_eq!(w.len(), model.len());
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["reason"], "interrupted", "{summary}");
    // The kept iterate is a logged one, with the validation loss the summary reports.
    let best = summary["best_iter"].as_u64().unwrap();
    let kept_loss = summary["valid_loss"][1].as_f64().unwrap();
    let logged = log_lines(&out);
    let line = logged
        .iter()
        .find(|l| l["iter"].as_u64() == Some(best))
        .unwrap_or_else(|| panic!("iteration {best} is not in the log"));
    let logged_loss = line["valid_loss"].as_f64().unwrap();
    assert!(
        (logged_loss - kept_loss).abs() <= 1e-9 * kept_loss.abs(),
        "{logged_loss} logged, {kept_loss} kept"
    );
    assert!(temp_files(&out).is_empty(), "{:?}", temp_files(&out));
}

/// Ctrl-C while the data is being loaded and recorded stops the load at the end of the batch
/// under way and exits with code 130, writing nothing; a second Ctrl-C exits at once with the
/// same code (whichever comes first).
#[test]
fn a_second_sigint_exits_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut child = long_run(&out);
    // Read standard error as it comes, to know when the first Ctrl-C was handled.
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let pipe = child.stderr.take().expect("piped standard error");
    let reader = std::thread::spawn(move || {
        use std::io::BufRead;
        let mut all = String::new();
        for line in std::io::BufReader::new(pipe).lines().map_while(Result::ok) {
            let _ = tx.send(line.clone());
            all += &line;
            all.push('\n');
        }
        all
    });
    // The output directory is made after the Ctrl-C handler is installed, before the data is
    // loaded and recorded (seconds of work for 220,834 positions of `full`).
    assert!(wait_for(&mut child, Duration::from_secs(120), || out.is_dir()));
    signal(child.id(), "INT");
    // Two signals sent before the process runs again would arrive as one (pending signals of a
    // kind do not queue): send the second once the first has been answered.
    let t0 = Instant::now();
    while !rx
        .recv_timeout(Duration::from_secs(60))
        .is_ok_and(|l| l.contains("interrupted"))
    {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the first Ctrl-C was not answered"
        );
    }
    signal(child.id(), "INT");
    let status = wait_at_most(&mut child, Duration::from_secs(30));
    let stderr = reader.join().unwrap();
    assert_eq!(status.code(), Some(130), "{status:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!out.join("weights.json").exists());
    assert!(temp_files(&out).is_empty());
}
