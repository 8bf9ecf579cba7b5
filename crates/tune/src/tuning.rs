//! The tuning subcommands (not built yet: see the open issues).

/// Which optimiser a tuning run uses.
#[derive(Clone, Copy, Debug)]
pub enum Method {
    Lbfgs,
    GaussNewton,
    Adam,
    Local,
    Pso,
    Hybrid,
}

/// Options shared by every tuning subcommand.
#[derive(clap::Args)]
pub struct Args {}

pub fn run(method: Method, _args: Args) -> anyhow::Result<()> {
    anyhow::bail!("tuning with {method:?} is not built yet")
}
