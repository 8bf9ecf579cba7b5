//! `tune trace` against the foreign engines of `fixtures/trace-engine`: the C fixture (built
//! with the system C compiler; the tests say so and skip where `cc` is missing) and the
//! misbehaving python3 one (skipped where `python3` is missing).

use crate::common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{
    arg, compile_fixture, default_data, engine_answers, engine_evals, read_all, run, tools, Ran,
};
use data::{load, LoadOptions, Sample};
use shakmaty::fen::Fen;
use shakmaty::{EnPassantMode, Position};
use trace::{Manifest, Trace};

/// The fixtures' folder.
fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/trace-engine")
}

/// The misbehaving engine's command line in `mode`, or `None` (with a message) where there
/// is no python3.
fn misbehave(mode: &str) -> Option<String> {
    if !tools::have("python3", "the misbehaving engine is a python3 script") {
        return None;
    }
    let script = fixtures().join("misbehave.py");
    Some(format!("python3 '{}' {mode}", script.display()))
}

/// `n` positions spread over the embedded dataset, written to `dir/in.epd`.
fn positions(dir: &Path, n: usize) -> (PathBuf, Vec<Sample>) {
    let (all, _) = load(&default_data(), &LoadOptions::default()).unwrap();
    let step = all.len() / n;
    let samples: Vec<Sample> = all.iter().step_by(step).take(n).copied().collect();
    let path = dir.join("in.epd");
    data::write_epd(&path, &samples).unwrap();
    (path, samples)
}

/// `tune trace INPUT --engine ENGINE -o OUT --jobs JOBS` and `extra`.
fn trace_cmd(input: &Path, engine: &str, out: &Path, jobs: &str, extra: &[&str]) -> Ran {
    let mut args = vec![
        "trace",
        arg(input),
        "--engine",
        engine,
        "-o",
        arg(out),
        "--jobs",
        jobs,
    ];
    args.extend_from_slice(extra);
    run(&args)
}

/// The samples' positions as FENs.
fn fens(samples: &[Sample]) -> impl Iterator<Item = String> + '_ {
    samples
        .iter()
        .map(|s| Fen::from_position(&s.position().unwrap(), EnPassantMode::Legal).to_string())
}

/// The engine's answers to `eval` for each sample, from one process.
fn fixture_evals(exe: &Path, samples: &[Sample]) -> Vec<i64> {
    engine_evals(exe, fens(samples))
}

/// `n` positions traced by the C fixture (compiled into `dir`) with two engines, its manifest
/// written beside them: the fixture, the positions, the traces and the manifest's path; `None`
/// (with a message) where there is no C compiler.
fn traced_fixture(dir: &Path, n: usize) -> Option<(PathBuf, Vec<Sample>, PathBuf, PathBuf)> {
    let exe = compile_fixture(dir)?;
    let (input, samples) = positions(dir, n);
    let out = dir.join("traces.txt");
    let mpath = dir.join("manifest.json");
    let r = trace_cmd(
        &input,
        arg(&exe),
        &out,
        "2",
        &["--manifest-out", arg(&mpath)],
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stdout.contains(&format!("traced {n} positions")),
        "{}",
        r.stdout
    );
    Some((exe, samples, out, mpath))
}

/// Every trace of the C fixture parses; rebuilt from the manifest at its own values it is the
/// fixture's `eval` within 1 cp on every position (its king safety, non-linear, included);
/// the positions keep their labels; one engine or two give the same file.
#[test]
fn the_c_fixture_traces_rebuild_its_own_evaluation() {
    let dir = tempfile::tempdir().unwrap();
    let Some((exe, samples, out, mpath)) = traced_fixture(dir.path(), 300) else {
        return;
    };
    let input = dir.path().join("in.epd");
    assert!(!dir.path().join("traces.txt.progress").exists());
    let m = Manifest::load(&mpath).unwrap();
    assert_eq!(
        m.weights().len(),
        930,
        "the manifest written by --manifest-out"
    );
    let traces = read_all(&out, &m);
    assert_eq!(traces.len(), 300);
    let evals = fixture_evals(&exe, &samples);
    let w = m.initial_weights();
    let ks = m.trace_index("ks_attack", &[0]).unwrap()..m.trace_index("ks_weight", &[0]).unwrap();
    let mut with_king_danger = 0;
    for ((t, s), &e) in traces.iter().zip(&samples).zip(&evals) {
        assert_eq!((t.board, t.result, t.game), (s.board, s.result, s.game));
        assert_eq!(t.eval, Some(e as f32), "the trace's eval is `eval`'s");
        let rebuilt = m.evaluate(t, &w).unwrap();
        assert!(
            (rebuilt.round() - e as f64).abs() <= 1.0,
            "{}: rebuilt {rebuilt}, engine {e}",
            t.fen()
        );
        if t.coeffs.iter().any(|c| ks.contains(&c.0)) {
            with_king_danger += 1;
        }
    }
    // The non-linear term is exercised, not vacuous.
    assert!(with_king_danger >= 30, "{with_king_danger} of 300");

    let one = dir.path().join("one.txt");
    let r = trace_cmd(&input, arg(&exe), &one, "1", &[]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&out).unwrap());
}

