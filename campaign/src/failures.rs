//! Engine failures, attributed to the engine at fault: the forfeits of a run's games (a crash
//! or protocol break, a hang, a time loss, an illegal move, no move) counted per player, and the
//! rule that stops a run whose engine keeps failing, as a CI job needs: 10 failures of one
//! engine in a row, or more than half of its games failed once it has played 20.
//!
//! Pure: it hears each finished game once, in the order the farm recorded them.

use std::collections::BTreeMap;

use proto::domain::{GameOutcome, Termination};

/// Failures in a row of one engine that stop the run.
pub const CONSECUTIVE_LIMIT: u32 = 10;
/// Games an engine plays before its failure rate can stop the run.
pub const RATE_MIN_GAMES: u64 = 20;

/// One engine's games and failures, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct EngineFailures {
    pub games: u64,
    /// Crashed or broke the protocol (`engine_error`).
    pub engine_error: u64,
    /// Gave no answer within its time and the worker's grace, and was killed (`engine_hung`).
    pub engine_hung: u64,
    /// Ran out of its clock (`time_forfeit`).
    pub time_forfeit: u64,
    /// Played an illegal move (`illegal_move`).
    pub illegal_move: u64,
    /// Answered with no move (`no_move`).
    pub no_move: u64,
    /// Failures in a row up to the last game it played.
    #[serde(skip)]
    pub in_a_row: u32,
}

impl EngineFailures {
    pub fn total(&self) -> u64 {
        self.engine_error + self.engine_hung + self.time_forfeit + self.illegal_move + self.no_move
    }
}

/// Why a run must stop: an engine failing too often.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailureStop {
    pub engine: String,
    pub reason: String,
}

/// The failures of every player of a run, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FailureTally {
    engines: BTreeMap<String, EngineFailures>,
}

impl FailureTally {
    /// Counts a finished game between `red` and `black`: a forfeit is the loser's failure.
    pub fn record(&mut self, red: &str, black: &str, outcome: GameOutcome, reason: Termination) {
        let failed = match (reason.is_forfeit(), outcome) {
            (true, GameOutcome::RedWins) => Some(black),
            (true, GameOutcome::BlackWins) => Some(red),
            _ => None,
        };
        for name in [red, black] {
            let entry = self.engines.entry(name.to_owned()).or_default();
            entry.games += 1;
            if failed == Some(name) {
                entry.in_a_row += 1;
                match reason {
                    Termination::EngineError => entry.engine_error += 1,
                    Termination::EngineHung => entry.engine_hung += 1,
                    Termination::TimeForfeit => entry.time_forfeit += 1,
                    Termination::IllegalMove => entry.illegal_move += 1,
                    _ => entry.no_move += 1,
                }
            } else {
                entry.in_a_row = 0;
            }
        }
    }

    /// The engines and their failures, by name.
    pub fn engines(&self) -> &BTreeMap<String, EngineFailures> {
        &self.engines
    }

    /// The first engine (by name) whose failures stop the run, and why.
    pub fn stop(&self) -> Option<FailureStop> {
        self.engines.iter().find_map(|(name, f)| {
            let reason = if f.in_a_row >= CONSECUTIVE_LIMIT {
                format!("{} failures in a row ({})", f.in_a_row, kinds(f))
            } else if f.games >= RATE_MIN_GAMES && 2 * f.total() > f.games {
                format!("{} of its {} games failed ({})", f.total(), f.games, kinds(f))
            } else {
                return None;
            };
            Some(FailureStop { engine: name.clone(), reason })
        })
    }
}

/// `7 crashed or broke the protocol, 3 hung, 1 lost on time`: the kinds an engine failed by.
pub fn kinds(f: &EngineFailures) -> String {
    let parts = [
        (f.engine_error, "crashed or broke the protocol"),
        (f.engine_hung, "hung"),
        (f.time_forfeit, "lost on time"),
        (f.illegal_move, "played an illegal move"),
        (f.no_move, "returned no move"),
    ];
    let text: Vec<String> = parts.iter().filter(|(n, _)| *n > 0).map(|(n, what)| format!("{n} {what}")).collect();
    if text.is_empty() { "none".to_owned() } else { text.join(", ") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::rules::Reason;

    const MATE: Termination = Termination::Rules(Reason::Checkmate);

    #[test]
    fn a_forfeit_is_the_losers_failure_and_ten_in_a_row_stop_the_run() {
        let mut tally = FailureTally::default();
        tally.record("new", "base", GameOutcome::RedWins, MATE);
        tally.record("base", "new", GameOutcome::RedWins, Termination::EngineError);
        assert_eq!(tally.engines()["new"].engine_error, 1);
        assert_eq!(tally.engines()["base"].total(), 0);
        assert_eq!(tally.engines()["new"].games, 2);
        // A game won on the board between failures resets the run of failures.
        for i in 0..9 {
            let (red, black, outcome) = if i % 2 == 0 {
                ("new", "base", GameOutcome::BlackWins)
            } else {
                ("base", "new", GameOutcome::RedWins)
            };
            tally.record(red, black, outcome, Termination::TimeForfeit);
        }
        assert_eq!(tally.engines()["new"].in_a_row, 10);
        let stop = tally.stop().expect("ten in a row");
        assert_eq!(stop.engine, "new");
        assert_eq!(stop.reason, "10 failures in a row (1 crashed or broke the protocol, 9 lost on time)");
    }

    #[test]
    fn more_than_half_failed_stops_only_after_twenty_games() {
        let mut tally = FailureTally::default();
        // Fail, win, fail, ...: never ten in a row, but 11 of 21 games.
        for i in 0..19 {
            let reason = if i % 2 == 0 { Termination::IllegalMove } else { Termination::AdjudicatedDraw };
            let outcome = if i % 2 == 0 { GameOutcome::BlackWins } else { GameOutcome::Draw };
            tally.record("crashy", "base", outcome, reason);
        }
        assert_eq!(tally.engines()["crashy"].total(), 10);
        assert_eq!(tally.stop(), None, "10 of 19: not yet 20 games");
        tally.record("crashy", "base", GameOutcome::Draw, Termination::AdjudicatedDraw);
        assert_eq!(tally.stop(), None, "10 of 20 is half, not more");
        tally.record("base", "crashy", GameOutcome::RedWins, Termination::NoMove);
        let stop = tally.stop().expect("11 of 21");
        assert_eq!(stop.engine, "crashy");
        assert_eq!(stop.reason, "11 of its 21 games failed (10 played an illegal move, 1 returned no move)");
        // A draw by the rules is nobody's failure, even a forfeit-free one.
        assert_eq!(tally.engines()["base"].total(), 0);
    }
}
