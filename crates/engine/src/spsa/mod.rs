//! SPSA on games (`tune spsa`): the last Elo Texel's loss cannot see.
//!
//! Texel's gradient gets an evaluation close in seconds, but the loss is flat along directions
//! the search feels. SPSA ([`Spsa`], in `approximation.rs`) measures those directions with games: each
//! iteration plays game pairs (both colours, the same opening) between two perturbed copies of
//! the weights and moves toward the one that scored better.
//!
//! * [`Spsa`]: the stochastic approximation itself (Spall 1992), which sees only comparisons
//!   of two points: its gains ([`Gains`]), probes ([`Probe`]) and resumable state
//!   ([`SpsaState`]); it knows no games.
//! * [`Subject`]: who plays: gradtune's search over a model's weights, or an external engine
//!   through its UCI spin options (all it declares, a selection, or a traced engine's
//!   manifest's weights), each a [`Tunable`].
//! * [`Basis`]: the coordinates SPSA moves, one per tunable or a few shapes per table.
//! * [`Calibration`]: each coordinate's perturbation in evaluation units, from its activity on
//!   positions measured elsewhere ([`Basis::calibrate`]).
//! * [`run_spsa`]: the iterations, with a checkpoint after each; resumable exactly.

mod approximation;
mod basis;
mod calibration;
mod run;
mod subject;

pub use approximation::{Gains, Probe, Spsa, SpsaError, SpsaState};
pub use basis::{Basis, BasisKind, Direction, SCALE_C};
pub use calibration::{calibrated_c, Calibrated, Calibration, MIN_ACTIVITY, MIN_WHOLE_MOVE};
pub use run::{comparison, run_spsa, OpeningSource, SpsaEnd, SpsaEvent, SpsaPlan};
pub use subject::{Subject, Tunable};
