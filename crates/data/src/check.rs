//! [`warnings`]: data that loads but is too small or too one-sided to tune on.

use crate::Sample;

/// Fewer positions than this draw a warning: a few thousand positions cannot pin down the
/// hundreds of weights of even the smallest model.
pub const MIN_POSITIONS: usize = 5_000;

/// Warnings (each starting with `warning: `) about a training and validation set: fewer than
/// [`MIN_POSITIONS`] positions, an empty validation split although `valid_fraction > 0`, and
/// a set whose positions all have the same result (every game 1-0, say). Empty when all is
/// well. `tune stats` passes its one set as `train` with no validation.
///
/// ```
/// use data::{warnings, Sample};
/// use shakmaty::Chess;
///
/// let s: Vec<Sample> = (0..3).map(|g| Sample::from_position(&Chess::default(), 1.0, None, g)).collect();
/// let w = warnings(&s, &[], 0.1);
/// assert_eq!(w.len(), 3, "{w:?}");
/// assert!(w[0].contains("only 3 positions"));
/// assert!(w[1].contains("validation split is empty"));
/// assert!(w[2].contains("every position has the result 1-0"));
/// ```
pub fn warnings(train: &[Sample], valid: &[Sample], valid_fraction: f64) -> Vec<String> {
    let (mut t, mut v) = (Tally::default(), Tally::default());
    t.add(train);
    v.add(valid);
    tally_warnings(&t, &v, valid_fraction)
}

/// What [`warnings`] needs to know of one side of a split, counted batch by batch without
/// keeping the samples: positions, games, and whether they all share one result.
///
/// ```
/// use data::{check::Tally, Sample};
/// use shakmaty::Chess;
///
/// let s = |r, g| Sample::from_position(&Chess::default(), r, None, g);
/// let mut t = Tally::default();
/// t.add(&[s(1.0, 3), s(1.0, 3)]);
/// t.add(&[s(1.0, 4)]);
/// assert_eq!((t.positions(), t.games(), t.single_result()), (3, 2, Some(1.0)));
/// t.add(&[s(0.5, 3)]);
/// assert_eq!((t.positions(), t.games(), t.single_result()), (4, 2, None));
/// ```
#[derive(Clone, Debug, Default)]
pub struct Tally {
    positions: usize,
    /// Game ids seen, sorted and deduplicated up to `sorted`.
    games: Vec<u32>,
    sorted: usize,
    /// The first result, and whether another one differs.
    first: Option<f64>,
    mixed: bool,
}

impl Tally {
    /// Counts `samples`.
    pub fn add(&mut self, samples: &[Sample]) {
        self.positions += samples.len();
        for s in samples {
            match self.first {
                None => self.first = Some(s.result),
                Some(r) => self.mixed |= s.result != r,
            }
            if self.games.last() != Some(&s.game) {
                self.games.push(s.game);
            }
        }
        if self.games.len() > 2 * self.sorted + 4096 {
            self.compact();
        }
    }

    fn compact(&mut self) {
        self.games.sort_unstable();
        self.games.dedup();
        self.sorted = self.games.len();
    }

    /// Positions counted.
    pub fn positions(&self) -> usize {
        self.positions
    }

    /// Distinct games counted.
    pub fn games(&self) -> usize {
        let mut g = self.games.clone();
        g.sort_unstable();
        g.dedup();
        g.len()
    }

    /// The one result shared by every position, if there are positions and they share one.
    pub fn single_result(&self) -> Option<f64> {
        self.first.filter(|_| !self.mixed)
    }
}

/// [`warnings`] from the tallies of the training and validation samples.
pub fn tally_warnings(train: &Tally, valid: &Tally, valid_fraction: f64) -> Vec<String> {
    let mut out = Vec::new();
    let n = train.positions() + valid.positions();
    if n < MIN_POSITIONS {
        let split = if valid.positions() == 0 {
            String::new()
        } else {
            format!(
                " ({} training, {} validation)",
                train.positions(),
                valid.positions()
            )
        };
        out.push(format!(
            "warning: only {n} positions{split}: fewer than {MIN_POSITIONS} are too few to \
             tune hundreds of weights; the fit will follow these positions' noise"
        ));
    }
    if valid_fraction > 0.0 && valid.positions() == 0 && train.positions() > 0 {
        out.push(format!(
            "warning: the validation split is empty: holding out {valid_fraction} of {} games \
             left none, so the weights are kept by training loss without a held-out check \
             (give more games)",
            train.games()
        ));
    }
    let all = match (train.first, valid.first) {
        (Some(a), Some(b)) if a != b => None,
        _ => {
            let mut both = train.clone();
            both.mixed |= valid.mixed;
            both.first = both.first.or(valid.first);
            both.single_result()
        }
    };
    if let Some(r) = all {
        out.push(format!(
            "warning: every position has the result {} ({n} positions): the loss only pushes \
             every evaluation one way, and the tuned weights will mean little",
            result_name(r)
        ));
    } else {
        for (what, set) in [("training", train), ("validation", valid)] {
            if let Some(r) = set.single_result() {
                out.push(format!(
                    "warning: every {what} position has the result {} ({} positions)",
                    result_name(r),
                    set.positions()
                ));
            }
        }
    }
    out
}

fn result_name(r: f64) -> String {
    if r == 1.0 {
        "1-0".to_string()
    } else if r == 0.5 {
        "1/2-1/2".to_string()
    } else if r == 0.0 {
        "0-1".to_string()
    } else {
        format!("{r}")
    }
}
