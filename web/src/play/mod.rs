//! The human-machine play page (seed 004): sessions of man vs man or man vs engine with
//! undo/redo, FEN and PGN save/load and move texts, the engine's searches on a bounded pool.
//!
//! - `game`: a session's game as pure state (moves, redo stack, legal moves, verdict).
//! - `pgn`: writing and reading PGN.
//! - `limit`: the bounded search limits.
//! - `catalog`: the engines offered and how to seat them.
//! - `player`: a seated engine and its search.
//! - `pool`: the bounded pool searches run on.
//! - `sessions`: the capped session table.
//! - `view`: the JSON of a session.
//! - `routes`: the `/api/play` handlers.

pub mod catalog;
pub mod error;
pub mod game;
pub mod limit;
pub mod pgn;
pub mod player;
pub mod pool;
mod routes;
pub mod sessions;
pub mod view;

use std::sync::Arc;
use std::time::Duration;

use coordinator::farm::Farm;
use engine::Color;
use engine::notation::Notation;
use tokio::time::Instant;
use worker::engines::EngineSet;
use worker::external::{ExternalConfig, ExternalEngine};

pub use error::{PlayError, PlayResult};
pub use routes::routes;

use catalog::{EngineEntry, Recipe, Resolved};
use game::Game;
use limit::{Limit, LimitSpec};
use player::{Analysis, EnginePlayer};
use pool::SearchPool;
use sessions::{Caps, Seat, Session, SessionTable, lock};
use view::{PlayState, play_state};

/// Caps of the play page.
#[derive(Clone, Debug)]
pub struct PlayConfig {
    /// Play sessions open at once; one more gets 503.
    pub max_sessions: usize,
    /// Transposition table of one engine player, MiB.
    pub session_hash_mib: usize,
    /// All engine players' tables together, MiB; beyond it a new engine session gets 503.
    pub total_hash_mib: usize,
    /// Engine searches running at once (the pool); others wait their turn.
    pub search_threads: usize,
    /// The longest time per move a player may ask for, ms.
    pub max_movetime_ms: u64,
    /// An opening book (`serve --book`): the page lists its moves in the current position.
    pub book: Option<Arc<engine::book::Book>>,
}

impl Default for PlayConfig {
    fn default() -> PlayConfig {
        PlayConfig {
            max_sessions: 64,
            session_hash_mib: 16,
            total_hash_mib: 512,
            search_threads: 1,
            max_movetime_ms: 10_000,
            book: None,
        }
    }
}

/// The limit of an engine seat that names none.
const DEFAULT_LIMIT: Limit = Limit::MoveTime(Duration::from_millis(1000));
/// The limit of an analysis that names none.
const DEFAULT_ANALYSIS: Limit = Limit::MoveTime(Duration::from_millis(500));
/// The hash table of an analysis engine (one per running analysis, so at most
/// `search_threads` of them), MiB.
const ANALYSIS_HASH_MIB: usize = 8;

/// One side of `POST /api/play`: `{"human": true}` or `{"engine": id, "limit": {...}}`.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideSpec {
    pub human: Option<bool>,
    pub engine: Option<String>,
    pub limit: Option<LimitSpec>,
}

/// The body of `POST /api/play`.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateRequest {
    pub fen: Option<String>,
    #[serde(default)]
    pub red: SideSpec,
    #[serde(default)]
    pub black: SideSpec,
}

/// The body of `POST /api/play/{sid}/load`: one of the two.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadRequest {
    pub fen: Option<String>,
    pub pgn: Option<String>,
}

/// A seat asked for, checked and resolved, before its engine starts.
enum SeatPlan {
    Human,
    Engine { resolved: Resolved, limit: Limit },
}

/// The play sessions and the engine pool.
#[derive(Debug)]
pub struct PlayService {
    pub config: PlayConfig,
    farm: Arc<Farm>,
    engines: Arc<EngineSet>,
    sessions: SessionTable,
    pool: SearchPool,
}

impl PlayService {
    pub fn new(config: PlayConfig, farm: Arc<Farm>, engines: Arc<EngineSet>) -> PlayService {
        let sessions = SessionTable::new(Caps {
            max_sessions: config.max_sessions,
            total_hash_mib: config.total_hash_mib,
            idle_ttl: sessions::IDLE_TTL,
        });
        let pool = SearchPool::new(config.search_threads);
        PlayService { config, farm, engines, sessions, pool }
    }

    pub fn farm(&self) -> &Arc<Farm> {
        &self.farm
    }

    pub fn engines(&self) -> &Arc<EngineSet> {
        &self.engines
    }

    /// Sessions open now.
    pub fn open_sessions(&self) -> usize {
        self.sessions.len()
    }

    fn max_movetime(&self) -> Duration {
        Duration::from_millis(self.config.max_movetime_ms)
    }

    /// `GET /api/play/engines`.
    pub fn engine_list(&self) -> PlayResult<Vec<EngineEntry>> {
        catalog::list(&self.farm, &self.engines)
    }

