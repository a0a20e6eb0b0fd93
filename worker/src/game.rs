//! One game between two players, with the worker as the arbiter: the engine crate's rules
//! judge mate, stalemate, the 120-ply limit and Asian-rules repetition; the players' own
//! claims are never asked for.

use std::time::{Duration, Instant};

use engine::rules::{GameResult, Reason, judge};
use engine::{Color, Limits, Move, Position};

use crate::adjudication::{Adjudicated, Adjudication, Adjudicator};
use crate::player::Player;

pub use proto::domain::TimeControl;

/// Why a game ended, beyond the rules' own reasons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    Rules(Reason),
    AdjudicatedResign,
    AdjudicatedDraw,
    IllegalMove,
    NoMove,
    TimeForfeit,
    EngineError,
}

impl Termination {
    pub fn as_str(self) -> &'static str {
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
}

/// What happened in one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    pub start_fen: String,
    pub moves: Vec<Move>,
    /// The movers' own scores, one per move.
    pub scores: Vec<Option<i32>>,
    pub result: GameResult,
    pub termination: Termination,
    /// Details of a forfeit (the illegal move and why, the engine's error).
    pub detail: Option<String>,
    pub nodes: u64,
    pub duration: Duration,
}

/// Settings of a game.
#[derive(Clone, Copy, Debug)]
pub struct GameSettings {
    pub tc: TimeControl,
    pub adjudication: Adjudication,
    /// A hard cap for runaway games (draw), far beyond the 120-ply rule's reach.
    pub max_plies: usize,
}

impl GameSettings {
    pub fn new(tc: TimeControl) -> GameSettings {
        GameSettings { tc, adjudication: Adjudication::default(), max_plies: 1000 }
    }
}

/// Plays `start` to the end. `players[0]` plays Red.
pub fn play_game(players: [&mut dyn Player; 2], start: &Position, settings: &GameSettings) -> GameRecord {
    let began = Instant::now();
    let [red, black] = players;
    let mut players: [&mut dyn Player; 2] = [red, black];
    let mut pos = start.clone();
    let mut record = GameRecord {
        start_fen: start.fen(),
        moves: Vec::new(),
        scores: Vec::new(),
        result: GameResult::Ongoing,
        termination: Termination::Rules(Reason::Ongoing),
        detail: None,
        nodes: 0,
        duration: Duration::ZERO,
    };
    let mut clocks = match settings.tc {
        TimeControl::Clock { base_ms, .. } => [Some(Duration::from_millis(base_ms)); 2],
        _ => [None, None],
    };
    let mut adjudicator = Adjudicator::default();
    let forfeit = |record: &mut GameRecord, loser: Color, why: Termination, detail: String| {
        record.result = GameResult::loss_for(loser);
        record.termination = why;
        record.detail = Some(detail);
    };
    for (p, color) in players.iter_mut().zip([Color::Red, Color::Black]) {
        if let Err(e) = p.new_game() {
            forfeit(&mut record, color, Termination::EngineError, e.to_string());
            record.duration = began.elapsed();
            return record;
        }
    }

    loop {
        let outcome = judge(&pos);
        if outcome.result != GameResult::Ongoing {
            record.result = outcome.result;
            record.termination = Termination::Rules(outcome.reason);
            break;
        }
        if record.moves.len() >= settings.max_plies {
            record.result = GameResult::Draw;
            record.termination = Termination::AdjudicatedDraw;
            record.detail = Some(format!("{} plies", settings.max_plies));
            break;
        }
        let side = pos.side_to_move();
        let limits = limits_for(settings.tc, &clocks);
        let started = Instant::now();
        let reply = players[side.index()].play(&pos, &limits);
        let used = started.elapsed();
        let reply = match reply {
            Ok(r) => r,
            Err(e) => {
                forfeit(&mut record, side, Termination::EngineError, e.to_string());
                break;
            }
        };
        if let (TimeControl::Clock { inc_ms, .. }, Some(left)) = (settings.tc, clocks[side.index()]) {
            if used > left {
                forfeit(&mut record, side, Termination::TimeForfeit, format!("used {used:?} with {left:?} left"));
                break;
            }
            clocks[side.index()] = Some(left - used + Duration::from_millis(inc_ms));
        }
        record.nodes += reply.nodes;
        let Some(mv) = reply.mv else {
            forfeit(&mut record, side, Termination::NoMove, "the engine returned no move".to_owned());
            break;
        };
        if let Some(why) = pos.illegal_reason(mv) {
            forfeit(&mut record, side, Termination::IllegalMove, format!("illegal move {mv}: {why}"));
            break;
        }
        pos.play_unchecked(mv);
        record.moves.push(mv);
        record.scores.push(reply.score);
        if let Some(verdict) =
            adjudicator.record(&settings.adjudication, side == Color::Red, reply.score, pos.fullmove())
        {
            // The rules come first: a move that ends the game is judged by them.
            let outcome = judge(&pos);
            if outcome.result != GameResult::Ongoing {
                record.result = outcome.result;
                record.termination = Termination::Rules(outcome.reason);
            } else {
                match verdict {
                    Adjudicated::Resign { loser } => {
                        record.result = GameResult::loss_for(if loser == 0 { Color::Red } else { Color::Black });
                        record.termination = Termination::AdjudicatedResign;
                    }
                    Adjudicated::Draw => {
                        record.result = GameResult::Draw;
                        record.termination = Termination::AdjudicatedDraw;
                    }
                }
            }
            break;
        }
    }
    record.duration = began.elapsed();
    record
}

