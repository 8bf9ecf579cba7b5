//! The positions an engine run reads (`tune label`, `tune trace`), loaded with the skipped
//! records reported.

use std::path::PathBuf;

use data::LoadOptions;
use engine::play::runner::PositionInput;

/// The positions of `files`, reporting skipped records.
pub fn load_input(files: &[PathBuf], stm_results: bool) -> anyhow::Result<PositionInput> {
    let opts = LoadOptions {
        stm_results,
        ..LoadOptions::default()
    };
    let (input, reports) = PositionInput::load(files, &opts)?;
    for (path, report) in &reports {
        if report.errors > 0 {
            eprintln!(
                "{}: {} records skipped as malformed (first: {})",
                path.display(),
                report.errors,
                report.messages.first().map_or("", String::as_str)
            );
        }
    }
    Ok(input)
}
