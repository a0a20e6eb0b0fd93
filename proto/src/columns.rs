//! The Parquet export's names: each table's directory or file and every column, written once.
//! The coordinator builds its Arrow schemas from these constants and analysis reads with
//! them, so a renamed column is renamed for both (a coordinator test holds each writer schema
//! to the table's [`games::ALL`], [`positions::ALL`] or [`runs::ALL`]).
//!
//! ```
//! use proto::columns::{self, games};
//!
//! assert_eq!(games::TABLE, "games");
//! assert_eq!(games::ALL[0], games::GAME_ID);
//! // `run` is no column of the games files: it is their Hive partition (`run=<id>`).
//! assert!(!games::ALL.contains(&columns::RUN));
//! ```
//!
//! Values of the closed sets in these columns are their `as_str` texts: `games.result` is a
//! [`crate::domain::GameOutcome`], `games.reason` a [`crate::domain::Termination`],
//! `runs.kind` a [`crate::domain::RunKindName`], `runs.model` an [`crate::domain::EloModel`]
//! and `runs.state` a [`crate::domain::RunStateName`].

/// The Hive partition of `games` and `positions` (`<table>/run=<id>/` directories), which
/// readers see as a column; in `runs` an ordinary column.
pub const RUN: &str = "run";

/// One row per game (`<data>/games/run=<id>/part-*.parquet`).
pub mod games {
    /// The table's directory under the data directory.
    pub const TABLE: &str = "games";
    pub const GAME_ID: &str = "game_id";
    pub const PAIR_ID: &str = "pair_id";
    pub const OPENING_ID: &str = "opening_id";
    /// The FEN the suite's opening line starts from (the initial position for `startpos`).
    pub const OPENING_FEN: &str = "opening_fen";
    /// The opening line's moves (UCI coordinates), played from `opening_fen` before the game:
    /// the suite chose them, not the players (a datagen run's random plies follow the line's
    /// moves here). Empty for a line without moves.
    pub const OPENING_MOVES: &str = "opening_moves";
    /// The position the players started from: `opening_fen` after `opening_moves`.
    pub const START_FEN: &str = "start_fen";
    pub const RED_VARIANT: &str = "red_variant";
    pub const BLACK_VARIANT: &str = "black_variant";
    /// [`crate::domain::GameOutcome::as_str`]: `1-0`, `0-1` or `1/2-1/2`, from Red's side.
    pub const RESULT: &str = "result";
    /// [`crate::domain::Termination::as_str`].
    pub const REASON: &str = "reason";
    pub const PLIES: &str = "plies";
    pub const MOVES: &str = "moves";
    pub const DURATION_MS: &str = "duration_ms";
    pub const NODES: &str = "nodes";
    pub const WORKER: &str = "worker";

    /// The files' columns, in order.
    pub const ALL: [&str; 15] = [
        GAME_ID,
        PAIR_ID,
        OPENING_ID,
        OPENING_FEN,
        OPENING_MOVES,
        START_FEN,
        RED_VARIANT,
        BLACK_VARIANT,
        RESULT,
        REASON,
        PLIES,
        MOVES,
        DURATION_MS,
        NODES,
        WORKER,
    ];
}

/// One row per sampled position (`<data>/positions/run=<id>/part-*.parquet`): the position
/// *before* the move played at `ply`. Runs sample every `sample_every`-th ply from ply 1 (a
/// datagen run every ply; ply 0, the start position, is never sampled).
///
/// Perspectives: `static_eval` and `search_score` are the **side to move's** view (positive:
/// good for the side that moves here); `result` is **Red's** score, whoever moves. Flip by
/// `side_to_move` to compare them (`docs/positions.md` shows how).
pub mod positions {
    /// The table's directory under the data directory.
    pub const TABLE: &str = "positions";
    /// The game's id, as in `games.game_id`.
    pub const GAME_ID: &str = "game_id";
    /// Moves played from the game's `start_fen` before this position (the opening line's moves,
    /// and a datagen run's random plies, are not counted: they come before `start_fen`).
    pub const PLY: &str = "ply";
    /// The position, as a full FEN with its move counters.
    pub const FEN: &str = "fen";
    /// `w` (Red) or `b` (Black), as in the FEN.
    pub const SIDE_TO_MOVE: &str = "side_to_move";
    /// The hand-crafted evaluation with the engine's **default** parameters (not the playing
    /// variant's), centipawns, side to move's view; computed by the worker.
    pub const STATIC_EVAL: &str = "static_eval";
    /// The playing engine's own search score for the move it played here, centipawns, side to
    /// move's view (mate scores as the engine reports them). Null when the engine reported no
    /// score (from Parquet schema version 3 on; in rows written before, the worker put
    /// `static_eval` there when the engine gave none, and those rows cannot be told apart).
    pub const SEARCH_SCORE: &str = "search_score";
    /// The move played from this position (UCI coordinates, `h2e2`; what the Chinese
    /// literature calls ICCS in lower case): the engine's choice, never a random or book move.
    pub const BEST_MOVE: &str = "best_move";
    /// The side to move is in check.
    pub const IN_CHECK: &str = "in_check";
    /// Quiescence search with the **default** parameters returns exactly `static_eval`: no
    /// capture (or check evasion) changes the score, so the position is tactically calm for the
    /// hand-crafted evaluation. It says nothing about whether `best_move` is a capture: derive
    /// that from `best_move` and `fen`.
    pub const QUIET: &str = "quiet";
    /// The game's result for **Red** as a number: 1, 0.5 or 0, whoever is to move.
    pub const RESULT: &str = "result";

