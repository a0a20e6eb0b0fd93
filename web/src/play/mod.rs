//! The human-machine play page (seed 004): sessions of man vs man or man vs engine, with the
//! engine's searches on a bounded pool. Placeholder until the `play` branch lands.

use std::sync::Arc;

use coordinator::farm::Farm;
use worker::engines::EngineSet;

use crate::state::AppState;

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
}

impl Default for PlayConfig {
    fn default() -> PlayConfig {
        PlayConfig {
            max_sessions: 64,
            session_hash_mib: 16,
            total_hash_mib: 512,
            search_threads: 1,
            max_movetime_ms: 10_000,
        }
    }
}

/// The play sessions and the engine pool.
#[derive(Debug)]
pub struct PlayService {
    pub config: PlayConfig,
    farm: Arc<Farm>,
    engines: Arc<EngineSet>,
}

impl PlayService {
    pub fn new(config: PlayConfig, farm: Arc<Farm>, engines: Arc<EngineSet>) -> PlayService {
        PlayService { config, farm, engines }
    }

    pub fn farm(&self) -> &Arc<Farm> {
        &self.farm
    }

    pub fn engines(&self) -> &Arc<EngineSet> {
        &self.engines
    }
}

/// The `/api/play` routes.
pub fn routes() -> axum::Router<AppState> {
    axum::Router::new()
}