/// The traces of `samples` asked of one fixture process directly (`position fen`, `trace`),
/// each joined with its position and labels as docs/trace-format.md says (the EPD's four
/// fields, the labels, `game G` with the game id moved by `game_offset`).
fn fixture_traces(exe: &Path, m: &Manifest, samples: &[Sample], game_offset: u32) -> Vec<Trace> {
    let answers = engine_answers(exe, fens(samples), "trace");
    assert_eq!(answers.len(), samples.len());
    samples
        .iter()
        .zip(answers)
        .map(|(s, answer)| {
            let epd = s.to_epd();
            let fields: Vec<&str> = epd.splitn(5, ' ').collect();
            let labels = fields[4].trim().trim_end_matches(';');
            let labels = format!("{labels}; game {}", s.game + game_offset);
            let line =
                trace::parse_engine_answer(&answer, &fields[..4].join(" "), &labels, m).unwrap();
            trace::parse_line(&line, m).unwrap().unwrap()
        })
        .collect()
}

/// The streamed output is, byte for byte, the file of every trace written at once in input
/// order (`trace::write_text`, how `tune trace` wrote before it streamed), the traces asked
/// of one fixture process directly: two input files (the second's games moved past the
/// first's), three engine processes answering out of order.
#[test]
fn the_streamed_file_is_the_whole_file_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = compile_fixture(dir.path()) else {
        return;
    };
    let (_, samples) = positions(dir.path(), 500);
    let (a, b) = samples.split_at(300);
    let (pa, pb) = (dir.path().join("a.epd"), dir.path().join("b.epd"));
    data::write_epd(&pa, a).unwrap();
    data::write_epd(&pb, b).unwrap();
    let m = trace_manifest(&exe);
    let mpath = dir.path().join("m.json");
    std::fs::write(&mpath, trace_manifest_json(&exe)).unwrap();
    let out = dir.path().join("out.txt");
    let r = run(&[
        "trace",
        arg(&pa),
        arg(&pb),
        "--engine",
        arg(&exe),
        "--manifest",
        arg(&mpath),
        "-o",
        arg(&out),
        "--jobs",
        "3",
    ]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let offset = a.iter().map(|s| s.game + 1).max().unwrap();
    let mut traces = fixture_traces(&exe, &m, a, 0);
    traces.extend(fixture_traces(&exe, &m, b, offset));
    let whole = dir.path().join("whole.txt");
    trace::write_text(&whole, &traces, &m).unwrap();
    let (got, want) = (std::fs::read(&out).unwrap(), std::fs::read(&whole).unwrap());
    assert_eq!(String::from_utf8_lossy(&got).lines().count(), 501);
    assert!(got == want, "the streamed file differs from the whole one");
}

