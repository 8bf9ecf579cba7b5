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
            *bar = Some(pb);
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
            *bar = Some(pb);
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

/// A progress bar counting games.
pub fn games_bar(len: u64) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games, eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
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
        let bar = ProgressBar::hidden();
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
    pub fn on_event(&mut self, e: engine::runner::RunEvent<'_>) {
        use engine::runner::RunEvent;
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
    out: &engine::runner::RunOutcome,
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
