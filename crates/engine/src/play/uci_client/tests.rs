//! Unit tests of the UCI client: `info` lines and mate scores.

use super::process::declared_option;
use super::protocol::parse_info;
use super::UciScore;
use crate::score::MATE;

#[test]
fn info_lines_are_read_or_refused() {
    let i = parse_info(
        "info depth 12 seldepth 18 multipv 1 score cp -35 nodes 1234 nps 1 pv e2e4 e7e5",
    )
    .unwrap();
    assert_eq!(i.depth, Some(12));
    assert_eq!(i.nodes, Some(1234));
    assert_eq!(i.score, Some(UciScore::Cp(-35)));
    assert!(!i.bound);
    let i = parse_info("info depth 3 score mate -2 upperbound").unwrap();
    assert_eq!((i.score, i.bound), (Some(UciScore::Mate(-2)), true));
    let i = parse_info("info string score cp banana").unwrap();
    assert_eq!(i.score, None);
    for bad in [
        "info depth 3 score cp banana",
        "info score wdl 1 2 3",
        "info depth",
        "info nodes -5",
    ] {
        assert!(parse_info(bad).is_err(), "{bad}");
    }
}

#[test]
fn mates_map_to_search_scores() {
    for n in [1, 2, 7] {
        let s = UciScore::Mate(n).centipawns();
        assert_eq!(crate::search::searcher::mate_in(s), Some(n), "mate {n}");
        assert_eq!(UciScore::Mate(-n).centipawns(), -(MATE - 2 * n));
    }
    // Absurd mate distances stay scores, never overflow.
    assert!(UciScore::Mate(i32::MAX).centipawns() > 0);
    assert!(UciScore::Mate(i32::MIN).centipawns() < 0);
}

#[test]
fn declared_options_are_read_from_option_lines() {
    let cases = [
        (
            "option name Hash type spin default 16 min 1 max 1024",
            Some("Hash"),
        ),
        (
            "option name pst_2_35_mg type spin default 3 min -32768 max 32767",
            Some("pst_2_35_mg"),
        ),
        ("option name Clear Hash type button", Some("Clear Hash")),
        (
            "  option  name Weights File type string default <empty>",
            Some("Weights File"),
        ),
        ("option name type spin", None),
        ("optional name X type spin", None),
        ("info string option name X", None),
    ];
    for (line, name) in cases {
        assert_eq!(declared_option(line).as_deref(), name, "{line}");
    }
}

#[test]
fn spin_options_are_read_with_their_ranges() {
    use super::SpinOption;
    let cases = [
        (
            "option name Hash type spin default 16 min 1 max 33554432",
            Some(("Hash", 16, 1, 33_554_432)),
        ),
        (
            "option  name  pst_2_35_mg  type spin default -12 min -200 max 200",
            Some(("pst_2_35_mg", -12, -200, 200)),
        ),
        // Order of the keys does not matter.
        (
            "option name X type spin min -5 max 5 default 0",
            Some(("X", 0, -5, 5)),
        ),
        ("option name UCI_Chess960 type check default false", None),
        ("option name Weights type string default <empty>", None),
        // Malformed spins are not tunables.
        ("option name Y type spin default 3 min 5 max 9", None),
        ("option name Y type spin default x min 0 max 9", None),
        ("option name Y type spin default 3 min 0", None),
        ("option name type spin default 3 min 0 max 9", None),
        (
            "info string option name Y type spin default 3 min 0 max 9",
            None,
        ),
    ];
    for (line, want) in cases {
        let got = SpinOption::parse(line);
        let got = got
            .as_ref()
            .map(|o| (o.name.as_str(), o.default, o.min, o.max));
        assert_eq!(got, want, "{line}");
    }
}
