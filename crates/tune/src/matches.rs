//! `tune matches` (not built yet: see the open issues).

/// Options of `tune matches`.
#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`tune matches` is not built yet")
}
