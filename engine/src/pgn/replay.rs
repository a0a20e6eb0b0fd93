//! Replaying a PGN game as it was played: from its `[FEN]` tag (or the initial position), every
//! move read in whichever notation it is written and refused only when it is illegal. A game
//! the players went on with after our rules would have ended it (the third occurrence of a
//! position, 120 plies without a capture) is a recorded game all the same: the replay notes the
//! ply where the rules would have ended it, and why, and goes on.

use super::read::PgnText;
use crate::error::Error;
use crate::notation::read_move;
use crate::position::Position;
use crate::rules::judge::ARBITER_OCCURRENCES;
use crate::rules::{MOVE_LIMIT_PLIES, Outcome, Reason, judge, repetition_outcome};
use crate::types::Move;

/// Where our rules would have ended a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RulesEnd {
    /// Moves played when the rules would have ended it (0: the start position already).
    pub ply: usize,
    /// The rules' result and reason there.
    pub outcome: Outcome,
}

/// A game replayed as played.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The start position (the `[FEN]` tag's, or the initial one), without history.
    pub start: Position,
    /// Every move, as played.
    pub moves: Vec<Move>,
    /// The first position where our rules would have ended the game, if any: after the last
    /// move for a game that ended by the rules (a mate), before it for one that went on.
    pub rules_end: Option<RulesEnd>,
}

impl Replay {
    /// Whether the players went on after our rules would have ended the game.
    pub fn went_past_rules_end(&self) -> bool {
        self.rules_end.is_some_and(|end| end.ply < self.moves.len())
    }
}

/// The game's start: its `[FEN]` tag's position, or the initial one without the tag.
pub fn start_position(text: &PgnText) -> Result<Position, Error> {
    match text.tag("FEN").map(str::trim) {
        Some(fen) if !fen.is_empty() => {
            Position::from_fen(fen).map_err(|e| Error::PgnFen { fen: fen.to_owned(), reason: e.to_string() })
        }
        _ => Ok(Position::startpos()),
    }
}

/// Replays `text`'s moves from its start, refusing only a bad `[FEN]` tag
/// ([`Error::PgnFen`]) or a move that does not read or is illegal ([`Error::PgnMove`], naming
/// its move number and text); where our rules would have ended the game is noted, not enforced.
pub fn replay(text: &PgnText) -> Result<Replay, Error> {
    let mut start = start_position(text)?;
    start.truncate_history(0);
    let mut pos = start.clone();
    let mut moves = Vec::with_capacity(text.moves.len());
    let mut rules_end = over_by_repetition_or_limit(&pos).map(|outcome| RulesEnd { ply: 0, outcome });
    for (i, word) in text.moves.iter().enumerate() {
        let m = read_move(&pos, word).map_err(|(fault, reason)| Error::PgnMove {
            ply: i + 1,
            number: pos.fullmove(),
            color: pos.side_to_move(),
            text: word.clone(),
            fault,
            reason,
        })?;
        pos.play_unchecked(m);
        moves.push(m);
        if rules_end.is_none() {
            rules_end = over_by_repetition_or_limit(&pos).map(|outcome| RulesEnd { ply: i + 1, outcome });
        }
    }
    if rules_end.is_none() {
        // Mate and stalemate can only stand at the end: no legal move follows them.
        let outcome = judge(&pos);
        if outcome.is_over() {
            rules_end = Some(RulesEnd { ply: moves.len(), outcome });
        }
    }
    Ok(Replay { start, moves, rules_end })
}

