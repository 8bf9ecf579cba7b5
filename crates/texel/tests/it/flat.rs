//! Flat directions across several parameters (the manifest's `centre` in its `elements`
//! form): checked on the traces when the run loads them (a direction that is not flat is
//! refused, naming its entry), and centred after the fit without changing any evaluation.
//!
//! The synthetic engine: two piece types, each piece on the board adding its value
//! `material[p]`, one entry of its square table `pst[p][sq]` and one of its mobility table
//! `mob[p][k]`; each side's one king adds one entry of `king[sq]`. So a piece's square table
//! and mobility table moved together by `c` against `2 c` on its value are flat, a mobility
//! table alone against the value too, and the king's table alone (both sides always have one
//! king: the two entries cancel).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tapered::Stop;
use texel::finish::{finish, Polish};
use texel::setup::{prepare_as, SetupOptions, TraceOptions};
use texel::traced::Traced;
use trace::Manifest;

const FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The centrings every manifest here declares: the two tables of piece 1 into its value, the
/// mobility of piece 0 into its value, the rows of `pst` by the table form (piece 0's only),
/// the king's table into nothing.
const FLAT: &str = r#"[
    {"elements": ["pst[1]", "mob[1]"], "into": "material[1]", "scale": 2},
    {"elements": ["mob[0]"], "into": "material[0]"},
    {"table": "pst", "into": "material", "groups": [0]},
    {"elements": ["king"]}
  ]"#;

/// The manifest with these values (JSON text) and centrings.
fn manifest(material: &str, pst: &str, mob: &str, king: &str, centre: &str) -> String {
    format!(
        r#"{{"format": "gradtune-manifest", "version": 1, "engine": "flat2",
  "score": "white", "phase": {{"max": 24}},
  "params": [
    {{"name": "material", "shape": [2], "value": {material}}},
    {{"name": "pst", "shape": [2, 4], "value": {pst}}},
    {{"name": "mob", "shape": [2, 3], "value": {mob}}},
    {{"name": "king", "shape": [4], "value": {king}}}
  ],
  "centre": {centre}}}"#
    )
}

/// The true values: every table's mean far from 0.
fn truth(centre: &str) -> Manifest {
    let text = manifest(
        "[[80, 95], [310, 290]]",
        "[[[14, 9], [20, 3], [6, 17], [9, 9]], [[-12, 30], [-3, 22], [-20, 8], [-9, 15]]]",
        "[[[-30, -20], [0, 5], [25, 30]], [[40, 35], [55, 60], [70, 66]]]",
        "[[30, -10], [50, -5], [45, -20], [60, 0]]",
        centre,
    );
    Manifest::from_json(&text, "truth").unwrap()
}

/// The start manifest's text: material 100 and 300, tables 0.
fn start_text(centre: &str) -> String {
    let zero = |n: usize| format!("[{}]", vec!["[0, 0]"; n].join(", "));
    manifest(
        "[[100, 100], [300, 300]]",
        &format!("[{}, {}]", zero(4), zero(4)),
        &format!("[{}, {}]", zero(3), zero(3)),
        &zero(4),
        centre,
    )
}

/// Writes the start manifest declaring `centre` and `n` traces labelled at the true values;
/// returns (manifest, traces).
fn write(dir: &Path, n: usize, centre: &str) -> (PathBuf, PathBuf) {
    let truth = truth("[]");
    let start_text = start_text(centre);
    let start = Manifest::from_json(&start_text, "start").unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut text = String::new();
    // Trace indices: material 0-1, pst 2-9, mob 10-15, king 16-19.
    for i in 0..n {
        let mut coef = [[0i32; 2]; 20];
        // Counts by [element][side]: the side is the second index, so a range reads best.
        #[allow(clippy::needless_range_loop)]
        for side in 0..2 {
            for p in 0..2 {
                for _ in 0..rng.gen_range(0..=2) {
                    coef[p][side] += 1;
                    coef[2 + p * 4 + rng.gen_range(0..4)][side] += 1;
                    coef[10 + p * 3 + rng.gen_range(0..3)][side] += 1;
                }
            }
            coef[16 + rng.gen_range(0..4)][side] += 1;
        }
        let mut t = String::new();
        for (k, c) in coef.iter().enumerate().filter(|(_, c)| **c != [0, 0]) {
            let _ = write!(t, " {k}:{}:{}", c[0], c[1]);
        }
        let draft = format!(
            "{FEN} [0.5]; phase {}; game {}; t{t}",
            rng.gen_range(0..=24),
            i / 8
        );
        let tr = trace::parse_line(&draft, &start).unwrap().unwrap();
        let q: f64 = truth.evaluate(&tr, &truth.initial_weights()).unwrap();
        let e: f64 = start.evaluate(&tr, &start.initial_weights()).unwrap();
        let label = 1.0 / (1.0 + 10f64.powf(-q / 400.0));
        let line = draft.replace("[0.5]", &format!("[{label:.12}]"));
        let _ = writeln!(text, "{line}; eval {}", e.round());
    }
    let (m, tr) = (dir.join("manifest.json"), dir.join("traces.txt"));
    std::fs::write(&m, start_text).unwrap();
    std::fs::write(&tr, text).unwrap();
    (m, tr)
}

