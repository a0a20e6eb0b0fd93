//! One game between two players, with the worker as the arbiter: the engine crate's rules
//! judge mate, stalemate, the 120-ply limit and Asian-rules repetition; the players' own
//! claims are never asked for.

use std::time::{Duration, Instant};

use engine::rules::{GameResult, Reason, judge};
use engine::tablebase::{Pins, Tablebases, Wdl};
use engine::{Color, Limits, Move, Position};
use proto::domain::{Adjudicated, Adjudication, Adjudicator, GAME_PLY_CAP, GameClock};
use std::sync::Arc;

use crate::error::Error;
use crate::player::Player;

pub use proto::domain::{Termination, TimeControl};

/// The attempt that forfeited a game (not among its moves).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// What the engine answered, if it answered a move.
    pub mv: Option<Move>,
    /// The time it took, in the clock's whole milliseconds.
    pub time_ms: u64,
}

/// What happened in one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    pub start_fen: String,
    pub moves: Vec<Move>,
    /// The movers' own scores, one per move.
    pub scores: Vec<Option<i32>>,
    /// The time each move took, in the clock's whole milliseconds, one per move.
    pub times_ms: Vec<u64>,
    pub result: GameResult,
    pub termination: Termination,
    /// For an illegal move, no move or a time forfeit: the attempt that lost.
    pub attempt: Option<Attempt>,
    /// Details of a forfeit (the illegal move and why, the engine's error).
    pub detail: Option<String>,
    pub nodes: u64,
    pub duration: Duration,
}

/// Settings of a game.
#[derive(Clone, Debug)]
pub struct GameSettings {
    pub tc: TimeControl,
    pub adjudication: Adjudication,
    /// A hard cap for runaway games (an adjudicated draw); the farm always plays
    /// [`GAME_PLY_CAP`], which its referee checks.
    pub max_plies: usize,
    /// Endgame tables: a game that enters one of the pinned sets ends with its verdict
    /// (`tablebase`), where [`Tablebases::adjudicate_pinned`] gives one.
    pub tablebases: Option<PinnedTables>,
}

/// The worker's endgame tables with the sets its run pinned (`Lease::tablebases`): a game is
/// ended only by a pinned set whose file here has the pinned checksum.
#[derive(Clone, Debug)]
pub struct PinnedTables {
    pub tables: Arc<Tablebases>,
    pub pins: Arc<Pins>,
}

impl GameSettings {
    pub fn new(tc: TimeControl) -> GameSettings {
        GameSettings { tc, adjudication: Adjudication::default(), max_plies: GAME_PLY_CAP, tablebases: None }
    }
}

/// The tables' verdict on `pos` as a game result, if they end the game here. A table that
/// cannot be read ends nothing (and is logged): the game goes on.
fn tablebase_result(tables: Option<&PinnedTables>, pos: &Position) -> Option<GameResult> {
    let side = pos.side_to_move();
    let tables = tables?;
    match tables.tables.adjudicate_pinned(pos, &tables.pins) {
        Ok(Some(Wdl::Win)) => Some(GameResult::loss_for(!side)),
        Ok(Some(Wdl::Loss)) => Some(GameResult::loss_for(side)),
        Ok(Some(Wdl::Draw)) => Some(GameResult::Draw),
        Ok(None) => None,
        Err(e) => {
            tracing::warn!("endgame tables: {e}");
            None
        }
    }
}

/// Plays `start` to the end. `players[0]` plays Red. The rules come first, then the shared
/// [`Adjudicator`], then the shared [`GameClock`]: exactly what the coordinator's referee
/// replays.
pub fn play_game(players: [&mut dyn Player; 2], start: &Position, settings: &GameSettings) -> GameRecord {
    let began = Instant::now();
    let [red, black] = players;
    let mut players: [&mut dyn Player; 2] = [red, black];
    let mut pos = start.clone();
    let mut record = GameRecord {
        start_fen: start.fen(),
        moves: Vec::new(),
        scores: Vec::new(),
        times_ms: Vec::new(),
        result: GameResult::Ongoing,
        termination: Termination::Rules(Reason::Ongoing),
        attempt: None,
        detail: None,
        nodes: 0,
        duration: Duration::ZERO,
    };
    let mut clock = GameClock::new(settings.tc);
    let mut adjudicator = Adjudicator::new(settings.adjudication).with_ply_cap(settings.max_plies);
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

    let outcome = judge(&pos);
    if outcome.is_over() {
        record.result = outcome.result;
        record.termination = Termination::Rules(outcome.reason);
    }
    while !record.result_is_final() {
        let side = pos.side_to_move();
        let limits = limits_for(settings.tc, clock.as_ref());
        let started = Instant::now();
        let reply = players[side.index()].play(&pos, &limits);
        let used_ms = started.elapsed().as_millis() as u64;
        let reply = match reply {
            Ok(r) => r,
            Err(e) => {
                let why = if matches!(e, Error::EngineHung { .. }) {
                    Termination::EngineHung
                } else {
                    Termination::EngineError
                };
                forfeit(&mut record, side, why, e.to_string());
                break;
            }
        };
        record.nodes += reply.nodes;
        if let Some(clock) = clock.as_mut()
            && let Err(over) = clock.spend(side, used_ms)
        {
            record.attempt = Some(Attempt { mv: reply.mv, time_ms: used_ms });
            let detail = format!("used {} ms with {} ms left", over.used_ms, over.left_ms);
            forfeit(&mut record, side, Termination::TimeForfeit, detail);
            break;
        }
        let Some(mv) = reply.mv else {
            record.attempt = Some(Attempt { mv: None, time_ms: used_ms });
            forfeit(&mut record, side, Termination::NoMove, "the engine returned no move".to_owned());
            break;
        };
        if let Some(why) = pos.illegal_reason(mv) {
            record.attempt = Some(Attempt { mv: Some(mv), time_ms: used_ms });
            forfeit(&mut record, side, Termination::IllegalMove, format!("illegal move {mv}: {why}"));
            break;
        }
        pos.play_unchecked(mv);
        record.moves.push(mv);
        record.scores.push(reply.score);
        record.times_ms.push(used_ms);
        // The adjudicator follows every move; the rules come first when both would end it.
        let verdict = adjudicator.record(side, reply.score, pos.fullmove());
        let outcome = judge(&pos);
        if outcome.is_over() {
            record.result = outcome.result;
            record.termination = Termination::Rules(outcome.reason);
        } else if let Some(result) = tablebase_result(settings.tablebases.as_ref(), &pos) {
            record.result = result;
            record.termination = Termination::Tablebase;
        } else if let Some(verdict) = verdict {
            match verdict {
                Adjudicated::Resign { loser } => {
                    record.result = GameResult::loss_for(loser);
                    record.termination = Termination::AdjudicatedResign;
                }
                Adjudicated::Draw => {
                    record.result = GameResult::Draw;
                    record.termination = Termination::AdjudicatedDraw;
                    if record.moves.len() >= settings.max_plies {
                        record.detail = Some(format!("{} plies", settings.max_plies));
                    }
                }
            }
        }
    }
    record.duration = began.elapsed();
    record
}

