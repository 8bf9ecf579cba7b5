//! `tune bench` (not built yet: see the open issues).

/// Options of `tune bench`.
#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`tune bench` is not built yet")
}
