//! Why a game ended: the one closed set the worker reports, the referee checks, SQLite and
//! Parquet store (as [`Termination::as_str`]) and analysis reads.

use std::fmt;
use std::str::FromStr;

use engine::rules::Reason;

/// Why a game ended: the rules' own reasons, the arbiter's adjudications, and forfeits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// The rules ended the game (never [`Reason::Ongoing`]).
    Rules(Reason),
    /// Both engines' scores agreed long enough that one side is lost ([`super::Adjudicator`]).
    AdjudicatedResign,
    /// Both engines' scores stayed near zero long enough, or the game hit the ply cap.
    AdjudicatedDraw,
    /// The side to move played an illegal move: it loses.
    IllegalMove,
    /// The side to move returned no move: it loses.
    NoMove,
    /// The side to move ran out of clock: it loses.
    TimeForfeit,
    /// An engine failed (crashed, broke the protocol): it loses.
    EngineError,
}

/// The rules' reasons that end a game, in a fixed order.
const RULES: [Reason; 6] = [
    Reason::Checkmate,
    Reason::Stalemate,
    Reason::PerpetualCheck,
    Reason::PerpetualChase,
    Reason::Repetition,
    Reason::MoveLimit,
];

impl Termination {
    /// Every termination, rules first.
    pub const ALL: [Termination; 12] = [
        Termination::Rules(RULES[0]),
        Termination::Rules(RULES[1]),
        Termination::Rules(RULES[2]),
        Termination::Rules(RULES[3]),
        Termination::Rules(RULES[4]),
        Termination::Rules(RULES[5]),
        Termination::AdjudicatedResign,
        Termination::AdjudicatedDraw,
        Termination::IllegalMove,
        Termination::NoMove,
        Termination::TimeForfeit,
        Termination::EngineError,
    ];

    /// The stored and reported name (`checkmate`, `adjudication_resign`, `time_forfeit`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            Termination::Rules(r) => r.as_str(),
            Termination::AdjudicatedResign => "adjudication_resign",
            Termination::AdjudicatedDraw => "adjudication_draw",
            Termination::IllegalMove => "illegal_move",
            Termination::NoMove => "no_move",
            Termination::TimeForfeit => "time_forfeit",
            Termination::EngineError => "engine_error",
        }
    }

    /// A forfeit: the player at fault loses, whatever the board says.
    pub const fn is_forfeit(self) -> bool {
        matches!(
            self,
            Termination::IllegalMove | Termination::NoMove | Termination::TimeForfeit | Termination::EngineError
        )
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name outside the closed set of terminations.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown termination reason `{0}` (expected one of checkmate, stalemate, perpetual_check, perpetual_chase, repetition, move_limit, adjudication_resign, adjudication_draw, illegal_move, no_move, time_forfeit, engine_error)"
)]
pub struct UnknownTermination(pub String);

impl FromStr for Termination {
    type Err = UnknownTermination;
    fn from_str(s: &str) -> Result<Termination, UnknownTermination> {
        Termination::ALL.into_iter().find(|t| t.as_str() == s).ok_or_else(|| UnknownTermination(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_stay_as_stored() {
        for t in Termination::ALL {
            assert_eq!(t.as_str().parse::<Termination>(), Ok(t));
        }
        // These strings are in SQLite databases and Parquet files: they never change.
        let names: Vec<&str> = Termination::ALL.iter().map(|t| t.as_str()).collect();
        assert_eq!(
            names,
            [
                "checkmate",
                "stalemate",
                "perpetual_check",
                "perpetual_chase",
                "repetition",
                "move_limit",
                "adjudication_resign",
                "adjudication_draw",
                "illegal_move",
                "no_move",
                "time_forfeit",
                "engine_error"
            ]
        );
        for bad in ["ongoing", "resign", "", "Checkmate"] {
            assert!(bad.parse::<Termination>().is_err(), "{bad}");
        }
        assert!(Termination::TimeForfeit.is_forfeit());
        assert!(!Termination::AdjudicatedDraw.is_forfeit());
    }
}
