//! Opening lines as suites, leases and UCI's `position` command write them: `startpos`, a FEN,
//! or either followed by `moves m1 m2 ...` (UCI moves). The one parser of the workspace: the
//! coordinator checks suites with it, the worker plays from it, the referee replays from it.
//!
//! ```
//! use engine::OpeningLine;
//!
//! let line = OpeningLine::parse("startpos moves h2e2 h9g7")?;
//! assert_eq!(line.moves.len(), 2);
//! assert_eq!(line.position.history().len(), 2); // kept for repetition judgement
//! assert_eq!(line.setup, engine::Position::startpos());
//!
//! let bad = OpeningLine::parse("startpos moves h2e2 h2e2").unwrap_err();
//! assert!(bad.to_string().contains("move 1 `h2e2`"), "{bad}");
//! # Ok::<(), engine::Error>(())
//! ```

use super::Position;
use crate::error::{Error, Result};
use crate::notation::parse_uci;
use crate::types::Move;

/// A parsed opening line.
#[derive(Clone, Debug, PartialEq)]
pub struct OpeningLine {
    /// The position before the line's moves.
    pub setup: Position,
    pub moves: Vec<Move>,
    /// The position after the moves, with them in its history (repetitions count from the
    /// setup on).
    pub position: Position,
}

impl OpeningLine {
    /// Reads `startpos`, `fen <FEN>` or a bare FEN (a trailing `;` is ignored), then optional
    /// `moves ...`; every move must be legal and the final position must leave the side to move
    /// a legal move. Errors name the line, and the move's index (0-based) and text.
    pub fn parse(line: &str) -> Result<OpeningLine> {
        let text = line.trim();
        let bad = |reason: String| Error::Opening { text: text.to_owned(), reason };
        let (setup_text, moves_text) = match text.split_once("moves") {
            Some((s, m)) => (s.trim(), m),
            None => (text, ""),
        };
        let setup_text = setup_text.strip_prefix("fen ").unwrap_or(setup_text).trim_end_matches(';').trim();
        let setup = if setup_text.is_empty() || setup_text == "startpos" {
            Position::startpos()
        } else {
            Position::from_fen(setup_text).map_err(|e| bad(e.to_string()))?
        };
        let mut position = setup.clone();
        let mut moves = Vec::new();
        for (index, m) in moves_text.split_whitespace().enumerate() {
            let bad_move =
                |reason: String| Error::OpeningMove { text: text.to_owned(), index, mv: m.to_owned(), reason };
            let mv = parse_uci(m).map_err(bad_move)?;
            if let Some(why) = position.illegal_reason(mv) {
                return Err(bad_move(why.to_string()));
            }
            position.play_unchecked(mv);
            moves.push(mv);
        }
        if !position.has_legal_move() {
            return Err(bad("the side to move has no legal move".to_owned()));
        }
        Ok(OpeningLine { setup, moves, position })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_form() {
        let start = OpeningLine::parse("startpos").expect("startpos");
        assert_eq!(start.position, Position::startpos());
        assert!(start.moves.is_empty());
        let fen = "4k4/9/9/9/9/9/5p3/4B4/3N5/4K4 w - - 0 1";
        for text in [fen.to_owned(), format!("fen {fen}"), format!("{fen};"), format!("  {fen}  ")] {
            let line = OpeningLine::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(line.position.fen(), fen, "{text}");
        }
        let line = OpeningLine::parse(&format!("{fen} moves d1c3")).expect("fen with moves");
        assert_eq!(line.moves.len(), 1);
        assert_eq!(line.setup.fen(), fen);
        assert_ne!(line.position.fen(), fen);
    }

    #[test]
    fn errors_name_the_move_and_the_text() {
        match OpeningLine::parse("startpos moves h2e2 h9g7 zz") {
            Err(Error::OpeningMove { index: 2, mv, text, .. }) => {
                assert_eq!(mv, "zz");
                assert_eq!(text, "startpos moves h2e2 h9g7 zz");
            }
            other => panic!("expected a move error, got {other:?}"),
        }
        match OpeningLine::parse("startpos moves h2e2 h2e2") {
            Err(e @ Error::OpeningMove { index: 1, .. }) => assert!(e.to_string().contains("h2e2"), "{e}"),
            other => panic!("expected a move error, got {other:?}"),
        }
        assert!(matches!(OpeningLine::parse("9/9 w"), Err(Error::Opening { .. })));
        // Black is mated: an opening must leave a move to play.
        let mated = "4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1 moves b0b9";
        let err = OpeningLine::parse(mated).expect_err("no legal move");
        assert!(err.to_string().contains("no legal move"), "{err}");
    }
}
