//! One game on the play page, as pure state: its start position, the moves played up to the
//! cursor, the undone moves that can be redone, and everything the page draws from them
//! (legal moves by square, the king in check, the verdict by the engine's rules including the
//! Asian-rules repetition judgement, each move in UCI, WXF and Chinese).

use std::collections::BTreeMap;

use engine::notation::{Notation, parse_move, write_move};
use engine::rules::{Outcome, Reason, judge};
use engine::{Color, Move, Position};

use super::error::{PlayError, PlayResult};

/// A move played, in every notation the page shows, with the position after it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PlayedMove {
    pub uci: String,
    pub wxf: String,
    pub chinese: String,
    /// The FEN after the move.
    pub fen: String,
}

/// The game of one play session.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    pos: Position,
    moves: Vec<Move>,
    played: Vec<PlayedMove>,
    /// Undone moves, the next one to redo last.
    redo: Vec<Move>,
    /// Bumped by every change, so a search started before a change is not applied after it.
    version: u64,
}

/// Reads and validates a FEN, naming what is wrong with it.
pub fn parse_fen(fen: &str) -> PlayResult<Position> {
    let fen = fen.trim();
    Position::from_fen(fen).map_err(|e| PlayError::InvalidFen { fen: fen.to_owned(), reason: e.to_string() })
}

impl Game {
    /// A game from `start` (its move history, if any, is dropped: the game starts there).
    pub fn new(start: &Position) -> Game {
        let mut start = start.clone();
        start.truncate_history(0);
        Game { pos: start.clone(), start, moves: Vec::new(), played: Vec::new(), redo: Vec::new(), version: 0 }
    }

    /// A game from the start position.
    pub fn startpos() -> Game {
        Game::new(&Position::startpos())
    }

    pub fn from_fen(fen: &str) -> PlayResult<Game> {
        Ok(Game::new(&parse_fen(fen)?))
    }

    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position, with the game's moves as its history (for repetitions).
    pub fn position(&self) -> &Position {
        &self.pos
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    pub fn played(&self) -> &[PlayedMove] {
        &self.played
    }

    /// The undone moves in the order they would be redone.
    pub fn redo_moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.redo.iter().rev().copied()
    }

    pub fn version(&self) -> u64 {
        self.version
    }

    /// Replaces this game by `other` (a loaded FEN or PGN), as one more change: a search
    /// started on the old game is not applied to the new one.
    pub fn replace(&mut self, mut other: Game) {
        other.version = self.version.max(other.version) + 1;
        *self = other;
    }

    pub fn side_to_move(&self) -> Color {
        self.pos.side_to_move()
    }

    /// The arbiter's verdict on the current position.
    pub fn outcome(&self) -> Outcome {
        judge(&self.pos)
    }

    /// Plays the move written as `text` (UCI, ICCS, WXF or Chinese). An illegal or unreadable
    /// move changes nothing and is named in the error. Playing the move next on the redo stack
    /// keeps the rest of it; any other move clears it.
    pub fn play_text(&mut self, text: &str) -> PlayResult<Move> {
        let text = text.trim();
        let outcome = self.outcome();
        if outcome.is_over() {
            return Err(PlayError::Conflict(format!("{text}: the game is over: {}", verdict_text(outcome))));
        }
        let m = parse_move(&self.pos, text).map_err(|e| PlayError::IllegalMove {
            text: text.to_owned(),
            reason: match e {
                engine::Error::IllegalMove { reason, .. } => reason.to_string(),
                engine::Error::ParseMove { reason, .. } => reason,
                other => other.to_string(),
            },
        })?;
        if self.redo.last() == Some(&m) {
            self.redo.pop();
        } else {
            self.redo.clear();
        }
        self.push(m);
        Ok(m)
    }

    /// Plays legal move `m` (from the engine), clearing the redo stack unless it is its next move.
    pub fn play(&mut self, m: Move) -> PlayResult<()> {
        self.play_text(&m.to_string()).map(|_| ())
    }

    /// Plays move `m` of a recorded game (a loaded PGN) even after the rules ended the game:
    /// players go on after a repetition our rules call, and the record keeps their moves. An
    /// illegal move changes nothing and is named.
    pub fn play_recorded(&mut self, m: Move) -> PlayResult<()> {
        if let Some(reason) = self.pos.illegal_reason(m) {
            return Err(PlayError::IllegalMove { text: m.to_string(), reason: reason.to_string() });
        }
        self.redo.clear();
        self.push(m);
        Ok(())
    }

    fn push(&mut self, m: Move) {
        let uci = m.to_string();
        let wxf = write_move(&self.pos, m, Notation::Wxf);
        let chinese = write_move(&self.pos, m, Notation::Chinese);
        self.pos.play_unchecked(m);
        self.moves.push(m);
        self.played.push(PlayedMove { uci, wxf, chinese, fen: self.pos.fen() });
        self.version += 1;
    }

    /// Takes back up to `count` moves onto the redo stack; returns how many were taken back.
    pub fn undo(&mut self, count: usize) -> usize {
        let mut done = 0;
        while done < count {
            let Some(m) = self.moves.pop() else { break };
            self.pos.undo();
            self.played.pop();
            self.redo.push(m);
            done += 1;
        }
        if done > 0 {
            self.version += 1;
        }
        done
    }

