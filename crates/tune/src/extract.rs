//! `tune extract` (not built yet: see the open issues).

/// Options of `tune extract`.
#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`tune extract` is not built yet")
}