/// The output is written as the run goes, not kept to its end: with the engine hung on its
/// 1,500th position (the time-out far away), the output's temporary file already holds the
/// first traces, those of a finished run, in order. Ctrl-C then removes it, writes no output
/// and keeps the 1,499 finished traces in the progress file.
#[cfg(unix)]
#[test]
fn the_output_is_written_as_the_run_goes() {
    use crate::interrupts::{temp_files, wait_at_most, wait_for};
    use std::time::Duration;
    let (Some(good), Some(hang)) = (misbehave("good"), misbehave("hang 1500")) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = positions(dir.path(), 1600);
    let whole = dir.path().join("whole.txt");
    let r = trace_cmd(&input, &good, &whole, "1", &[]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let want = std::fs::read_to_string(&whole).unwrap();
    assert_eq!(want.lines().count(), 1601);

    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("out.txt");
    let mut child = common::tune()
        .args(["trace", arg(&input), "--engine", &hang, "-o", arg(&out)])
        .args(["--jobs", "1", "--timeout", "600"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Complete lines of the temporary file (it fills a buffer at a time).
    let written = || -> Vec<String> {
        let Some(temp) = temp_files(&out_dir).into_iter().next() else {
            return Vec::new();
        };
        let text = std::fs::read_to_string(temp).unwrap_or_default();
        let complete = text.rfind('\n').map_or("", |i| &text[..=i]);
        complete.lines().map(str::to_string).collect()
    };
    // The engine hangs once the progress file holds the first 1,499 traces (and its header).
    let progress = out_dir.join("out.txt.progress");
    let answered = || std::fs::read_to_string(&progress).map_or(0, |p| p.lines().count());
    let hung = wait_for(&mut child, Duration::from_secs(300), || {
        answered() == 7 + 1499
    });
    assert!(hung, "{} progress lines", answered());
    // About 160 KB of traces were written: all but the last buffer is in the file.
    let lines = written();
    assert!(
        lines.len() >= 500,
        "the temporary file holds {} lines while the engine hangs",
        lines.len()
    );
    let want_lines: Vec<&str> = want.lines().collect();
    assert_eq!(
        lines,
        want_lines[..lines.len()],
        "the first traces, in order"
    );
    assert!(!out.exists());

    common::signal(child.id(), "INT");
    let status = wait_at_most(&mut child, Duration::from_secs(120));
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(status.success(), "{status:?}: {stdout}");
    assert!(stdout.contains("interrupted: nothing written"), "{stdout}");
    assert!(!out.exists());
    assert!(
        temp_files(&out_dir).is_empty(),
        "the temporary file is removed"
    );
    assert_eq!(answered(), 7 + 1499);
}

/// `tune verify` on a deliberately wrong trace of the C fixture (one more White knight in
/// every seventh trace than the engine counted) fails on exactly those positions and names
/// the element: one count of `material[1]` is every difference, shown for each listed
/// position beside its parts.
#[test]
fn verify_names_the_element_a_wrong_trace_counts_off_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let Some((_, _, out, mpath)) = traced_fixture(dir.path(), 140) else {
        return;
    };
    let m = Manifest::load(&mpath).unwrap();
    let knight = m.trace_index("material", &[1]).unwrap();
    let mut traces = read_all(&out, &m);
    for t in traces.iter_mut().step_by(7) {
        match t.coeffs.iter_mut().find(|c| c.0 == knight) {
            Some(c) => c.1 += 1.0,
            None => t.coeffs.push((knight, 1.0, 0.0)),
        }
        t.coeffs.sort_by_key(|c| c.0);
    }
    let wrong = dir.path().join("wrong.txt");
    trace::write_text(&wrong, &traces, &m).unwrap();
    let verify =
        |traces: &Path| run(&["verify", "--trace", arg(traces), "--manifest", arg(&mpath)]);
    assert_eq!(verify(&out).code, Some(0));
    let r = verify(&wrong);
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("20 differ by more than 1"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("terms: one count of `material[1]` is the difference in 20 of 20"),
        "{}",
        r.stdout
    );
    let listed = r
        .stdout
        .matches("one count of it is the difference: material[1] (");
    assert_eq!(
        listed.count(),
        11,
        "the worst and the first 10: {}",
        r.stdout
    );
}

/// A run stopped half-way (here: the engine behind a wrapper quits after 100 positions and
/// `--strict` stops there) keeps its traces in the progress file; the same command continues
/// from them and writes the file an uninterrupted run writes.
#[test]
fn an_interrupted_run_resumes_to_the_same_output() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = compile_fixture(dir.path()) else {
        return;
    };
    let (input, _) = positions(dir.path(), 240);
    // The command stays the same between the runs: a wrapper script, rewritten in between.
    let wrapper = dir.path().join("engine.sh");
    // (A shell loop passes on 200 lines, line by line: `head` would hold them in its buffer.)
    let first = "n=0; while [ $n -lt 200 ] && IFS= read -r l; do echo \"$l\"; n=$((n+1)); done";
    std::fs::write(&wrapper, format!("{{ {first}; }} | '{}'\n", exe.display())).unwrap();
    let engine = format!("sh '{}'", wrapper.display());
    let out = dir.path().join("out.txt.zst");
    let progress = dir.path().join("out.txt.zst.progress");
    let r = trace_cmd(&input, &engine, &out, "1", &["--strict"]);
    assert_eq!(r.code, Some(1), "{}", r.stdout);
    let want = format!("{}: position 101: engine `{engine}` exited", arg(&input));
    assert!(r.stderr.contains(&want), "{}", r.stderr);
    assert!(!out.exists());
    let kept = std::fs::read_to_string(&progress).unwrap();
    assert!(kept.starts_with("gradtune-trace 1\n"), "{kept}");
    // Its header has 7 lines.
    assert_eq!(kept.lines().count(), 7 + 100);

    std::fs::write(&wrapper, format!("exec '{}'\n", exe.display())).unwrap();
    let r = trace_cmd(&input, &engine, &out, "2", &[]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let want = "continuing: 100 positions were traced by an earlier run, 140 to go";
    assert!(r.stderr.contains(want), "{}", r.stderr);
    assert!(!progress.exists());

    let again = dir.path().join("again.txt.zst");
    let r = trace_cmd(&input, arg(&exe), &again, "1", &[]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let m = trace_manifest(&exe);
    assert_eq!(read_all(&out, &m), read_all(&again, &m));
    assert_eq!(read_all(&out, &m).len(), 240);
}

/// The fixture's manifest, asked of it.
fn trace_manifest(exe: &Path) -> Manifest {
    Manifest::from_json(&trace_manifest_json(exe), "fixture").unwrap()
}

/// The fixture's manifest's JSON, asked of it.
fn trace_manifest_json(exe: &Path) -> String {
    let out = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(b"manifest\nquit\n")?;
            c.wait_with_output()
        })
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    text.trim().strip_prefix("manifest ").unwrap().to_string()
}

/// The skip messages of a run: `(position, message)` for each `skipped FILE: position N: ...`.
fn skipped(r: &Ran, input: &Path) -> Vec<(usize, String)> {
    let prefix = format!("skipped {}: position ", arg(input));
    r.stderr
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .map(|l| {
            let (n, rest) = l.split_once(':').unwrap();
            (n.parse().unwrap(), rest.to_string())
        })
        .collect()
}

/// An engine crashing on every 25th position it is asked about loses that position only:
/// with one process, positions 25, 50, 75 and 100 (each restart counts afresh), named with the
/// exit status; every other position is traced.
#[test]
fn a_crash_loses_only_the_position_it_was_on() {
    let Some(engine) = misbehave("crash 25") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (input, samples) = positions(dir.path(), 100);
    let out = dir.path().join("out.txt");
    let r = trace_cmd(&input, &engine, &out, "1", &[]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let skips = skipped(&r, &input);
    let at: Vec<usize> = skips.iter().map(|s| s.0).collect();
    assert_eq!(at, [25, 50, 75, 100], "{}", r.stderr);
    for (_, message) in &skips {
        assert!(message.contains("exit status: 3"), "{message}");
        assert!(message.contains("crashing on purpose"), "{message}");
    }
    assert!(r.stdout.contains("skipped 4 positions"), "{}", r.stdout);
    let m = trace_manifest_of(&engine);
    let traces = read_all(&out, &m);
    let kept: Vec<_> = samples
        .iter()
        .enumerate()
        .filter(|(i, _)| !at.contains(&(i + 1)))
        .map(|(_, s)| s.board)
        .collect();
    assert_eq!(traces.iter().map(|t| t.board).collect::<Vec<_>>(), kept);
}

/// The manifest of an engine command line, asked through `tune trace --manifest-out`.
fn trace_manifest_of(engine: &str) -> Manifest {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.json");
    let r = run(&["trace", "--engine", engine, "--manifest-out", arg(&path)]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    Manifest::load(&path).unwrap()
}

/// An engine that stops answering is caught by the time-out, restarted, and the position
/// skipped.
#[test]
fn a_hang_is_timed_out_and_skipped() {
    let Some(engine) = misbehave("hang 10") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = positions(dir.path(), 25);
    let out = dir.path().join("out.txt");
    // The hang is forever; the time-out is long enough that a loaded machine's slow answers
    // are not taken for hangs.
    let r = trace_cmd(&input, &engine, &out, "1", &["--timeout", "5"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let skips = skipped(&r, &input);
    assert_eq!(
        skips.iter().map(|s| s.0).collect::<Vec<_>>(),
        [10, 20],
        "{}",
        r.stderr
    );
    for (_, message) in &skips {
        // The time waited, at least the time-out (a loaded machine may wait a little longer).
        assert!(message.contains("no `trace` within 5."), "{message}");
    }
    let m = trace_manifest_of(&engine);
    assert_eq!(read_all(&out, &m).len(), 23);
}

/// Malformed answers are named and skipped (exactly the positions the engine garbles: those
/// with a multiple of 5 pieces); `--strict` stops at the first with an error naming the
/// engine and the position.
#[test]
fn garbage_is_named_and_skipped_or_stops_a_strict_run() {
    let Some(engine) = misbehave("garbage 5") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (input, samples) = positions(dir.path(), 60);
    let garbled: Vec<usize> = samples
        .iter()
        .enumerate()
        .filter(|(_, s)| s.position().unwrap().board().occupied().count() % 5 == 0)
        .map(|(i, _)| i + 1)
        .collect();
    assert!(garbled.len() >= 3, "{garbled:?}");
    let out = dir.path().join("out.txt");
    let r = trace_cmd(&input, &engine, &out, "2", &[]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let mut at: Vec<usize> = skipped(&r, &input).iter().map(|s| s.0).collect();
    at.sort_unstable();
    // Ten are shown in full, the rest counted.
    let shown = garbled.len().min(10);
    assert_eq!(at.len(), shown, "{}", r.stderr);
    assert!(at.iter().all(|p| garbled.contains(p)), "{at:?} {garbled:?}");
    for (_, message) in skipped(&r, &input) {
        assert!(message.contains("malformed answer"), "{message}");
        assert!(message.contains("phase banana"), "{message}");
    }
    let want = format!("skipped {} positions", garbled.len());
    assert!(r.stdout.contains(&want), "{}", r.stdout);
    let m = trace_manifest_of(&engine);
    assert_eq!(read_all(&out, &m).len(), 60 - garbled.len());

    let strict = dir.path().join("strict.txt");
    let r = trace_cmd(&input, &engine, &strict, "1", &["--strict"]);
    assert_eq!(r.code, Some(1), "{}", r.stdout);
    let want = format!(
        "error: {}: position {}: engine `{engine}`: malformed answer",
        arg(&input),
        garbled[0]
    );
    assert!(r.stderr.contains(&want), "{}", r.stderr);
    assert!(!strict.exists());
}

/// An engine scoring from the side to move's view while its manifest says White's writes
/// traces whose `eval` is negated on exactly the black-to-move positions (so verification
/// fails there); one reporting the phase inverted writes `24 - phase`.
#[test]
fn wrong_sign_and_wrong_phase_show_in_the_traces() {
    let (Some(good), Some(sign), Some(phase)) = (
        misbehave("good"),
        misbehave("wrong-sign"),
        misbehave("wrong-phase"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = positions(dir.path(), 80);
    let m = trace_manifest_of(&good);
    let traced = |engine: &str, name: &str| {
        let out = dir.path().join(name);
        let r = trace_cmd(&input, engine, &out, "2", &[]);
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        read_all(&out, &m)
    };
    let (good, sign, phase) = (
        traced(&good, "good.txt"),
        traced(&sign, "sign.txt"),
        traced(&phase, "phase.txt"),
    );
    assert_eq!(good.len(), 80);
    let mut negated = 0;
    for ((g, s), p) in good.iter().zip(&sign).zip(&phase) {
        assert_eq!((&g.coeffs, g.phase), (&s.coeffs, s.phase));
        let (ge, se) = (g.eval.unwrap(), s.eval.unwrap());
        if g.white_to_move {
            assert_eq!(se, ge);
        } else {
            assert_eq!(se, -ge);
            negated += usize::from(ge != 0.0);
        }
        assert_eq!(p.phase, 24.0 - g.phase);
        assert_eq!(p.eval, g.eval);
        // The good engine's traces rebuild its eval; the wrong sign's do not, where it shows.
        let w = m.initial_weights();
        assert!((m.evaluate(g, &w).unwrap().round() - f64::from(ge)).abs() <= 1.0);
    }
    assert!(negated >= 10, "{negated}");
}

/// A weights header in the fixture's shape (what gradtune's C emission writes): each
/// parameter of `m` as a C array of `S(mg, eg)` pairs (plain ints when untapered) at `w`.
fn weights_header(m: &Manifest, w: &[f64]) -> String {
    let mut text = String::from(
        "#ifndef S\n#define S(mg, eg) ((int)((unsigned int)(eg) << 16) + (mg))\n#endif\n",
    );
    for p in m.params() {
        let per = if p.tapered { 2 } else { 1 };
        let values = &w[p.first_weight..p.first_weight + p.len() * per];
        let element = |k: usize| {
            if p.tapered {
                format!("S({}, {})", values[2 * k], values[2 * k + 1])
            } else {
                format!("{}", values[k])
            }
        };
        let dims: String = p.shape.iter().map(|d| format!("[{d}]")).collect();
        // Nested braces, innermost rows of the last dimension.
        let mut rows: Vec<String> = (0..p.len()).map(element).collect();
        for &d in p.shape.iter().rev() {
            rows = rows
                .chunks(d)
                .map(|c| format!("{{{}}}", c.join(", ")))
                .collect();
        }
        text += &format!("const int {}{dims} = {};\n", p.name, rows.join(", "));
    }
    text
}

/// Other weights compiled in (`-DWEIGHTS`, a header of the shape gradtune's C emission
/// writes) are what the fixture's manifest then says, and its traces rebuild its evaluation
/// at them: the manifest and the weights cannot drift.
#[test]
fn other_weights_compiled_in_are_what_its_manifest_says() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = compile_fixture(dir.path()) else {
        return;
    };
    let m0 = trace_manifest(&exe);
    let w: Vec<f64> = m0
        .initial_weights()
        .iter()
        .enumerate()
        .map(|(i, v)| v + ((i * 7919) % 21) as f64 - 10.0)
        .collect();
    let header = dir.path().join("tuned.h");
    std::fs::write(&header, weights_header(&m0, &w)).unwrap();
    let tuned = dir.path().join("tuned");
    let weights = format!("-DWEIGHTS=\"{}\"", header.display());
    tools::cc_fixture(&tuned, &["-O1", &weights]);
    let m1 = trace_manifest(&tuned);
    assert_eq!(m1.initial_weights(), w);

    let (input, samples) = positions(dir.path(), 100);
    let out = dir.path().join("tuned.txt");
    let r = trace_cmd(&input, arg(&tuned), &out, "2", &[]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let traces = read_all(&out, &m1);
    assert_eq!(traces.len(), 100);
    for t in &traces {
        let e = f64::from(t.eval.unwrap());
        let rebuilt = m1.evaluate(t, &w).unwrap();
        assert!(
            (rebuilt.round() - e).abs() <= 1.0,
            "{}: {rebuilt} {e}",
            t.fen()
        );
    }
    let before = fixture_evals(&exe, &samples);
    let after = fixture_evals(&tuned, &samples);
    let changed = before.iter().zip(&after).filter(|(a, b)| a != b).count();
    assert!(changed >= 90, "{changed} of 100 evaluations changed");
}

/// The first option the engine `exe` declares in the UCI handshake, with its default.
fn first_option(exe: &Path) -> (String, i64) {
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"uci\nquit\n")
        .unwrap();
    let out = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("option name "))
        .expect("the fixture declares options");
    let (name, rest) = line.split_once(" type spin default ").unwrap();
    let default = rest.split_whitespace().next().unwrap().parse().unwrap();
    (name.to_string(), default)
}

/// `--uci-option NAME=VALUE` reaches every engine process: the C fixture's weight set this way
/// changes its evals in the traces; a malformed one is refused, naming the flag and the text.
#[test]
fn uci_options_reach_the_traced_engine() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exe) = compile_fixture(dir.path()) else {
        return;
    };
    let (input, _) = positions(dir.path(), 40);
    let (name, default) = first_option(&exe);
    let evals = |out: &Path, extra: &[&str]| {
        let r = trace_cmd(&input, arg(&exe), out, "2", extra);
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        std::fs::read_to_string(out).unwrap()
    };
    let plain = evals(&dir.path().join("plain.txt"), &[]);
    let option = format!("{name}={}", default + 500);
    let set = evals(&dir.path().join("set.txt"), &["--uci-option", &option]);
    assert_eq!(plain.lines().count(), set.lines().count());
    assert_ne!(plain, set, "setting {option} changes the traces");

    let r = trace_cmd(
        &input,
        arg(&exe),
        &dir.path().join("bad.txt"),
        "1",
        &["--uci-option", "nope"],
    );
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("--uci-option takes NAME=VALUE, not `nope`"),
        "{}",
        r.stderr
    );
}
