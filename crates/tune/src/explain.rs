//! `tune explain`: the positions that pull a parameter hardest, the parameters most out of
//! line with their neighbours or their start, and the residuals against position properties.

use std::io::Write as _;

use texel::explain::{self, ExplainOptions};

use crate::eval::{Input, Judged};

/// Options of `tune explain`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: Input,
    /// Explain this parameter: the positions that pull it hardest (e.g. pst.queen.mg.b7).
    #[arg(long, value_name = "NAME")]
    param: Option<String>,
    /// How many positions (with --param) or parameters (without) to list.
    #[arg(long, default_value_t = 10, value_name = "N")]
    top: usize,
    /// Without --param: how many positions to list per parameter.
    #[arg(long, default_value_t = 3, value_name = "N")]
    positions: usize,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let judged = args.input.load()?;
    let opts = ExplainOptions {
        k: args.input.k,
        param: args.param,
        top: args.top,
        positions: args.positions,
    };
    let e = match &judged {
        Judged::Builtin(model, w, samples) => explain::explain(model, w, samples, &opts)?,
        Judged::Traced(traced, w, traces) => {
            texel::traced::explain_traces(traced, w, traces, &opts)?
        }
    };
    let out = if args.input.json {
        serde_json::to_string_pretty(&e)? + "\n"
    } else {
        e.to_text()
    };
    // Ignore a closed pipe (`tune explain ... | head`).
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
    Ok(())
}
