//! The run: split, `K`, each group alone, the control, the greedy forward selection.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use eval::catalogue::{self, Group};
use optim::{fit_k_scores, Link};
use tapered::{ProgressEvent, Stop};

use super::features::Features;
use super::fit::{design, differences, fit};
use super::options::{check, groups_named, DiscoverOptions};
use super::positions::Positions;
use super::report::{Chosen, Discovery, GroupResult, SplitCounts, Step};
use super::stats::{clustered, holm, Gain};
use crate::TexelError;

/// A group's counts on the training and the held-out positions.
type Pair = Arc<(Features, Features)>;

/// Each group's parameters fitted alone, by name.
type Thetas = HashMap<String, Vec<f64>>;

/// The split positions, the link and the counts kept.
struct Run<'a> {
    train: Positions,
    valid: Positions,
    link: Link,
    opts: &'a DiscoverOptions,
    cache: HashMap<&'static str, Pair>,
    cached_bytes: usize,
}

impl Run<'_> {
    /// `group`'s counts, from the cache or computed (and kept while under the budget).
    fn features(&mut self, group: &'static Group) -> Pair {
        if let Some(p) = self.cache.get(group.name) {
            return p.clone();
        }
        let p = Arc::new((
            Features::extract(group, &self.train.boards),
            Features::extract(group, &self.valid.boards),
        ));
        let bytes = p.0.bytes() + p.1.bytes();
        if self.cached_bytes + bytes <= self.opts.cache_bytes {
            self.cached_bytes += bytes;
            self.cache.insert(group.name, p.clone());
        }
        p
    }

    /// Fits `chosen` (with their counts) jointly on the training positions and measures the
    /// held-out gain over `reference` (the chosen before, with their parameters).
    fn try_groups(
        &self,
        chosen: &[(&Group, Pair)],
        reference: (&[(&Group, Pair)], &[f64]),
        stop: Stop,
    ) -> Result<(Gain, Vec<f64>), TexelError> {
        let sizes: Vec<usize> = chosen.iter().map(|c| c.0.len()).collect();
        let train: Vec<&Features> = chosen.iter().map(|c| &c.1 .0).collect();
        // Warm start: the groups chosen before at their values.
        let start = reference.1;
        let theta = fit(
            &self.train,
            &train,
            &sizes,
            self.link,
            self.opts.l2,
            start,
            stop,
        )?;
        let valid: Vec<&Features> = chosen.iter().map(|c| &c.1 .1).collect();
        let ref_sizes: Vec<usize> = reference.0.iter().map(|c| c.0.len()).collect();
        let ref_valid: Vec<&Features> = reference.0.iter().map(|c| &c.1 .1).collect();
        let d = differences(
            (&design(&self.valid, &ref_valid, &ref_sizes), reference.1),
            (&design(&self.valid, &valid, &sizes), &theta),
            self.link,
        );
        Ok((clustered(&d, &self.valid.game), theta))
    }

    /// One group alone over the base: its result (significance decided later).
    fn alone(
        &self,
        name: String,
        group: &Group,
        pair: Pair,
        stop: Stop,
    ) -> Result<(GroupResult, Vec<f64>), TexelError> {
        let (gain, theta) = self.try_groups(&[(group, pair)], (&[], &[]), stop)?;
        let mut notes = Vec::new();
        if self.opts.in_model.iter().any(|m| m == group.name) {
            notes.push("already in the model".to_string());
        }
        let r = GroupResult {
            name,
            elements: group.len(),
            gain,
            significant: false,
            notes,
            values: values(group, &theta),
        };
        Ok((r, theta))
    }
}

/// The fitted values by element name.
fn values(group: &Group, theta: &[f64]) -> BTreeMap<String, [f64; 2]> {
    group
        .elements
        .iter()
        .enumerate()
        .map(|(e, name)| (name.clone(), [theta[2 * e], theta[2 * e + 1]]))
        .collect()
}

