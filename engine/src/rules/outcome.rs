//! The result of a game and why it ended.

use crate::types::Color;

/// The score of a game, in PGN's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    Ongoing,
    RedWins,
    BlackWins,
    Draw,
}

impl GameResult {
    /// `*`, `1-0`, `0-1` or `1/2-1/2`.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameResult::Ongoing => "*",
            GameResult::RedWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// The result when `loser` loses.
    pub const fn loss_for(loser: Color) -> GameResult {
        match loser {
            Color::Red => GameResult::BlackWins,
            Color::Black => GameResult::RedWins,
        }
    }
}

impl std::fmt::Display for GameResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why the game ended (or `Ongoing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    Ongoing,
    /// The side to move is in check and has no legal move: it loses.
    Checkmate,
    /// The side to move is not in check and has no legal move: it loses too.
    Stalemate,
    /// A repetition in which the loser checked on every move.
    PerpetualCheck,
    /// A repetition in which the loser chased the same piece on every move.
    PerpetualChase,
    /// A repetition that no side is to blame for: a draw.
    Repetition,
    /// 120 plies without a capture: a draw.
    MoveLimit,
}

impl Reason {
    /// The snake-case name used in records and reports.
    pub const fn as_str(self) -> &'static str {
        match self {
            Reason::Ongoing => "ongoing",
            Reason::Checkmate => "checkmate",
            Reason::Stalemate => "stalemate",
            Reason::PerpetualCheck => "perpetual_check",
            Reason::PerpetualChase => "perpetual_chase",
            Reason::Repetition => "repetition",
            Reason::MoveLimit => "move_limit",
        }
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The arbiter's verdict: result and reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    pub result: GameResult,
    pub reason: Reason,
}

impl Outcome {
    pub const ONGOING: Outcome = Outcome { result: GameResult::Ongoing, reason: Reason::Ongoing };

    /// `loser` lost for `reason`.
    pub const fn loss(loser: Color, reason: Reason) -> Outcome {
        Outcome { result: GameResult::loss_for(loser), reason }
    }

    pub const fn draw(reason: Reason) -> Outcome {
        Outcome { result: GameResult::Draw, reason }
    }

    pub const fn is_over(self) -> bool {
        !matches!(self.result, GameResult::Ongoing)
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.result, self.reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let results = [GameResult::Ongoing, GameResult::RedWins, GameResult::BlackWins, GameResult::Draw];
        let names: Vec<_> = results.iter().map(|r| r.as_str()).collect();
        assert_eq!(names, ["*", "1-0", "0-1", "1/2-1/2"]);
        assert_eq!(Reason::PerpetualChase.as_str(), "perpetual_chase");
        assert_eq!(Reason::MoveLimit.to_string(), "move_limit");
        assert_eq!(Outcome::loss(Color::Red, Reason::Checkmate).result, GameResult::BlackWins);
        assert_eq!(Outcome::loss(Color::Black, Reason::Stalemate).to_string(), "1-0 (stalemate)");
        assert!(!Outcome::ONGOING.is_over());
    }
}
