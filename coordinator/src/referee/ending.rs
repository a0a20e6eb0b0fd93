//! The last position: is the reported reason one that ends the game here, and is the outcome
//! the one that reason gives?

use engine::notation::parse_uci;
use engine::rules::{GameResult, judge};
use engine::tablebase::{Material, Tablebases, Wdl};
use engine::{Color, Position};
use proto::domain::{Adjudicated, GameClock, GameOutcome, GameReport, TablePin, Termination};

use super::replay::{Lie, name};

/// Where the replay ended.
pub(super) struct Final<'a> {
    pub pos: &'a Position,
    pub plies: usize,
    /// The adjudicator's verdict after the last move (`None` before any move).
    pub verdict: Option<Adjudicated>,
    /// The clock after the last move, in a clock game.
    pub clock: Option<&'a GameClock>,
    /// The coordinator's endgame tables, for `tablebase` endings.
    pub tables: Option<&'a Tablebases>,
    /// The run's pinned tables: a `tablebase` ending counts only in one of these sets, with
    /// this coordinator's file of the pinned checksum.
    pub pins: &'a [TablePin],
}

fn result_of(outcome: GameOutcome) -> GameResult {
    match outcome {
        GameOutcome::RedWins => GameResult::RedWins,
        GameOutcome::BlackWins => GameResult::BlackWins,
        GameOutcome::Draw => GameResult::Draw,
    }
}

pub(super) fn check(end: &Final<'_>, game: &GameReport) -> Result<(), Lie> {
    let ply = end.plies;
    let lie = |what: String| Err(Lie::at(ply, what));
    let claimed = result_of(game.outcome);
    let reason = game.reason;
    let rules = judge(end.pos);
    if rules.is_over() {
        return match reason {
            Termination::Rules(r) if r == rules.reason && claimed == rules.result => Ok(()),
            Termination::Rules(r) if r == rules.reason => {
                lie(format!("the rules give {} by {r}, the report {claimed}", rules.result))
            }
            _ => lie(format!("the rules end the game here ({rules}), not {reason}")),
        };
    }
    if game.forfeit.is_some()
        && !matches!(reason, Termination::IllegalMove | Termination::NoMove | Termination::TimeForfeit)
    {
        return lie(format!("a forfeiting attempt reported for a game ended by {reason}"));
    }
    let side = end.pos.side_to_move();
    let side_loses = GameResult::loss_for(side);
    match reason {
        Termination::Rules(r) => lie(format!("{r} claimed, but the rules do not end the game here")),
        Termination::AdjudicatedResign | Termination::AdjudicatedDraw => {
            let (expected, kind) = match end.verdict {
                Some(Adjudicated::Resign { loser }) => (GameResult::loss_for(loser), Termination::AdjudicatedResign),
                Some(Adjudicated::Draw) => (GameResult::Draw, Termination::AdjudicatedDraw),
                None => return lie(format!("{reason}, but the adjudication rules do not trigger at this ply")),
            };
            if kind != reason {
                return lie(format!("{reason}, but the adjudication rules give {} here", end.verdict.map_or("", name)));
            }
            if claimed != expected {
                return lie(format!("{reason} gives {expected} here, the report {claimed}"));
            }
            Ok(())
        }
        // The tables come before the score adjudication, as in the worker's arbiter.
        Termination::Tablebase => {
            let Some(tables) = end.tables else {
                return lie("tablebase claimed, but this coordinator has no endgame tables (serve --tablebases)".into());
            };
            let set = Material::of(end.pos).canonical();
            let Some(&pinned) = TablePin::to_engine(end.pins).get(&set) else {
                return lie(format!("tablebase claimed in set {set}, which the run does not pin"));
            };
            match tables.checksum(set) {
                Ok(Some(ours)) if ours == pinned => {}
                Ok(Some(ours)) => {
                    return lie(format!(
                        "tablebase claimed in set {set}: the run pins its file at checksum {pinned:016x}, this \
                         coordinator's has {ours:016x}"
                    ));
                }
                Ok(None) => {
                    return lie(format!("tablebase claimed in set {set}, of which this coordinator has no table"));
                }
                Err(e) => return lie(format!("tablebase claimed, and the tables cannot be read: {e}")),
            }
            let expected = match tables.adjudicate(end.pos) {
                Ok(Some(Wdl::Win)) => GameResult::loss_for(!side),
                Ok(Some(Wdl::Loss)) => side_loses,
                Ok(Some(Wdl::Draw)) => GameResult::Draw,
                Ok(None) => {
                    return lie(format!("tablebase claimed, but the tables decide nothing at {}", end.pos.fen()));
                }
                Err(e) => return lie(format!("tablebase claimed, and the tables cannot be read: {e}")),
            };
            if claimed != expected {
                return lie(format!("the tables give {expected} at {}, the report {claimed}", end.pos.fen()));
            }
            Ok(())
        }
        _ if end.verdict.is_some() => {
            lie(format!("the adjudication rules end the game here ({}), not {reason}", end.verdict.map_or("", name)))
        }
        Termination::EngineError | Termination::EngineHung => {
            // Before the first move either engine may fail to start; later, only the mover's.
            let allowed = claimed == side_loses || (end.plies == 0 && claimed == GameResult::loss_for(!side));
            if allowed {
                Ok(())
            } else {
                lie(format!("{reason} gives a loss for the side at fault, the report {claimed}"))
            }
        }
        Termination::IllegalMove | Termination::NoMove | Termination::TimeForfeit => {
            if claimed != side_loses {
                return lie(format!("{reason} loses for {side} (to move), the report says {claimed}"));
            }
            forfeit(end, game, reason, side)
        }
    }
}

/// The attempt behind a forfeit, against the board and the clock.
fn forfeit(end: &Final<'_>, game: &GameReport, reason: Termination, side: Color) -> Result<(), Lie> {
    let lie = |what: String| Err(Lie::at(end.plies, what));
    let attempt = game.forfeit.as_ref();
    let left = end.clock.map(|c| c.left_ms(side));
    let within_time = |time_ms: u64| match left {
        Some(left) if time_ms > left => {
            lie(format!("the attempt took {time_ms} ms with {left} ms left: that is a time_forfeit, not {reason}"))
        }
        _ => Ok(()),
    };
    match reason {
        Termination::TimeForfeit => {
            let Some(left) = left else {
                return lie("time_forfeit in a game without a clock".to_owned());
            };
            let Some(attempt) = attempt else {
                return lie("time_forfeit without the time of the attempt that lost".to_owned());
            };
            if attempt.time_ms <= left {
                return lie(format!("time_forfeit, but the attempt took {} ms with {left} ms left", attempt.time_ms));
            }
            Ok(())
        }
        Termination::IllegalMove => {
            let Some((attempt, text)) = attempt.and_then(|a| Some((a, a.mv.as_deref()?))) else {
                return lie("illegal_move without the offending move".to_owned());
            };
            let mv = parse_uci(text).map_err(|e| Lie::at(end.plies, format!("the offending move `{text}`: {e}")))?;
            if end.pos.illegal_reason(mv).is_none() {
                return lie(format!("illegal_move, but `{text}` is legal here"));
            }
            within_time(attempt.time_ms)
        }
        // Unverifiable beyond the clock: the engine gave no move.
        _ => attempt.map_or(Ok(()), |a| within_time(a.time_ms)),
    }
}