    fn plan(&self, side: &SideSpec, field: &str) -> PlayResult<SeatPlan> {
        let bad = |reason: &str| PlayError::BadField { field: field.to_owned(), reason: reason.to_owned() };
        match (side.human, &side.engine) {
            (Some(true), None) if side.limit.is_none() => Ok(SeatPlan::Human),
            (Some(true), None) => Err(bad("a human seat takes no limit")),
            (None | Some(false), Some(id)) => {
                let limit = side.limit.unwrap_or_default().check(
                    &format!("{field}.limit"),
                    self.config.max_movetime_ms,
                    Some(DEFAULT_LIMIT),
                )?;
                let resolved = catalog::resolve(&self.farm, &self.engines, id, &format!("{field}.engine"))?;
                Ok(SeatPlan::Engine { resolved, limit })
            }
            (Some(true), Some(_)) => Err(bad("a seat is either {\"human\": true} or {\"engine\": id}, not both")),
            _ => Err(bad("expected {\"human\": true} or {\"engine\": \"<id>\", \"limit\": {...}}")),
        }
    }

    /// `POST /api/play`: a new session, its engines started.
    pub async fn create(&self, req: CreateRequest) -> PlayResult<PlayState> {
        let game = match &req.fen {
            Some(fen) => Game::from_fen(fen)?,
            None => Game::startpos(),
        };
        let plans = [self.plan(&req.red, "red")?, self.plan(&req.black, "black")?];
        let hash_mib = self.config.session_hash_mib;
        let needed = hash_mib * plans.iter().filter(|p| matches!(p, SeatPlan::Engine { .. })).count();
        self.sessions.check_room(needed)?;
        let seats = tokio::task::spawn_blocking(move || plans.map(|plan| seat(plan, hash_mib)))
            .await
            .map_err(|e| PlayError::Internal(format!("starting the engines: {e}")))?;
        let [red, black] = seats;
        let session = Session { id: String::new(), game, seats: [red?, black?] };
        let (_, shared) = self.sessions.insert(session, needed)?;
        let state = play_state(&lock(&shared), self.config.book.as_deref());
        tracing::info!(session = %state.id, red = ?state.red, black = ?state.black, "play session opened");
        Ok(state)
    }

    /// `GET /api/play/{sid}`.
    pub fn state(&self, id: &str) -> PlayResult<PlayState> {
        Ok(play_state(&lock(&self.sessions.get(id)?), self.config.book.as_deref()))
    }

    /// `DELETE /api/play/{sid}`.
    pub fn close(&self, id: &str) -> PlayResult<()> {
        self.sessions.remove(id)
    }

    /// Runs `change` on the session's game and answers the new state.
    fn change(&self, id: &str, change: impl FnOnce(&mut Game) -> PlayResult<()>) -> PlayResult<PlayState> {
        let session = self.sessions.get(id)?;
        let mut s = lock(&session);
        change(&mut s.game)?;
        Ok(play_state(&s, self.config.book.as_deref()))
    }

    /// `POST /api/play/{sid}/move`: a human's move (any notation the engine reads).
    pub fn play_move(&self, id: &str, text: &str) -> PlayResult<PlayState> {
        self.change(id, |game| game.play_text(text).map(|_| ()))
    }

    /// `POST /api/play/{sid}/undo`.
    pub fn undo(&self, id: &str, count: usize) -> PlayResult<PlayState> {
        self.change(id, |game| {
            game.undo(count);
            Ok(())
        })
    }

    /// `POST /api/play/{sid}/redo`.
    pub fn redo(&self, id: &str, count: usize) -> PlayResult<PlayState> {
        self.change(id, |game| {
            game.redo(count);
            Ok(())
        })
    }

    /// `POST /api/play/{sid}/load`: a FEN or a PGN replaces the game (the seats stay).
    pub fn load(&self, id: &str, req: &LoadRequest) -> PlayResult<PlayState> {
        let game = match (&req.fen, &req.pgn) {
            (Some(fen), None) => Game::from_fen(fen)?,
            (None, Some(pgn)) => pgn::read(pgn)?.game,
            _ => {
                return Err(PlayError::BadField {
                    field: "body".into(),
                    reason: "give one of {\"fen\": ...} or {\"pgn\": ...}".into(),
                });
            }
        };
        self.change(id, |old| {
            old.replace(game);
            Ok(())
        })
    }

    /// `GET /api/play/{sid}/pgn`.
    pub fn pgn(&self, id: &str, notation: Notation) -> PlayResult<String> {
        let session = self.sessions.get(id)?;
        let s = lock(&session);
        let name = |color: Color| match s.seat(color) {
            Seat::Human => "Human".to_owned(),
            Seat::Engine { name, .. } => name.clone(),
        };
        let names = pgn::PgnNames { red: name(Color::Red), black: name(Color::Black) };
        Ok(pgn::write(&s.game, &names, notation))
    }

