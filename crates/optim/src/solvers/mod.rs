//! The optimisers. Each is an argmin [`Solver`](argmin::core::Solver) (L-BFGS and particle
//! swarm are argmin's own; Gauss-Newton, Adam and local search are ours), driven by
//! [`run`](crate::run) through one interface.

pub mod adam;
pub mod gauss_newton;
pub mod hybrid;
pub mod lbfgs;
pub mod local;
pub mod pso;

pub use adam::{Adam, AdamOptions};
pub use gauss_newton::{GaussNewton, GaussNewtonOptions};
pub use hybrid::HybridOptions;
pub use lbfgs::LbfgsOptions;
pub use local::{LocalOptions, LocalSearch};
pub use pso::PsoOptions;
