//! `tune datagen` (not built yet: see the open issues).

/// Options of `tune datagen`.
#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`tune datagen` is not built yet")
}
