//! Search scores in centipawns: the mate score and the bound above which a score announces a
//! forced mate (a leaf: the search, the evaluators and the UCI client all read it).

/// Mate score in centipawns: a mate found `n` plies from the root scores `±(MATE - n)`.
pub const MATE: i32 = 30_000;

/// Scores at least this large (in absolute value) announce a forced mate.
pub const MATE_BOUND: i32 = MATE - 1_000;