    /// The files' columns, in order.
    pub const ALL: [&str; 10] =
        [GAME_ID, PLY, FEN, SIDE_TO_MOVE, STATIC_EVAL, SEARCH_SCORE, BEST_MOVE, IN_CHECK, QUIET, RESULT];
}

/// One row per run (`<data>/runs.parquet`, rewritten whole).
pub mod runs {
    /// The table's file under the data directory.
    pub const FILE: &str = "runs.parquet";
    pub const RUN: &str = super::RUN;
    pub const NAME: &str = "name";
    /// [`crate::domain::RunKindName::as_str`].
    pub const KIND: &str = "kind";
    pub const ELO0: &str = "elo0";
    pub const ELO1: &str = "elo1";
    pub const ALPHA: &str = "alpha";
    pub const BETA: &str = "beta";
    /// [`crate::domain::EloModel::as_str`] for an SPRT, empty otherwise.
    pub const MODEL: &str = "model";
    pub const VARIANT_IDS: &str = "variant_ids";
    pub const VARIANT_NAMES: &str = "variant_names";
    /// [`crate::domain::RunStateName::as_str`].
    pub const STATE: &str = "state";
    pub const TC: &str = "tc";
    pub const SAMPLE_EVERY: &str = "sample_every";
    pub const CREATED_UNIX_MS: &str = "created_unix_ms";

    /// The file's columns, in order.
    pub const ALL: [&str; 14] = [
        RUN,
        NAME,
        KIND,
        ELO0,
        ELO1,
        ALPHA,
        BETA,
        MODEL,
        VARIANT_IDS,
        VARIANT_NAMES,
        STATE,
        TC,
        SAMPLE_EVERY,
        CREATED_UNIX_MS,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    fn distinct(columns: &[&str]) -> bool {
        let set: std::collections::HashSet<&&str> = columns.iter().collect();
        set.len() == columns.len()
    }

    #[test]
    fn each_table_names_each_column_once_and_never_the_partition() {
        for (table, columns) in
            [(games::TABLE, &games::ALL[..]), (positions::TABLE, &positions::ALL[..]), (runs::FILE, &runs::ALL[..])]
        {
            assert!(distinct(columns), "{table}: {columns:?}");
        }
        // A partition key that is also a file column makes pyarrow and pandas refuse the data.
        assert!(!games::ALL.contains(&RUN));
        assert!(!positions::ALL.contains(&RUN));
        assert_eq!(runs::ALL[0], RUN);
    }
}

/// One row per SPSA parameter per history point (`<data>/spsa/run=<id>.parquet`, one file per
/// SPSA run, rewritten whole): each parameter's value after `iteration` pairs were recorded,
/// from the start values at iteration 0.
pub mod spsa {
    /// The table's directory under the data directory.
    pub const TABLE: &str = "spsa";
    pub const RUN: &str = super::RUN;
    pub const ITERATION: &str = "iteration";
    pub const RECEIVED_UNIX_MS: &str = "received_unix_ms";
    pub const PARAM: &str = "param";
    pub const VALUE: &str = "value";
    pub const START: &str = "start";

    /// The file's columns, in order.
    pub const ALL: [&str; 6] = [RUN, ITERATION, RECEIVED_UNIX_MS, PARAM, VALUE, START];
}
