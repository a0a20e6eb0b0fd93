//! Pruning the sampled positions of exported games from the database.
//!
//! Every recorded game's sampled positions are stored with it (a datagen run samples every
//! ply: about 124 positions a game, some 100 bytes each in SQLite with their key) and exported
//! to Parquet (about 25 bytes each). Once a game is in Parquet, nothing of the farm needs the
//! database's copy: the exporter reads only games above the run's export mark, and the game
//! viewer reads a pruned game's positions back from Parquet. Pruning deletes them, a slice of
//! games per transaction, so that it can run beside a coordinator that keeps recording: each
//! transaction reads the export mark and deletes nothing above it.
//!
//! The games themselves (moves, result, worker) stay: the run pages, PGN and the tallies
//! read them.

use std::path::Path;

use proto::domain::{PositionSample, RunId};

use super::{Storage, StoredGame};
use crate::error::{Error, Result};

/// Game ids per transaction: at most ~124,000 positions of a datagen run, a fraction of a
/// second of SQLite's write lock, so a coordinator writing meanwhile waits that long at most.
pub const GAMES_PER_TRANSACTION: u64 = 1_000;

/// What pruning a run did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrunedRun {
    pub run: RunId,
    /// The run's export mark when pruning began: every game up to it has no positions left in
    /// the database.
    pub exported_up_to: u64,
    /// Positions deleted.
    pub positions: u64,
}

/// Deletes the sampled positions of every exported game of `run` (ids up to its export mark),
/// [`GAMES_PER_TRANSACTION`] game ids per [`Storage::prune_exported_positions`] transaction,
/// from the run's first game on. Games recorded or exported meanwhile are left for the next
/// time.
pub fn prune_exported_positions(storage: &dyn Storage, run: RunId) -> Result<PrunedRun> {
    let exported_up_to = storage.exported_up_to(run)?;
    let mut after = match storage.run_games_page(run, 0, 1)?.first() {
        Some(first) => first.game_id.saturating_sub(1),
        None => exported_up_to,
    };
    let mut positions = 0;
    while after < exported_up_to {
        let up_to = after.saturating_add(GAMES_PER_TRANSACTION).min(exported_up_to);
        positions += storage.prune_exported_positions(run, after, up_to)?;
        after = up_to;
    }
    tracing::info!(run = %run, exported_up_to, positions, "exported positions pruned");
    Ok(PrunedRun { run, exported_up_to, positions })
}

/// Where [`game_with_positions`] found a game's sampled positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PositionsSource {
    /// The database: they were never pruned, or the game sampled none.
    Database,
    /// The Parquet data: they were pruned from the database after export.
    Parquet,
    /// Pruned from the database and not read back: no data directory was given.
    Pruned,
}

impl PositionsSource {
    /// As the web API names it.
    pub fn as_str(self) -> &'static str {
        match self {
            PositionsSource::Database => "database",
            PositionsSource::Parquet => "parquet",
            PositionsSource::Pruned => "pruned",
        }
    }
}

/// A game with its sampled positions: the database's, or, for an exported game whose positions
/// were pruned ([`prune_exported_positions`]), those of the Parquet data under `data_dir`
/// (`None`: a coordinator without one; the game then comes without them, said by
/// [`PositionsSource::Pruned`]).
pub fn game_with_positions(
    storage: &dyn Storage,
    data_dir: Option<&Path>,
    game_id: u64,
) -> Result<(StoredGame, PositionsSource)> {
    let mut game = storage.get_game(game_id)?;
    if !game.report.positions.is_empty() || !may_be_pruned(storage, &game)? {
        return Ok((game, PositionsSource::Database));
    }
    let Some(dir) = data_dir else {
        return Ok((game, PositionsSource::Pruned));
    };
    let rows = farmdata::read_game_positions(dir, game.run, game_id)
        .map_err(|e| Error::Export(format!("reading the positions of game {game_id}: {e}")))?;
    if rows.is_empty() {
        // Parquet holds every exported game's positions: this one sampled none.
        return Ok((game, PositionsSource::Database));
    }
    game.report.positions = rows
        .into_iter()
        .map(|p| PositionSample {
            ply: p.ply,
            red_to_move: p.side_to_move == "w",
            fen: p.fen,
            static_eval: p.static_eval,
            search_score: p.search_score,
            best_move: p.best_move,
            in_check: p.in_check,
            quiet: p.quiet,
        })
        .collect();
    Ok((game, PositionsSource::Parquet))
}

/// Whether a game without positions in the database is exported and should have sampled some:
/// a game of `n` plies samples `(n - 1) / every` ([`super::RunAggregates::sampled_positions`]).
fn may_be_pruned(storage: &dyn Storage, game: &StoredGame) -> Result<bool> {
    let every = storage.get_run(game.run)?.spec.sample_every;
    let plies = u32::try_from(game.report.moves.len()).unwrap_or(u32::MAX);
    let sampled = plies.saturating_sub(1).checked_div(every).unwrap_or(0);
    Ok(sampled > 0 && game.game_id <= storage.exported_up_to(game.run)?)
}