    /// `POST /api/play/{sid}/reply`: the engine to move plays, within its budget (the wait for
    /// a place on the pool included).
    pub async fn reply(&self, id: &str) -> PlayResult<PlayState> {
        let started = Instant::now();
        let session = self.sessions.get(id)?;
        let (limit, version) = {
            let s = lock(&session);
            let limit = engine_turn(&s)?;
            (limit, s.game.version())
        };
        let deadline = started + limit.budget(self.max_movetime());
        let slot = self.pool.acquire(deadline).await?;
        let (mut player, pos, color) = {
            let mut s = lock(&session);
            if s.game.version() != version {
                return Err(changed());
            }
            engine_turn(&s)?;
            let color = s.game.side_to_move();
            let pos = s.game.position().clone();
            let Seat::Engine { player, .. } = s.seat_mut(color) else { return Err(changed()) };
            let player = player.take().ok_or_else(|| PlayError::Conflict("the engine is already thinking".into()))?;
            (player, pos, color)
        };
        let limits = limit.engine_limits(slot.remaining());
        let back = Arc::clone(&session);
        // The player goes back to its seat on the blocking thread, so a request dropped while
        // the engine thinks loses nothing.
        let found = self
            .pool
            .run(slot, move || {
                let found = player.search(&pos, &limits);
                if let Seat::Engine { player: seat, .. } = lock(&back).seat_mut(color) {
                    *seat = Some(player);
                }
                found
            })
            .await?
            .map_err(|e| PlayError::Unavailable(format!("the engine failed: {e}")))?;
        let mut s = lock(&session);
        if s.game.version() != version {
            return Err(changed());
        }
        let best = found.best.ok_or_else(|| PlayError::Internal("the engine returned no move".into()))?;
        s.game.play(best)?;
        tracing::debug!(session = %id, mv = %best, elapsed_ms = started.elapsed().as_millis(), "engine replied");
        Ok(play_state(&s, self.config.book.as_deref()))
    }

    /// `POST /api/play/{sid}/analyse`: the built-in engine's view of the current position.
    pub async fn analyse(&self, id: &str, spec: LimitSpec) -> PlayResult<Analysis> {
        let started = Instant::now();
        let limit = spec.check("limit", self.config.max_movetime_ms, Some(DEFAULT_ANALYSIS))?;
        let session = self.sessions.get(id)?;
        let pos = {
            let s = lock(&session);
            let outcome = s.game.outcome();
            if outcome.is_over() {
                return Err(PlayError::Conflict(format!(
                    "the game is over ({}): nothing to analyse",
                    game::verdict_text(outcome)
                )));
            }
            s.game.position().clone()
        };
        let slot = self.pool.acquire(started + limit.budget(self.max_movetime())).await?;
        let limits = limit.engine_limits(slot.remaining());
        self.pool
            .run(slot, move || {
                EnginePlayer::in_process(engine::eval::Params::default(), ANALYSIS_HASH_MIB).search(&pos, &limits)
            })
            .await?
            .map_err(PlayError::Internal)
    }
}

fn changed() -> PlayError {
    PlayError::Conflict("the game changed while the engine was thinking; ask for its reply again".into())
}

/// The limit of the engine to move, or why it is not an engine's turn.
fn engine_turn(s: &Session) -> PlayResult<Limit> {
    let outcome = s.game.outcome();
    if outcome.is_over() {
        return Err(PlayError::Conflict(format!("the game is over: {}", game::verdict_text(outcome))));
    }
    let color = s.game.side_to_move();
    match s.seat(color) {
        Seat::Human => Err(PlayError::Conflict(format!(
            "it is {color}'s turn and {color} is played by a human: send the move to /move"
        ))),
        Seat::Engine { player: None, .. } => Err(PlayError::Conflict("the engine is already thinking".into())),
        Seat::Engine { limit, .. } => Ok(*limit),
    }
}

/// Starts the engine of a planned seat (blocking: an external engine's handshake).
fn seat(plan: SeatPlan, hash_mib: usize) -> PlayResult<Seat> {
    let SeatPlan::Engine { resolved, limit } = plan else { return Ok(Seat::Human) };
    let player = match resolved.recipe {
        Recipe::InProcess(params, network) => EnginePlayer::in_process_with(*params, network, hash_mib),
        Recipe::External(command) => {
            let engine = ExternalEngine::spawn(resolved.name.clone(), command, ExternalConfig::default())
                .map_err(|e| PlayError::Unavailable(format!("engine `{}` did not start: {e}", resolved.id)))?;
            EnginePlayer::External(Box::new(engine))
        }
    };
    Ok(Seat::Engine { id: resolved.id, name: resolved.name, limit, player: Some(player) })
}

/// `POST /api/play/check-fen`: the FEN as the engine writes it, or the validator's refusal.
pub fn check_fen(fen: &str) -> PlayResult<String> {
    Ok(game::parse_fen(fen)?.fen())
}
