//! `tune stats` (not built yet: see the open issues).

/// Options of `tune stats`.
#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`tune stats` is not built yet")
}
