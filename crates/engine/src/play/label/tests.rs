//! Unit tests of labelling: the progress file's header keeps its format.

use std::time::Duration;

use super::{header_lines, LabelSettings};
use crate::play::uci_client::EngineSpec;
use crate::search::limits::SearchLimits;

#[test]
fn the_header_names_the_engine_search_and_freshness() {
    let settings = LabelSettings {
        engine: EngineSpec::new("engine --flag"),
        limits: SearchLimits::depth(5),
        timeout: Duration::from_secs(1),
        jobs: 1,
        fresh: true,
    };
    assert_eq!(
        header_lines(&settings, "go depth 5"),
        "engine engine --flag\ngo depth 5\nfresh true\n"
    );
}
