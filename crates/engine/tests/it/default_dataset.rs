//! The embedded default dataset (`data/default.gtc.zst`, made by `tune datagen`; see
//! `data/README.md`) reads back through the data crate.

use std::path::Path;

#[test]
fn default_dataset_loads() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/default.gtc.zst");
    let size = std::fs::metadata(&path)
        .expect("data/default.gtc.zst")
        .len();
    assert!(size < 15 << 20, "{size} bytes");
    let (samples, report) = data::load(&path, &data::LoadOptions::default()).unwrap();
    assert_eq!(samples.len(), 220_834);
    assert_eq!(report.kept, samples.len() as u64);
    let games = samples.iter().map(|s| s.game).max().unwrap() + 1;
    assert_eq!(games, 2200);
    assert!(samples.iter().all(|s| [0.0, 0.5, 1.0].contains(&s.result)));
    assert!(samples.iter().all(|s| s.score.is_some()));
    // Spot-check that positions unpack.
    for s in samples.iter().step_by(997) {
        s.position().unwrap();
    }
}