/// The whole run on `positions` (split here), asking `stop` between fits and passes.
pub fn discover(
    positions: &Positions,
    opts: &DiscoverOptions,
    stop: Stop,
) -> Result<Discovery, TexelError> {
    opts.check()?;
    let groups = groups_named(&opts.groups)?;
    let (train, valid) = positions.split(opts.valid_fraction, opts.seed);
    if train.is_empty() || valid.is_empty() {
        return Err(TexelError::Config(format!(
            "discover needs training and held-out positions: {} and {} after the split \
             (--valid-fraction {})",
            train.len(),
            valid.len(),
            opts.valid_fraction
        )));
    }
    let y: Vec<f64> = train.result.iter().map(|&r| f64::from(r)).collect();
    let k = fit_k_scores(&train.base, &y, Link::texel(1.0)).0;
    let link = Link::texel(k);
    let mut run = Run {
        train,
        valid,
        link,
        opts,
        cache: HashMap::new(),
        cached_bytes: 0,
    };
    let (ranked, thetas) = rank_alone(&mut run, &groups, stop)?;
    let controls = control(&mut run, &ranked, stop)?;
    let (greedy, chosen) = greedy(&mut run, &groups, &ranked, &thetas, stop)?;
    Ok(Discovery {
        model: opts.model.clone(),
        k,
        l2: opts.l2,
        level: opts.level,
        correction: "Holm over the groups tried; Bonferroni at each greedy step".to_string(),
        valid_fraction: opts.valid_fraction,
        seed: opts.seed,
        split: SplitCounts {
            train_positions: run.train.len(),
            train_games: run.train.games(),
            held_out_positions: run.valid.len(),
            held_out_games: run.valid.games(),
        },
        base_loss: base_loss(&run.valid, link),
        groups: ranked,
        controls,
        greedy,
        chosen,
    })
}

/// The mean held-out loss of the base.
fn base_loss(valid: &Positions, link: Link) -> f64 {
    let n = valid.len().max(1) as f64;
    let total: f64 = (0..valid.len())
        .map(|i| link.loss_value(valid.base[i], f64::from(valid.result[i])))
        .sum();
    total / n
}