/// The arbiter's verdict on `pos` by repetition or the move limit (what a game can be
/// continued past); the cheap checks, run after every move.
fn over_by_repetition_or_limit(pos: &Position) -> Option<Outcome> {
    repetition_outcome(pos, ARBITER_OCCURRENCES)
        .or_else(|| (pos.rule60() >= MOVE_LIMIT_PLIES).then(|| Outcome::draw(Reason::MoveLimit)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // in tests a panic is the failure report
mod tests {
    use super::*;
    use crate::error::MoveFault;
    use crate::pgn::read_text;
    use crate::rules::GameResult;
    use crate::types::Color;

    fn uci(r: &Replay) -> Vec<String> {
        r.moves.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_game_continued_after_a_repetition_imports_as_played() {
        // Both rooks shuffle twice (the start position stands a third time after ply 8), then
        // Red plays on.
        let text = "1. R1+1 R9+1 2. R1-1 R9-1 3. R1+1 R9+1 4. R1-1 R9-1 5. C2.5 *";
        let r = replay(&read_text(text).unwrap()).unwrap();
        assert_eq!(uci(&r)[8], "h2e2");
        assert_eq!(r.moves.len(), 9);
        let end = r.rules_end.unwrap();
        assert_eq!(end.ply, 8);
        assert_eq!(end.outcome, Outcome::draw(Reason::Repetition));
        assert!(r.went_past_rules_end());
    }

    #[test]
    fn a_game_past_the_move_limit_notes_the_ply() {
        // 118 plies without a capture already: the limit is reached after two more.
        let fen = "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 118 60";
        let text = format!("[FEN \"{fen}\"]\n1. R9+1 K4+1 2. R9-1 K4-1 3. R9+1 *");
        let r = replay(&read_text(&text).unwrap()).unwrap();
        assert_eq!(r.moves.len(), 5);
        assert_eq!(r.rules_end, Some(RulesEnd { ply: 2, outcome: Outcome::draw(Reason::MoveLimit) }));
    }

    #[test]
    fn a_mate_is_the_rules_end_at_the_last_move() {
        // Rook b8 holds rank 8; rook a1 to a9 mates the king on e9.
        let fen = "4k4/1R7/9/9/9/9/9/9/R8/3K5 w - - 0 1";
        let text = format!("[FEN \"{fen}\"]\n1. R9+8 *");
        let r = replay(&read_text(&text).unwrap()).unwrap();
        let end = r.rules_end.unwrap();
        assert_eq!((end.ply, end.outcome.result), (1, GameResult::RedWins));
        assert!(!r.went_past_rules_end());
        let quiet = replay(&read_text("1. C2.5 C8.5 *").unwrap()).unwrap();
        assert_eq!(quiet.rules_end, None);
    }

    #[test]
    fn refusals_name_the_move_and_why() {
        let err = replay(&read_text("1. C2.5 H8+7 2. R1+3 *").unwrap()).unwrap_err();
        assert!(matches!(err, Error::PgnMove { ply: 3, number: 2, color: Color::Red, fault: MoveFault::Illegal, .. }));
        assert!(err.to_string().starts_with("move 2. `R1+3` (Red): "), "{err}");
        let err = replay(&read_text("1. C2.5 X8+7 *").unwrap()).unwrap_err();
        assert!(matches!(err, Error::PgnMove { ply: 2, fault: MoveFault::Unreadable, .. }), "{err:?}");
        assert!(err.to_string().starts_with("move 1... `X8+7` (Black): "), "{err}");
        let err = replay(&read_text("[FEN \"9/9/9 w\"]\n1. C2.5 *").unwrap()).unwrap_err();
        assert!(matches!(err, Error::PgnFen { .. }), "{err:?}");
        assert!(err.to_string().contains("`9/9/9 w`"), "{err}");
    }

    #[test]
    fn every_spelling_replays_to_the_same_moves() {
        let spellings = [
            "1. C2.5 H8+7 2. H2+3 R9.8 3. R1.2 C8+4",
            "1. C2=5 H8+7 2. H2+3 R9=8 3. R1=2 C8+4",
            "1. Ｃ２＝５ Ｈ８＋７ 2. Ｈ２＋３ Ｒ９＝８ 3. Ｒ１．２ Ｃ８＋４",
            "1. Ｃ２．５ ｈ８＋７ 2. h2+3 r9.8 3. R1.2 C8+4",
            "1. 炮二平五 马８进７ 2. 马二进三 车９平８ 3. 车一平二 炮８进４",
            "１． 砲二平五 馬８進７ ２． 傌二進三 車９平８ ３． 俥一平二 砲８進４",
            "1. H2-E2 H9-G7 2. H0-G2 I9-H9 3. I0-H0 H7-H3",
        ];
        let expected = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "h7h3"];
        for text in spellings {
            let r = replay(&read_text(text).unwrap()).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(uci(&r), expected, "{text}");
        }
    }
}
