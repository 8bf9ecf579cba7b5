//! Writing games as PGN, with the search score and depth of every engine move as a comment.

use std::fmt::Write as _;

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

use crate::play::game::GameRecord;

/// Tags of one PGN game besides the result.
///
/// ```
/// use engine::play::game::{play_game, Adjudication};
/// use engine::play::openings::Opening;
/// use engine::play::pgn_out::{game_pgn, PgnTags};
/// use engine::{MaterialEvaluator, SearchLimits, Searcher};
/// use shakmaty::Chess;
///
/// let rules = Adjudication { max_plies: 2, ..Adjudication::default() };
/// let mut s = Searcher::new(MaterialEvaluator, 1);
/// let game = play_game(&Opening::from_position(Chess::default()), &rules, |pos, h| {
///     s.search(pos, h, &SearchLimits::nodes(50))
/// });
/// let tags = PgnTags { event: "test".into(), white: "A".into(), black: "B".into(), ..PgnTags::default() };
/// let pgn = game_pgn(&game, &tags);
/// assert!(pgn.contains("[White \"A\"]") && pgn.contains("1/2-1/2"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct PgnTags {
    /// `Event`.
    pub event: String,
    /// `Round`.
    pub round: String,
    /// `White`.
    pub white: String,
    /// `Black`.
    pub black: String,
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The game as PGN text (ending with a blank line).
///
/// ```
/// use engine::play::game::{play_game, Adjudication};
/// use engine::play::openings::Opening;
/// use engine::play::pgn_out::{game_pgn, PgnTags};
/// use engine::{MaterialEvaluator, SearchLimits, Searcher};
/// use shakmaty::{fen::Fen, CastlingMode, Chess};
///
/// let pos: Chess = "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1".parse::<Fen>().unwrap()
///     .into_position(CastlingMode::Standard).unwrap();
/// let mut s = Searcher::new(MaterialEvaluator, 1);
/// let game = play_game(&Opening::from_position(pos), &Adjudication::default(), |p, h| {
///     s.search(p, h, &SearchLimits::depth(4))
/// });
/// let pgn = game_pgn(&game, &PgnTags::default());
/// assert!(pgn.contains("[Result \"1-0\"]"));
/// assert!(pgn.contains("[SetUp \"1\"]"));
/// assert!(pgn.contains('#')); // the game ends in checkmate
/// ```
pub fn game_pgn(game: &GameRecord, tags: &PgnTags) -> String {
    let mut out = tag_pairs(game, tags);
    out.push('\n');
    let mut line = String::new();
    for t in movetext(game) {
        if !line.is_empty() && line.len() + 1 + t.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&t);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

/// The game's tag pairs, a line each.
fn tag_pairs(game: &GameRecord, tags: &PgnTags) -> String {
    let mut out = String::new();
    let tag = |out: &mut String, name: &str, value: &str| {
        let _ = writeln!(out, "[{name} \"{}\"]", escape(value));
    };
    tag(&mut out, "Event", &tags.event);
    tag(&mut out, "Site", "?");
    tag(&mut out, "Date", "????.??.??");
    tag(&mut out, "Round", &tags.round);
    tag(&mut out, "White", &tags.white);
    tag(&mut out, "Black", &tags.black);
    tag(&mut out, "Result", game.outcome.as_str());
    let root = &game.opening.root;
    if *root != Chess::default() {
        if root.castles().mode() == CastlingMode::Chess960 {
            tag(&mut out, "Variant", "Chess960");
        }
        tag(&mut out, "SetUp", "1");
        tag(
            &mut out,
            "FEN",
            &Fen::from_position(root, EnPassantMode::Legal).to_string(),
        );
    }
    tag(&mut out, "Termination", game.termination.describe());
    let _ = writeln!(
        out,
        "[PlyCount \"{}\"]",
        game.opening.moves.len() + game.moves.len()
    );
    out
}

/// The movetext's tokens: move numbers, moves in SAN, the book marked, each searched move's
/// score and depth, the termination and the result.
fn movetext(game: &GameRecord) -> Vec<String> {
    let mut tokens: Vec<String> = Vec::new();
    let mut pos = game.opening.root.clone();
    let number = |pos: &Chess, tokens: &mut Vec<String>, first: bool| {
        let n = pos.fullmoves().get();
        if pos.turn().is_white() {
            tokens.push(format!("{n}."));
        } else if first {
            tokens.push(format!("{n}..."));
        }
    };
    let mut first = true;
    for &m in &game.opening.moves {
        number(&pos, &mut tokens, first);
        first = false;
        tokens.push(SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string());
    }
    if !game.opening.moves.is_empty() {
        tokens.push("{book}".to_string());
        first = true;
    }
    for pm in &game.moves {
        number(&pos, &mut tokens, first);
        first = false;
        tokens.push(SanPlus::from_move_and_play_unchecked(&mut pos, pm.mv).to_string());
        let score = match crate::search::searcher::mate_in(pm.score) {
            Some(n) if n > 0 => format!("+M{n}"),
            Some(n) => format!("-M{}", -n),
            None => format!("{:+.2}", f64::from(pm.score) / 100.0),
        };
        tokens.push(format!("{{{score}/{}}}", pm.depth));
    }
    tokens.push(format!("{{{}}}", game.termination.describe()));
    tokens.push(game.outcome.as_str().to_string());
    tokens
}