/// Every group alone, ranked by gain, significant by Holm; with each one's parameters by name.
fn rank_alone(
    run: &mut Run,
    groups: &[&'static Group],
    stop: Stop,
) -> Result<(Vec<GroupResult>, Thetas), TexelError> {
    let progress = run.opts.progress.clone();
    progress.send(ProgressEvent::Begin {
        what: "groups",
        len: groups.len() as u64,
    });
    let mut results = Vec::new();
    let mut thetas = HashMap::new();
    for g in groups {
        check(stop)?;
        let pair = run.features(g);
        let (r, theta) = run.alone(g.name.to_string(), g, pair, stop)?;
        progress.send(ProgressEvent::Note(&format!(
            "{}: held-out gain {:.2} ± {:.2} (1e-6), z {:.2}",
            g.name,
            r.gain.gain * 1e6,
            r.gain.se * 1e6,
            r.gain.z
        )));
        progress.advance(1);
        thetas.insert(g.name.to_string(), theta);
        results.push(r);
    }
    progress.end();
    let p: Vec<f64> = results.iter().map(|r| r.gain.p).collect();
    for (r, s) in results.iter_mut().zip(holm(&p, run.opts.level)) {
        r.significant = s;
    }
    results.sort_by(|a, b| b.gain.gain.total_cmp(&a.gain.gain));
    Ok((results, thetas))
}

/// The control: the strongest group's counts shuffled over the positions (a seeded
/// permutation on each side), fitted and judged as the groups are, at `level / groups`.
fn control(
    run: &mut Run,
    ranked: &[GroupResult],
    stop: Stop,
) -> Result<Vec<GroupResult>, TexelError> {
    let Some(best) = ranked.first().and_then(|r| catalogue::find(&r.name)) else {
        return Ok(Vec::new());
    };
    let pair = run.features(best);
    let seed = run.opts.seed;
    let shuffled = Arc::new((
        pair.0.shuffled(seed ^ 0x5eed),
        pair.1.shuffled((seed ^ 0x5eed) + 1),
    ));
    let name = format!("control: shuffled {}", best.name);
    let (mut r, _) = run.alone(name, best, shuffled, stop)?;
    r.notes = vec!["control".to_string()];
    r.significant = r.gain.p <= run.opts.level / ranked.len().max(1) as f64;
    Ok(vec![r])
}

/// The greedy forward selection. Step 1 is the ranking's best; each later step refits the
/// chosen groups jointly with each remaining one. Returns the steps and the groups added with
/// their joint values.
fn greedy(
    run: &mut Run,
    groups: &[&'static Group],
    ranked: &[GroupResult],
    thetas: &Thetas,
    stop: Stop,
) -> Result<(Vec<Step>, Vec<Chosen>), TexelError> {
    let mut steps = Vec::new();
    let mut chosen: Vec<(&Group, Pair)> = Vec::new();
    let mut chosen_theta: Vec<f64> = Vec::new();
    let level = run.opts.level;
    while steps.len() < run.opts.select && chosen.len() < groups.len() {
        let remaining: Vec<&'static Group> = groups
            .iter()
            .copied()
            .filter(|g| !chosen.iter().any(|c| c.0.name == g.name))
            .collect();
        if remaining.is_empty() {
            break;
        }
        let threshold = level / remaining.len() as f64;
        let best = if chosen.is_empty() {
            let r = ranked
                .iter()
                .max_by(|a, b| order(&a.gain, &b.gain, threshold))
                .ok_or_else(|| TexelError::Config("no group to rank".to_string()))?;
            let g = catalogue::find(&r.name).ok_or_else(|| TexelError::Config(r.name.clone()))?;
            (g, r.gain, thetas.get(&r.name).cloned().unwrap_or_default())
        } else {
            best_addition(run, &chosen, &chosen_theta, &remaining, threshold, stop)?
        };
        let added = significant(&best.1, threshold);
        steps.push(Step {
            step: steps.len() + 1,
            group: best.0.name.to_string(),
            gain: best.1,
            threshold,
            candidates: remaining.len(),
            added,
        });
        if !added {
            break;
        }
        let pair = run.features(best.0);
        chosen.push((best.0, pair));
        chosen_theta = best.2;
    }
    let mut at = 0;
    let mut joint = Vec::with_capacity(chosen.len());
    for (g, _) in &chosen {
        let end = at + 2 * g.len();
        let theta = chosen_theta.get(at..end).ok_or_else(|| {
            TexelError::Config(format!("the joint fit has no values for `{}`", g.name))
        })?;
        joint.push(Chosen {
            group: g.name.to_string(),
            values: values(g, theta),
        });
        at = end;
    }
    Ok((steps, joint))
}

/// Whether a greedy step's gain is significant at its Bonferroni `threshold`.
fn significant(g: &Gain, threshold: f64) -> bool {
    g.p <= threshold && g.gain > 0.0
}

/// How a greedy step orders two candidates: a significant one before any other (a group whose
/// gain is sure beats a larger gain that may be noise), then by gain. So the step adds the
/// significant candidate that gains most, and stops only when none is significant.
fn order(a: &Gain, b: &Gain, threshold: f64) -> std::cmp::Ordering {
    let sure = |g: &Gain| significant(g, threshold);
    sure(a).cmp(&sure(b)).then(a.gain.total_cmp(&b.gain))
}

/// The remaining group whose joint refit with `chosen` comes first by [`order`]: the
/// significant one that gains most over them, else the one that gains most.
fn best_addition(
    run: &mut Run,
    chosen: &[(&'static Group, Pair)],
    chosen_theta: &[f64],
    remaining: &[&'static Group],
    threshold: f64,
    stop: Stop,
) -> Result<(&'static Group, Gain, Vec<f64>), TexelError> {
    let progress = run.opts.progress.clone();
    progress.send(ProgressEvent::Begin {
        what: "greedy step",
        len: remaining.len() as u64,
    });
    let mut best: Option<(&'static Group, Gain, Vec<f64>)> = None;
    for g in remaining {
        check(stop)?;
        let mut with: Vec<(&Group, Pair)> = chosen.to_vec();
        with.push((g, run.features(g)));
        let (gain, theta) = run.try_groups(&with, (chosen, chosen_theta), stop)?;
        progress.advance(1);
        if best
            .as_ref()
            .is_none_or(|b| order(&gain, &b.1, threshold).is_gt())
        {
            best = Some((g, gain, theta));
        }
    }
    progress.end();
    best.ok_or_else(|| TexelError::Config("no group left to add".to_string()))
}
