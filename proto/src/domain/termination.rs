//! Why a game ended: the one closed set the worker reports, the referee checks, SQLite and
//! Parquet store (as [`Termination::as_str`]) and analysis reads.

use engine::rules::Reason;

use super::names::closed_set;

/// Why a game ended: the rules' own reasons, the arbiter's adjudications, and forfeits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// The rules ended the game (never [`Reason::Ongoing`]).
    Rules(Reason),
    /// Both engines' scores agreed long enough that one side is lost ([`super::Adjudicator`]).
    AdjudicatedResign,
    /// Both engines' scores stayed near zero long enough, or the game hit the ply cap.
    AdjudicatedDraw,
    /// The position entered an endgame table, whose verdict ends the game
    /// (`engine::tablebase::Tablebases::adjudicate`).
    Tablebase,
    /// The side to move played an illegal move: it loses.
    IllegalMove,
    /// The side to move returned no move: it loses.
    NoMove,
    /// The side to move ran out of clock: it loses.
    TimeForfeit,
    /// An engine failed (crashed, broke the protocol): it loses.
    EngineError,
    /// The engine gave no answer within its time and the worker's grace (it hung, and was
    /// killed): it loses.
    EngineHung,
}

closed_set! {
    // The rules' texts are the engine's own (`Reason::as_str`); a test holds them equal.
    impl Termination ("termination reason") {
        Rules(Reason::Checkmate) = "checkmate",
        Rules(Reason::Stalemate) = "stalemate",
        Rules(Reason::PerpetualCheck) = "perpetual_check",
        Rules(Reason::PerpetualChase) = "perpetual_chase",
        Rules(Reason::Repetition) = "repetition",
        Rules(Reason::MoveLimit) = "move_limit",
        AdjudicatedResign = "adjudication_resign",
        AdjudicatedDraw = "adjudication_draw",
        IllegalMove = "illegal_move",
        NoMove = "no_move",
        TimeForfeit = "time_forfeit",
        EngineError = "engine_error",
        EngineHung = "engine_hung",
        Tablebase = "tablebase",
    }
    // `Rules(Reason::Ongoing)`, a game not over yet, is no termination: it is never stored
    // and never read back.
    otherwise = "ongoing"
}

impl Termination {
    /// A forfeit: the player at fault loses, whatever the board says.
    pub const fn is_forfeit(self) -> bool {
        matches!(
            self,
            Termination::IllegalMove
                | Termination::NoMove
                | Termination::TimeForfeit
                | Termination::EngineError
                | Termination::EngineHung
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_stay_as_stored() {
        for &t in Termination::ALL {
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
                "engine_error",
                "engine_hung",
                "tablebase"
            ]
        );
        for bad in ["ongoing", "resign", "", "Checkmate"] {
            assert!(bad.parse::<Termination>().is_err(), "{bad}");
        }
        assert!(Termination::TimeForfeit.is_forfeit());
        assert!(!Termination::AdjudicatedDraw.is_forfeit());
    }

    #[test]
    fn every_rules_reason_but_ongoing_is_a_termination_with_the_engines_text() {
        let reasons = [
            Reason::Checkmate,
            Reason::Stalemate,
            Reason::PerpetualCheck,
            Reason::PerpetualChase,
            Reason::Repetition,
            Reason::MoveLimit,
        ];
        for r in reasons {
            assert!(Termination::ALL.contains(&Termination::Rules(r)), "{r}");
            assert_eq!(Termination::Rules(r).as_str(), r.as_str());
        }
        assert!(!Termination::ALL.contains(&Termination::Rules(Reason::Ongoing)));
        assert_eq!(Termination::Rules(Reason::Ongoing).as_str(), Reason::Ongoing.as_str());
    }

    #[test]
    fn an_unknown_reason_is_an_error_naming_it_and_the_choices() {
        let err = "resigned".parse::<Termination>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown termination reason `resigned` (expected checkmate or stalemate or perpetual_check or \
             perpetual_chase or repetition or move_limit or adjudication_resign or adjudication_draw or \
             illegal_move or no_move or time_forfeit or engine_error or engine_hung or tablebase)"
        );
        assert!(matches!(err, crate::Error::UnknownName { what: "termination reason", .. }));
    }
}
