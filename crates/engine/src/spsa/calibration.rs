//! Perturbations in evaluation units: each coordinate's `c_j` chosen from how much it moves
//! the evaluation of typical positions ([`Basis::calibrate`]), recorded ([`Calibration`]) and
//! applied again on resumption ([`Basis::apply_calibration`]).
//!
//! A coordinate's natural unit is one centipawn at the parameter it moves most, whatever that
//! parameter's coefficient in a position: a mobility weight multiplies a count difference of
//! up to ~27, a passed pawn on the seventh rank is rarely there at all. Perturbing both by the
//! same centipawns compares engines that differ by hundreds of centipawns in one term and by
//! nothing in the other. Calibrated, a coordinate's activity `a_j` (the RMS over positions of
//! the evaluation's change per unit of it, `sqrt(mean_i (sum_p amount_p dq_i/dw_p)^2)`,
//! measured elsewhere: the `engine` crate knows no positions) sets `c_j = c / a_j`, so each
//! perturbation moves a typical position's evaluation by `c` centipawns.
//!
//! ```
//! use engine::spsa::{Basis, BasisKind, Tunable};
//! let tunables = vec![Tunable::unbounded("mobility", 5.0), Tunable::unbounded("passer", 50.0)];
//! let mut basis = Basis::new(BasisKind::Each, &tunables, 20.0, false);
//! // mobility moves a typical evaluation by 10 cp per unit, passer by nothing measurable.
//! let cal = basis.calibrate(&tunables, &[10.0, 0.0], 2.0, 1000).unwrap();
//! assert_eq!(basis.directions[0].c, 1.0); // 2 cp / 10 would be 0.2: raised to a whole unit
//! assert_eq!(basis.directions[1].c, 20.0); // inactive: the ceiling, 2 cp / 0.1
//! assert_eq!(cal.directions[1].activity, 0.0);
//! ```

use serde::{Deserialize, Serialize};

use super::{Basis, SpsaError, Tunable};

/// The least activity a coordinate is taken to have, centipawns of evaluation per unit (RMS
/// over positions): as if it moved one position in a hundred by one centipawn. A coordinate
/// measured less active than this (absent from the positions, or too rare to measure) gets
/// the perturbation of this activity, `c / MIN_ACTIVITY` = `10·c`, not an enormous one that
/// would random-walk its weights far in the positions where it does matter.
pub const MIN_ACTIVITY: f64 = 0.1;

/// The least a calibrated perturbation moves the parameter a coordinate moves most, in that
/// parameter's units, when every parameter it moves is a whole number: an engine is sent its
/// weights rounded, so a smaller perturbation would often send both sides the same weights.
pub const MIN_WHOLE_MOVE: f64 = 1.0;

/// The calibration of a basis: what [`Basis::calibrate`] found and set (the file a stage
/// records when it begins, to apply again when it resumes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The target: centipawns of a typical position's evaluation per perturbation.
    pub c: f64,
    /// Positions the activities were measured on.
    pub positions: usize,
    /// Every coordinate, in the basis's order.
    pub directions: Vec<Calibrated>,
}

/// One coordinate's calibration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibrated {
    /// The coordinate's name.
    pub name: String,
    /// Its measured activity, centipawns of evaluation per unit (RMS over positions).
    pub activity: f64,
    /// The perturbation set, in the coordinate's units.
    pub c: f64,
}

/// The perturbation of a coordinate of activity `activity` for a target of `c` centipawns,
/// at least `floor` (in the coordinate's units).
pub fn calibrated_c(c: f64, activity: f64, floor: f64) -> f64 {
    (c / activity.max(MIN_ACTIVITY)).max(floor)
}

impl Basis {
    /// Sets every coordinate's perturbation from its measured `activity` (one per coordinate,
    /// centipawns of evaluation per unit, RMS over `positions` positions) so that it moves a
    /// typical position's evaluation by `c` centipawns: `c_j = c / max(a_j, MIN_ACTIVITY)`,
    /// and at least [`MIN_WHOLE_MOVE`] at the parameter moved most when every parameter the
    /// coordinate moves is a whole number (`tunables`, the basis's). Returns what was set.
    pub fn calibrate(
        &mut self,
        tunables: &[Tunable],
        activity: &[f64],
        c: f64,
        positions: usize,
    ) -> Result<Calibration, SpsaError> {
        if activity.len() != self.len() {
            return Err(SpsaError::Activities {
                activities: activity.len(),
                coordinates: self.len(),
            });
        }
        if !(c > 0.0 && c.is_finite()) {
            return Err(SpsaError::Scale { index: 0, value: c });
        }
        let mut directions = Vec::with_capacity(self.len());
        for (index, (d, &a)) in self.directions.iter_mut().zip(activity).enumerate() {
            if !(a >= 0.0 && a.is_finite()) {
                return Err(SpsaError::Activity { index, value: a });
            }
            let whole = d
                .entries
                .iter()
                .all(|&(i, _)| tunables.get(i).is_some_and(|t| t.integer));
            let top = d.entries.iter().map(|e| e.1.abs()).fold(0.0, f64::max);
            let floor = if whole && top > 0.0 {
                MIN_WHOLE_MOVE / top
            } else {
                0.0
            };
            d.c = calibrated_c(c, a, floor);
            directions.push(Calibrated {
                name: d.name.clone(),
                activity: a,
                c: d.c,
            });
        }
        Ok(Calibration {
            c,
            positions,
            directions,
        })
    }

