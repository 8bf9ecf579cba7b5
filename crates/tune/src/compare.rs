//! `tune compare` (not built yet: see the open issues).

/// Options of `tune compare`.
#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`tune compare` is not built yet")
}
