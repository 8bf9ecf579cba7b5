//! The search finds forced mates (checked against a brute-force mate solver) and wins
//! material in simple tactics, with a material-only evaluation.

use engine::{search::searcher::mate_in, MaterialEvaluator, SearchLimits, Searcher, MATE};
use shakmaty::{fen::Fen, uci::UciMove, CastlingMode, Chess, Position};

fn pos(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

/// Brute force: can the side to move force mate within `n` of its moves?
fn mates_within(p: &Chess, n: u32) -> bool {
    if n == 0 {
        return false;
    }
    p.legal_moves().iter().any(|&m| {
        let mut c = p.clone();
        c.play_unchecked(m);
        if c.is_checkmate() {
            return true;
        }
        let replies = c.legal_moves();
        !replies.is_empty()
            && replies.iter().all(|&r| {
                let mut d = c.clone();
                d.play_unchecked(r);
                mates_within(&d, n - 1)
            })
    })
}

fn shortest_mate(p: &Chess, max: u32) -> Option<u32> {
    (1..=max).find(|&n| mates_within(p, n))
}

fn uci(p: &Chess, m: shakmaty::Move) -> String {
    let _ = p;
    UciMove::from_standard(m).to_string()
}

fn check_mate(fen: &str, moves: u32) {
    let p = pos(fen);
    assert_eq!(
        shortest_mate(&p, moves),
        Some(moves),
        "solver disagrees: {fen}"
    );
    let mut s = Searcher::new(MaterialEvaluator, 4);
    let r = s.search(&p, &[], &SearchLimits::depth(2 * moves + 1));
    assert_eq!(r.score, MATE - (2 * moves as i32 - 1), "{fen}: {r:?}");
    assert_eq!(r.mate_in(), Some(moves as i32));
    // Playing the PV's first move keeps a forced mate one move shorter.
    let mut c = p.clone();
    c.play_unchecked(r.best_move.unwrap());
    if moves == 1 {
        assert!(c.is_checkmate());
    } else {
        assert!(c.legal_moves().iter().all(|&reply| {
            let mut d = c.clone();
            d.play_unchecked(reply);
            mates_within(&d, moves - 1)
        }));
    }
}

#[test]
fn mate_in_one() {
    check_mate("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 1);
    check_mate(
        "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 0 1",
        1,
    );
}

#[test]
fn mate_in_two() {
    check_mate("7k/8/8/8/8/8/R7/1R4K1 w - - 0 1", 2);
}

#[test]
fn mate_in_three() {
    check_mate("8/7k/8/8/8/8/R7/1R4K1 w - - 0 1", 3);
}

#[test]
fn black_gets_mated_score() {
    // Black to move, mated next move whatever it does.
    let p = pos("7k/R7/8/8/8/8/8/1R4K1 b - - 0 1");
    let mut s = Searcher::new(MaterialEvaluator, 4);
    let r = s.search(&p, &[], &SearchLimits::depth(4));
    assert_eq!(mate_in(r.score), Some(-1), "{r:?}");
}

#[test]
fn knight_fork_wins_the_rook() {
    // (The pawn keeps the ending from being a dead draw by insufficient material.)
    let p = pos("r3k3/8/8/1N6/8/8/P7/4K3 w - - 0 1");
    let mut s = Searcher::new(MaterialEvaluator, 4);
    let r = s.search(&p, &[], &SearchLimits::depth(5));
    assert_eq!(uci(&p, r.best_move.unwrap()), "b5c7", "{r:?}");
    assert!(r.score >= 300, "{r:?}");
}

#[test]
fn takes_the_hanging_queen_not_the_defended_pawn() {
    // Qxd5 loses the queen to exd5; Rxa5 wins the queen for nothing.
    let p = pos("4k3/8/4p3/q2p4/8/8/8/R2QK3 w - - 0 1");
    let mut s = Searcher::new(MaterialEvaluator, 4);
    let r = s.search(&p, &[], &SearchLimits::depth(4));
    assert_eq!(uci(&p, r.best_move.unwrap()), "a1a5", "{r:?}");
    assert!(r.score >= 1000, "{r:?}");
}

#[test]
fn fifty_move_rule_is_a_draw() {
    // A rook up, but every move reaches the 100th half-move without mate.
    let p = pos("4k3/8/8/8/8/8/8/R3K3 w - - 99 80");
    let mut s = Searcher::new(MaterialEvaluator, 4);
    let r = s.search(&p, &[], &SearchLimits::depth(4));
    assert_eq!(r.score, 0, "{r:?}");
}

#[test]
fn repetition_is_a_draw() {
    // White is a queen down and its king can only shuffle between g1 and h1. The game so
    // far: C (Black to move) Qb2 Kh1 Qa2, reaching P. From P, Kg1 repeats C.
    let c = pos("k7/8/8/8/8/8/q7/6K1 b - - 10 40");
    let mut history = vec![engine::hash(&c)];
    let mut p = c.clone();
    for m in ["a2b2", "g1h1", "b2a2"] {
        let m = m.parse::<UciMove>().unwrap().to_move(&p).unwrap();
        p.play_unchecked(m);
        history.push(engine::hash(&p));
    }
    history.pop(); // the history holds the positions before P, not P itself
    let limits = SearchLimits::depth(3);
    let without = Searcher::new(MaterialEvaluator, 1).search(&p, &[], &limits);
    assert!(without.score <= -800, "{without:?}");
    let with = Searcher::new(MaterialEvaluator, 1).search(&p, &history, &limits);
    assert_eq!(uci(&p, with.best_move.unwrap()), "h1g1");
    assert_eq!(with.score, 0, "{with:?}");
}

#[test]
fn node_limit_is_respected_and_deterministic() {
    let p = Chess::default();
    let limits = SearchLimits::nodes(3_000);
    let a = Searcher::new(MaterialEvaluator, 2).search(&p, &[], &limits);
    let b = Searcher::new(MaterialEvaluator, 2).search(&p, &[], &limits);
    assert_eq!(a.best_move, b.best_move);
    assert_eq!(a.nodes, b.nodes);
    assert!(a.nodes < 3_000 + 200, "{}", a.nodes);
    assert!(p.is_legal(a.best_move.unwrap()));
}