    /// Sets the perturbations a [`Calibration`] recorded (a resumed run's), after checking that
    /// it names this basis's coordinates in order.
    pub fn apply_calibration(&mut self, calibration: &Calibration) -> Result<(), SpsaError> {
        let recorded = |i: usize| calibration.directions.get(i).map(|d| d.name.as_str());
        let basis = |i: usize| self.directions.get(i).map(|d| d.name.as_str());
        let n = self.len().max(calibration.directions.len());
        if let Some(index) = (0..n).find(|&i| recorded(i) != basis(i)) {
            return Err(SpsaError::Calibration {
                index,
                recorded: recorded(index).unwrap_or_default().to_string(),
                basis: basis(index).unwrap_or_default().to_string(),
            });
        }
        let pairs = self.directions.iter_mut().zip(&calibration.directions);
        for (index, (d, r)) in pairs.enumerate() {
            if !(r.c > 0.0 && r.c.is_finite()) {
                return Err(SpsaError::Scale { index, value: r.c });
            }
            d.c = r.c;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spsa::BasisKind;

    fn tunables() -> Vec<Tunable> {
        ["count1", "count10", "never"]
            .iter()
            .map(|n| Tunable::unbounded(n, 10.0))
            .collect()
    }

    #[test]
    fn perturbations_are_inverse_to_activity_with_a_ceiling_and_a_whole_unit_floor() {
        let t = tunables();
        let mut basis = Basis::new(BasisKind::Each, &t, 20.0, false);
        let cal = basis.calibrate(&t, &[1.0, 10.0, 0.0], 30.0, 7).unwrap();
        let c: Vec<f64> = basis.directions.iter().map(|d| d.c).collect();
        assert_eq!(c, [30.0, 3.0, 30.0 / MIN_ACTIVITY]);
        assert_eq!(cal.c, 30.0);
        assert_eq!(cal.positions, 7);
        assert_eq!(cal.directions[1].activity, 10.0);
        assert_eq!(cal.directions.iter().map(|d| d.c).collect::<Vec<_>>(), c);
        // Below a whole unit at the parameter moved most, raised to it (whole numbers only).
        basis.calibrate(&t, &[1.0, 100.0, 0.0], 30.0, 7).unwrap();
        assert_eq!(basis.directions[1].c, MIN_WHOLE_MOVE);
        let mut real = t.clone();
        real[1].integer = false;
        let mut basis = Basis::new(BasisKind::Each, &real, 20.0, false);
        basis.calibrate(&real, &[1.0, 100.0, 0.0], 30.0, 7).unwrap();
        assert_eq!(basis.directions[1].c, 0.3);
    }

    #[test]
    fn scale_is_calibrated_by_its_own_amounts() {
        // `scale` moves each weight by start/100 a unit: its floor is a whole centipawn at the
        // largest weight, 1 / (900/100) units.
        let t = vec![
            Tunable::unbounded("material.queen", 900.0),
            Tunable::unbounded("material.pawn", 100.0),
        ];
        let mut basis = Basis::new(BasisKind::Each, &t, 20.0, true);
        assert_eq!(basis.directions[2].name, "scale");
        basis.calibrate(&t, &[1.0, 1.0, 2.0], 2.0, 1).unwrap();
        assert_eq!(basis.directions[2].c, 1.0);
        basis.calibrate(&t, &[1.0, 1.0, 20.0], 2.0, 1).unwrap();
        assert_eq!(basis.directions[2].c, 1.0 / 9.0);
    }

    #[test]
    fn bad_activities_are_refused() {
        let t = tunables();
        let mut basis = Basis::new(BasisKind::Each, &t, 20.0, false);
        let e = basis.calibrate(&t, &[1.0, 2.0], 2.0, 1).unwrap_err();
        assert_eq!(e.to_string(), "2 activities for 3 coordinates");
        let e = basis
            .calibrate(&t, &[1.0, f64::NAN, 0.0], 2.0, 1)
            .unwrap_err();
        assert!(matches!(e, SpsaError::Activity { index: 1, .. }), "{e}");
        assert!(basis.calibrate(&t, &[1.0, -1.0, 0.0], 2.0, 1).is_err());
        assert!(basis.calibrate(&t, &[1.0, 1.0, 0.0], 0.0, 1).is_err());
    }

    #[test]
    fn a_recorded_calibration_is_applied_only_to_its_own_coordinates() {
        let t = tunables();
        let mut basis = Basis::new(BasisKind::Each, &t, 20.0, false);
        let mut cal = basis.calibrate(&t, &[1.0, 10.0, 0.0], 2.0, 5).unwrap();
        let mut fresh = Basis::new(BasisKind::Each, &t, 20.0, false);
        assert_ne!(fresh, basis);
        fresh.apply_calibration(&cal).unwrap();
        assert_eq!(fresh, basis);
        // Serialised and read back, the same.
        let back: Calibration =
            serde_json::from_str(&serde_json::to_string(&cal).unwrap()).unwrap();
        assert_eq!(back, cal);
        cal.directions[2].name = "other".into();
        let e = fresh.apply_calibration(&cal).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the calibration's coordinate 2 is `other`, the basis's `never`"
        );
        cal.directions.pop();
        let e = fresh.apply_calibration(&cal).unwrap_err();
        assert!(matches!(e, SpsaError::Calibration { index: 2, .. }), "{e}");
    }
}
