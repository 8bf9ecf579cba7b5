//! The progress bars of the libraries' long work: `optim` and `texel` report through an
//! [`tapered::Progress`] callback ([`ProgressEvent`]s), and this draws them with indicatif, one
//! bar at a time, on standard error.

use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use tapered::{Progress, ProgressEvent};

/// The callback that draws the events as bars; [`Progress::none`] when `show` is false.
pub fn bars(show: bool) -> Progress {
    if !show {
        return Progress::none();
    }
    let bar: Mutex<Option<ProgressBar>> = Mutex::new(None);
    Progress::new(move |e| {
        let Ok(mut bar) = bar.lock() else {
            return;
        };
        draw(&mut bar, e);
    })
}

/// One event on the bar under way (`None`: no bar).
fn draw(bar: &mut Option<ProgressBar>, e: ProgressEvent<'_>) {
    match e {
        ProgressEvent::Run { name, max_iters } => {
            let pb = match max_iters {
                Some(m) => ProgressBar::new(m),
                None => ProgressBar::new_spinner(),
            };
            pb.set_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {prefix} iter {pos}: {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            pb.set_prefix(name.to_string());
            pb.enable_steady_tick(Duration::from_millis(200));
            *bar = Some(piped(pb));
        }
        ProgressEvent::Begin { what, len } => {
            // A length of 0 is an unknown one: a count without a bar.
            let (pb, template) = match len {
                0 => (
                    ProgressBar::new_spinner(),
                    "{spinner} {prefix} {pos} {elapsed}",
                ),
                _ => (
                    ProgressBar::new(len),
                    "{spinner} {prefix} [{bar:30}] {pos}/{len} {elapsed}",
                ),
            };
            pb.set_style(
                ProgressStyle::with_template(template)
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            pb.set_prefix(what.to_string());
            *bar = Some(piped(pb));
        }
        ProgressEvent::Advance(n) => {
            if let Some(pb) = bar {
                pb.inc(n);
            }
        }
        ProgressEvent::Iteration { iter, message } => {
            if let Some(pb) = bar {
                pb.set_position(iter);
                pb.set_message(message.to_string());
            }
        }
        ProgressEvent::Message(message) => {
            if let Some(pb) = bar {
                pb.set_message(message.to_string());
            }
        }
        ProgressEvent::Note(text) => match bar {
            // Above the bar; on standard error when the bar is not drawn (not a terminal).
            Some(pb) if !pb.is_hidden() => pb.println(text),
            _ => eprintln!("{text}"),
        },
        ProgressEvent::End => {
            if let Some(pb) = bar.take() {
                pb.finish_and_clear();
            }
        }
        _ => {}
    }
}

/// A progress bar counting games (with plain lines when not drawn: [`piped`]).
pub fn games_bar(len: u64) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games, eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message("games");
    piped(bar)
}

/// How many skipped positions an engine run names before it only counts them.
const SKIPPED_SHOWN: usize = 10;

/// The bar of an engine run over positions (`tune label`, `tune trace`): positions answered,
/// the first [`SKIPPED_SHOWN`] skipped ones named, the rest counted.
pub struct EngineRunBar {
    bar: ProgressBar,
    skipped: usize,
    /// What the earlier run did to a position ("labelled", "traced").
    done: &'static str,
}

impl EngineRunBar {
    /// A hidden bar until the run starts; `done` says what a finished position was.
    pub fn new(done: &'static str) -> Self {
        let bar = piped(ProgressBar::hidden().with_prefix("positions"));
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:40} {pos}/{len} positions, {per_sec}, eta {eta} {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        EngineRunBar {
            bar,
            skipped: 0,
            done,
        }
    }

    /// Draws one event of the run.
    pub fn on_event(&mut self, e: engine::play::runner::RunEvent<'_>) {
        use engine::play::runner::RunEvent;
        match e {
            RunEvent::Started { remaining, done } => {
                if done > 0 {
                    eprintln!(
                        "continuing: {done} positions were {} by an earlier run, {remaining} to go",
                        self.done
                    );
                }
                self.bar.set_length(remaining as u64);
                self.bar
                    .set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
            RunEvent::Answered { .. } => self.bar.inc(1),
            RunEvent::Skipped { location, error } => {
                self.skipped += 1;
                self.bar.inc(1);
                self.bar.set_message(format!("({} skipped)", self.skipped));
                if self.skipped <= SKIPPED_SHOWN {
                    self.bar
                        .suspend(|| eprintln!("skipped {location}: {error} (engine restarted)"));
                }
            }
        }
    }

    /// Clears the bar and counts the skipped positions it did not name.
    pub fn finish(self) {
        self.bar.finish_and_clear();
        if self.skipped > SKIPPED_SHOWN {
            eprintln!(
                "... and {} more skipped positions",
                self.skipped - SKIPPED_SHOWN
            );
        }
    }
}

/// The summary of a finished engine run: `done` what a position had done to it ("traced",
/// "labelled"), `how` the engine's command and any detail (its `go` command).
///
/// Then where the output went (`output`, `detail` said after its counts) or that nothing was
/// written, and the progress file kept for a rerun.
pub fn engine_run_summary(
    done: &str,
    how: &str,
    out: &engine::play::runner::RunOutcome,
    jobs: usize,
    (output, detail): (&std::path::Path, &str),
) {
    println!(
        "{done} {} position{} with {how} in {:.1} s: {:.1} positions/s with {} engine{}",
        out.answered,
        if out.answered == 1 { "" } else { "s" },
        out.elapsed.as_secs_f64(),
        out.rate(),
        jobs.min(out.positions.max(1)),
        if jobs == 1 { "" } else { "s" }
    );
    if out.resumed > 0 {
        println!("{} positions were {done} by an earlier run", out.resumed);
    }
    if !out.skipped.is_empty() {
        println!(
            "skipped {} positions after an engine failure (left out of the output)",
            out.skipped.len()
        );
    }
    if out.written {
        println!(
            "wrote {} ({} of {} positions{detail})",
            output.display(),
            out.positions - out.skipped.len(),
            out.positions
        );
    } else {
        println!(
            "interrupted: nothing written to {}; run the same command to continue",
            output.display()
        );
    }
    if let Some(p) = &out.progress {
        println!(
            "progress kept in {}{}",
            p.display(),
            if out.written {
                " (rerun the same command to retry the skipped positions)"
            } else {
                ""
            }
        );
    }
}

/// Seconds between the plain progress lines of a bar whose standard error is not a terminal
/// (`GRADTUNE_PROGRESS_SECS` overrides, e.g. `5`; `0` turns the lines off).
pub const PIPED_EVERY_SECS: f64 = 30.0;

/// `bar`, and when standard error is not a terminal (output piped to a file or a CI log, where
/// indicatif draws nothing), a thread that prints one plain line about it every
/// [`PIPED_EVERY_SECS`] while it runs and one when it finishes: `[elapsed] prefix message
/// pos/len (percent), eta ...`. A bar dropped without finishing ends its lines silently.
pub fn piped(bar: ProgressBar) -> ProgressBar {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        return bar;
    }
    let every = piped_every();
    if every <= 0.0 {
        return bar;
    }
    let weak = bar.downgrade();
    let started = std::time::Instant::now();
    std::thread::spawn(move || {
        let tick = Duration::from_secs_f64(every.min(0.25));
        let mut last = std::time::Instant::now();
        loop {
            std::thread::sleep(tick);
            let Some(bar) = weak.upgrade() else {
                return;
            };
            let finished = bar.is_finished();
            if finished || last.elapsed().as_secs_f64() >= every {
                eprintln!("{}", piped_line(&bar, started.elapsed(), finished));
                last = std::time::Instant::now();
            }
            if finished {
                return;
            }
        }
    });
    bar
}

/// The interval of [`piped`]'s lines, in seconds.
fn piped_every() -> f64 {
    std::env::var("GRADTUNE_PROGRESS_SECS")
        .ok()
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite())
        .unwrap_or(PIPED_EVERY_SECS)
}

/// One plain line about `bar`.
fn piped_line(bar: &ProgressBar, elapsed: Duration, finished: bool) -> String {
    let secs = elapsed.as_secs();
    let mut line = format!(
        "[{:02}:{:02}:{:02}]",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    for part in [bar.prefix(), bar.message()] {
        if !part.is_empty() {
            line += " ";
            line += &part;
        }
    }
    let pos = bar.position();
    match bar.length().filter(|&n| n > 0) {
        Some(len) => {
            line += &format!(" {pos}/{len} ({:.0}%)", 100.0 * pos as f64 / len as f64);
            if finished {
                line += ", done";
            } else if pos > 0 {
                let left = elapsed.as_secs_f64() * (len.saturating_sub(pos)) as f64 / pos as f64;
                line += &format!(
                    ", eta {}",
                    indicatif::HumanDuration(Duration::from_secs_f64(left))
                );
            }
        }
        None => {
            line += &format!(" {pos}");
            if finished {
                line += ", done";
            }
        }
    }
    line
}