fn options(m: &Path, t: &Path) -> SetupOptions<TraceOptions> {
    crate::fixture::run_options(m, t, None)
}

/// The mean of the weights `names` (per phase: `.mg` or `.eg` appended).
fn mean(m: &Manifest, w: &[f64], names: &[String], phase: &str) -> f64 {
    let sum: f64 = names
        .iter()
        .map(|n| w[m.index_of(&format!("{n}{phase}")).unwrap()])
        .sum();
    sum / names.len() as f64
}

fn elements(param: &str, row: Option<usize>, n: usize) -> Vec<String> {
    (0..n)
        .map(|k| match row {
            Some(r) => format!("{param}[{r}][{k}]"),
            None => format!("{param}[{k}]"),
        })
        .collect()
}

#[test]
fn a_flat_direction_across_two_tables_is_centred_and_no_evaluation_changes() {
    let dir = tempfile::tempdir().unwrap();
    let (m, t) = write(dir.path(), 3000, FLAT);
    let setup = prepare_as::<Traced>(&options(&m, &t), Stop::Never).unwrap();
    let manifest = &setup.model.manifest;
    // A point off the centre: fractional values, every table's mean far from 0.
    let mut w = setup.start.clone();
    for (k, v) in w.iter_mut().enumerate() {
        *v += 7.3 + 0.37 * k as f64;
    }
    let (wc, _, r) = finish(&setup.model, &setup.train, &w, &Polish::default());
    // The sets' means are 0 after centring, phase by phase.
    let both: Vec<String> = elements("pst", Some(1), 4)
        .into_iter()
        .chain(elements("mob", Some(1), 3))
        .collect();
    for set in [
        both,
        elements("mob", Some(0), 3),
        elements("pst", Some(0), 4),
        elements("king", None, 4),
    ] {
        for phase in [".mg", ".eg"] {
            assert!(mean(manifest, &w, &set, phase).abs() > 5.0);
            let after = mean(manifest, &wc, &set, phase);
            assert!(after.abs() < 1e-9, "{set:?}{phase}: mean {after}");
        }
    }
    // The value took twice the two tables' mean; the king's mean went nowhere.
    let into = manifest.index_of("material[1].mg").unwrap();
    let moved = r
        .centred
        .iter()
        .find(|c| c.from == "pst[1] + mob[1].mg")
        .expect("the two tables' set");
    assert_eq!(moved.into, "material[1].mg");
    assert!((moved.added - 2.0 * moved.mean).abs() < 1e-12);
    assert!((wc[into] - w[into] - moved.added).abs() < 1e-9);
    let king = r.centred.iter().find(|c| c.from == "king.eg").unwrap();
    assert_eq!((king.into.as_str(), king.added), ("", 0.0));
    assert!(r.to_text().contains("king.eg") && r.to_text().contains("(into nothing)"));
    assert_eq!(r.centred.len(), 8);
    // No evaluation changed: every position's, not only the loss.
    let set = setup.train.set();
    let (mut a, mut b) = (vec![0.0; set.len()], vec![0.0; set.len()]);
    set.scores(&w, &mut a);
    set.scores(&wc, &mut b);
    for (x, y) in a.iter().zip(&b) {
        assert!((x - y).abs() < 1e-9 * x.abs().max(1.0), "{x} -> {y}");
    }
    assert!(r.centring_change.abs() <= 1e-12 * setup.train.data_loss(&w));
}

#[test]
fn a_direction_that_is_not_flat_is_refused_naming_its_entry() {
    for (bad, names) in [
        // The wrong piece's value.
        (
            r#"{"elements": ["mob[1]"], "into": "material[0]"}"#,
            "`mob[1].mg -> material[0].mg`",
        ),
        // Two tables against the value at the scale of one.
        (
            r#"{"elements": ["pst[1]", "mob[1]"], "into": "material[1]"}"#,
            "`pst[1] + mob[1].mg -> material[1].mg`",
        ),
        // A table that only one side's pieces read.
        (r#"{"elements": ["pst[0]"]}"#, "`pst[0].mg`"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let centre = FLAT.replacen("[\n", &format!("[\n    {bad},\n"), 1);
        let (m, t) = write(dir.path(), 400, &centre);
        let Err(err) = prepare_as::<Traced>(&options(&m, &t), Stop::Never) else {
            panic!("refused");
        };
        let msg = err.to_string();
        assert!(msg.contains("manifest.json: centre[0]"), "{msg}");
        assert!(msg.contains(names), "{msg}");
        assert!(msg.contains("not on the traces"), "{msg}");
    }
}
