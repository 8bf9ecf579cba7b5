//! What the unit tests share (compiled for tests only).

/// A position from a FEN the unit tests write themselves (a bad one fails the test, naming it).
pub(crate) fn test_position(fen: &str) -> shakmaty::Chess {
    use shakmaty::{fen::Fen, CastlingMode};
    fen.parse::<Fen>()
        .map_err(|e| e.to_string())
        .and_then(|f| {
            f.into_position(CastlingMode::Standard)
                .map_err(|e| e.to_string())
        })
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
}