fn limits_for(tc: TimeControl, clocks: &[Option<Duration>; 2]) -> Limits {
    match tc {
        TimeControl::Nodes(n) => Limits::nodes(n),
        TimeControl::Depth(d) => Limits::depth(d),
        TimeControl::MoveTimeMs(t) => Limits { movetime: Some(Duration::from_millis(t)), ..Limits::default() },
        TimeControl::Clock { inc_ms, .. } => {
            let inc = Duration::from_millis(inc_ms);
            Limits { time: *clocks, inc: [inc, inc], ..Limits::default() }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::{InProcess, Reply};
    use engine::eval::Params;

    #[test]
    fn a_game_ends_by_the_rules() {
        let mut a = InProcess::new("a", Params::default());
        let mut b = InProcess::new("b", Params::default());
        // Red mates in one.
        let start = Position::from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1").expect("valid");
        let g = play_game([&mut a, &mut b], &start, &GameSettings::new(TimeControl::Depth(3)));
        assert_eq!(g.result, GameResult::RedWins);
        assert_eq!(g.termination, Termination::Rules(Reason::Checkmate));
        assert_eq!(g.moves.len(), 1);
    }

    #[test]
    fn clock_games_are_not_lost_on_time() {
        // A fast clock, with the default move overhead: the time manager must never
        // overstep (the worker, not the engine, keeps the clock).
        let mut a = InProcess::new("a", Params::default());
        let mut b = InProcess::new("b", Params::default());
        let tc = TimeControl::Clock { base_ms: 800, inc_ms: 20 };
        let settings =
            GameSettings { max_plies: 60, adjudication: crate::adjudication::NO_ADJUDICATION, ..GameSettings::new(tc) };
        let g = play_game([&mut a, &mut b], &Position::startpos(), &settings);
        assert_ne!(g.termination, Termination::TimeForfeit, "{:?}", g.detail);
        assert!(g.moves.len() >= 20, "{} plies", g.moves.len());
    }

    struct Cheater;
    impl Player for Cheater {
        fn name(&self) -> &str {
            "cheater"
        }
        fn new_game(&mut self) -> crate::Result<()> {
            Ok(())
        }
        fn play(&mut self, _pos: &Position, _limits: &Limits) -> crate::Result<Reply> {
            let mv = engine::notation::parse_uci("a0a9").expect("uci");
            Ok(Reply { mv: Some(mv), score: None, nodes: 0 })
        }
    }

    #[test]
    fn an_illegal_move_loses_with_the_reason() {
        let mut a = InProcess::new("a", Params::default());
        let mut cheat = Cheater;
        let g = play_game([&mut a, &mut cheat], &Position::startpos(), &GameSettings::new(TimeControl::Depth(2)));
        assert_eq!(g.result, GameResult::RedWins);
        assert_eq!(g.termination, Termination::IllegalMove);
        assert!(g.detail.as_deref().is_some_and(|d| d.contains("a0a9")), "{:?}", g.detail);
    }
}