    /// Replays up to `count` undone moves; returns how many were replayed.
    pub fn redo(&mut self, count: usize) -> usize {
        let mut done = 0;
        while done < count {
            let Some(m) = self.redo.pop() else { break };
            self.push(m);
            done += 1;
        }
        done
    }

    /// The legal moves by from-square (`"h2": ["e2", ...]`); none once the game is over.
    pub fn legal_by_square(&self) -> BTreeMap<String, Vec<String>> {
        let mut by_square: BTreeMap<String, Vec<String>> = BTreeMap::new();
        if self.outcome().is_over() {
            return by_square;
        }
        for &m in self.pos.legal_moves().iter() {
            by_square.entry(m.from().to_string()).or_default().push(m.to().to_string());
        }
        by_square
    }

    /// The square of the side to move's king when it is in check.
    pub fn check_square(&self) -> Option<String> {
        self.pos.in_check().then(|| self.pos.king(self.pos.side_to_move()).to_string())
    }
}

/// The verdict in words ("Red loses by perpetual check"), worded as the farm's games are.
pub fn verdict_text(outcome: Outcome) -> String {
    if outcome.reason == Reason::Ongoing {
        return "the game goes on".to_owned();
    }
    crate::api::games::verdict_text(outcome.result.as_str(), proto::domain::Termination::Rules(outcome.reason))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // in tests a panic is the failure report
mod tests {
    use super::*;
    use engine::rules::GameResult;

    fn play_all(game: &mut Game, moves: &str) {
        for m in moves.split_whitespace() {
            game.play_text(m).unwrap();
        }
    }

    #[test]
    fn an_illegal_move_is_named_and_changes_nothing() {
        let mut game = Game::startpos();
        play_all(&mut game, "h2e2");
        let before = (game.position().fen(), game.version(), game.played().len());
        let err = game.play_text("h9h5").unwrap_err();
        assert!(matches!(&err, PlayError::IllegalMove { text, .. } if text == "h9h5"), "{err}");
        assert!(err.to_string().starts_with("h9h5: "), "{err}");
        assert_eq!(before, (game.position().fen(), game.version(), game.played().len()));
        assert!(game.play_text("zz").unwrap_err().to_string().starts_with("zz: "));
    }

    #[test]
    fn moves_in_every_notation() {
        let mut game = Game::startpos();
        play_all(&mut game, "h2e2 马８进７ H0-G2");
        let texts: Vec<_> =
            game.played().iter().map(|p| (p.uci.as_str(), p.wxf.as_str(), p.chinese.as_str())).collect();
        assert_eq!(texts, [("h2e2", "C2.5", "炮二平五"), ("h9g7", "H8+7", "马８进７"), ("h0g2", "H2+3", "马二进三")]);
        assert_eq!(game.played()[2].fen, game.position().fen());
    }

    #[test]
    fn undo_and_redo() {
        let mut game = Game::startpos();
        play_all(&mut game, "h2e2 h9g7 h0g2");
        let after_one = {
            let mut g = Game::startpos();
            play_all(&mut g, "h2e2");
            g.position().fen()
        };
        assert_eq!(game.undo(2), 2);
        assert_eq!(game.position().fen(), after_one);
        assert_eq!(game.redo_moves().map(|m| m.to_string()).collect::<Vec<_>>(), ["h9g7", "h0g2"]);
        assert_eq!(game.redo(1), 1);
        assert_eq!(game.moves().len(), 2);
        assert_eq!(game.redo_moves().count(), 1);
        // A different move drops the redo stack; the redo stack's own move keeps it.
        game.undo(1);
        game.play_text("h9g7").unwrap();
        assert_eq!(game.redo_moves().count(), 1);
        game.play_text("b0c2").unwrap();
        assert_eq!(game.redo_moves().count(), 0);
        assert_eq!(game.undo(10), 3);
        assert_eq!(game.position().fen(), engine::START_FEN);
        assert_eq!(game.undo(1), 0);
    }

    #[test]
    fn legal_moves_by_square_and_check() {
        let game = Game::startpos();
        let legal = game.legal_by_square();
        assert_eq!(legal.values().map(Vec::len).sum::<usize>(), 44);
        assert!(legal["h2"].contains(&"e2".to_owned()));
        assert_eq!(game.check_square(), None);
        let check = Game::from_fen("4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1").unwrap();
        assert_eq!(check.check_square().as_deref(), Some("e9"));
    }

    #[test]
    fn perpetual_check_loses_for_the_checker() {
        let mut game = Game::from_fen("R8/4k4/9/9/9/9/9/9/9/3K5 w - - 0 1").unwrap();
        play_all(&mut game, "a9a8 e8e9 a8a9 e9e8 a9a8 e8e9 a8a9 e9e8");
        let outcome = game.outcome();
        assert_eq!(outcome.result, GameResult::BlackWins);
        assert_eq!(verdict_text(outcome), "Red loses by perpetual check");
        assert!(game.legal_by_square().is_empty());
        assert!(matches!(game.play_text("a9a8"), Err(PlayError::Conflict(_))));
    }

    #[test]
    fn bad_fens_give_the_validators_reason() {
        let err = Game::from_fen("3k5/9/9/9/9/9/9/9/9/3K5 w - - 0 1").unwrap_err();
        assert!(err.to_string().contains("the kings face each other"), "{err}");
    }
}