impl GameRecord {
    fn result_is_final(&self) -> bool {
        self.result != GameResult::Ongoing
    }
}

fn limits_for(tc: TimeControl, clock: Option<&GameClock>) -> Limits {
    match tc {
        TimeControl::Nodes(n) => Limits::nodes(n),
        TimeControl::Depth(d) => Limits::depth(d),
        TimeControl::MoveTimeMs(t) => Limits { movetime: Some(Duration::from_millis(t)), ..Limits::default() },
        TimeControl::Clock { inc_ms, .. } => {
            let inc = Duration::from_millis(inc_ms);
            let left = |side| clock.map(|c| Duration::from_millis(c.left_ms(side)));
            Limits { time: [left(Color::Red), left(Color::Black)], inc: [inc, inc], ..Limits::default() }
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
    fn a_game_that_enters_a_table_ends_with_its_verdict() {
        let dir = tempfile::tempdir().expect("temp dir");
        let tables = Tablebases::open(dir.path()).expect("a directory");
        tables.generate("KRKA".parse().expect("a set"), &|_| {}).expect("generates");
        let tables = Arc::new(tables);
        // The rook takes the knight: K+R vs K+A, lost for Black.
        let start = Position::from_fen("4k4/4a4/9/9/4n4/9/9/4R4/9/3K5 w - - 0 1").expect("valid");
        let all = Arc::new(tables.manifest().expect("lists").into_iter().collect::<Pins>());
        let play = |tables: Option<Arc<Tablebases>>, pins: &Arc<Pins>| {
            let tablebases = tables.map(|tables| PinnedTables { tables, pins: pins.clone() });
            let mut a = InProcess::new("a", Params::default());
            let mut b = InProcess::new("b", Params::default());
            let settings = GameSettings { tablebases, max_plies: 40, ..GameSettings::new(TimeControl::Depth(3)) };
            play_game([&mut a, &mut b], &start, &settings)
        };
        let g = play(Some(tables.clone()), &all);
        assert_eq!(g.moves.first().map(|m| m.to_string()).as_deref(), Some("e2e5"));
        assert_eq!((g.termination, g.result, g.moves.len()), (Termination::Tablebase, GameResult::RedWins, 1));
        let g = play(None, &all);
        assert_ne!(g.termination, Termination::Tablebase);
        assert!(g.moves.len() > 1);
        // A run that did not pin K+R vs K+A (or pinned another file of it) is not ended by it.
        let mut without = (*all).clone();
        without.remove(&"KRKA".parse().expect("a set"));
        let g = play(Some(tables.clone()), &Arc::new(without));
        assert_ne!(g.termination, Termination::Tablebase);
        let stale = Arc::new(all.iter().map(|(m, sum)| (*m, sum ^ 1)).collect::<Pins>());
        let g = play(Some(tables), &stale);
        assert_ne!(g.termination, Termination::Tablebase);
    }

    #[test]
    fn clock_games_are_not_lost_on_time() {
        // A fast clock, with the default move overhead: the time manager must never
        // overstep (the worker, not the engine, keeps the clock).
        let mut a = InProcess::new("a", Params::default());
        let mut b = InProcess::new("b", Params::default());
        let tc = TimeControl::Clock { base_ms: 800, inc_ms: 20 };
        let settings =
            GameSettings { max_plies: 60, adjudication: proto::domain::NO_ADJUDICATION, ..GameSettings::new(tc) };
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
        let attempt = g.attempt.expect("the illegal move is kept");
        assert_eq!(attempt.mv.map(|m| m.to_string()).as_deref(), Some("a0a9"));
        assert_eq!((g.moves.len(), g.times_ms.len(), g.scores.len()), (1, 1, 1));
    }
}
