//! Tuning positions from the `positions` table: quiet (not in check, quiescence score equal to
//! the static evaluation), at least `min_ply` plies into the game, each position once.
//!
//! The filter and the projection run inside the Parquet scan; deduplication is by the FEN's
//! board and side to move (the move counters differ between games that reach the same
//! position), keeping the first occurrence in (run, game, ply) order so the result does not
//! depend on file order.

use std::collections::HashSet;
use std::path::Path;

use polars::prelude::*;
use proto::columns::{RUN, positions as column};

use super::{Table, collect, f64s, i64s, scan, strings, u64s};
use crate::error::Result;

/// Which sampled positions become tuning positions.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionFilter {
    /// Only these runs (all when empty).
    pub runs: Vec<u64>,
    /// Skip the opening: positions before this ply are the opening suite's, not the engines'.
    pub min_ply: u32,
}

impl Default for PositionFilter {
    fn default() -> Self {
        PositionFilter { runs: Vec::new(), min_ply: 10 }
    }
}

/// One labelled position, scores from Red's side.
#[derive(Clone, Debug, PartialEq)]
pub struct TuningPosition {
    pub fen: String,
    /// The game's result for Red: 1, 0.5 or 0.
    pub result_red: f32,
    /// The playing engine's search score, centipawns from Red's side.
    pub search_score_red: i32,
    /// The game, unique across runs (run in the top 24 bits): what the train/validation split
    /// keys on.
    pub game: u64,
}

/// What the filter kept.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PositionCounts {
    /// Sampled positions in the selected runs.
    pub sampled: u64,
    /// Of those, quiet and past `min_ply`.
    pub quiet: u64,
    /// Of those, distinct positions: the tuning set.
    pub unique: u64,
}

/// Tuning positions and the counts behind them.
pub fn tuning_positions(data: &Path, filter: &PositionFilter) -> Result<(Vec<TuningPosition>, PositionCounts)> {
    let Some(mut lf) = scan(data, Table::Positions, None)? else {
        return Ok((Vec::new(), PositionCounts::default()));
    };
    if !filter.runs.is_empty() {
        let mut any = lit(false);
        for &r in &filter.runs {
            any = any.or(col(RUN).eq(lit(r)));
        }
        lf = lf.filter(any);
    }
    let sampled = u64s(&collect(lf.clone().select([len().alias("n")]), data)?, "n", data)?[0];
    let df = collect(
        lf.filter(col(column::QUIET).and(col(column::IN_CHECK).not()).and(col(column::PLY).gt_eq(lit(filter.min_ply))))
            .select([
                col(RUN),
                col(column::GAME_ID),
                col(column::PLY),
                col(column::FEN),
                col(column::SIDE_TO_MOVE),
                col(column::SEARCH_SCORE),
                col(column::RESULT),
            ])
            .sort([RUN, column::GAME_ID, column::PLY], SortMultipleOptions::default()),
        data,
    )?;
    let runs = u64s(&df, RUN, data)?;
    let games = u64s(&df, column::GAME_ID, data)?;
    let fens = strings(&df, column::FEN, data)?;
    let sides = strings(&df, column::SIDE_TO_MOVE, data)?;
    let scores = i64s(&df, column::SEARCH_SCORE, data)?;
    let results = f64s(&df, column::RESULT, data)?;
    let quiet = runs.len() as u64;
    let mut seen = HashSet::with_capacity(runs.len());
    let mut out = Vec::with_capacity(runs.len());
    for i in 0..runs.len() {
        let key: String = fens[i].split_whitespace().take(2).collect::<Vec<_>>().join(" ");
        if !seen.insert(key) {
            continue;
        }
        let score = scores[i].clamp(i64::from(i32::MIN) + 1, i64::from(i32::MAX)) as i32;
        out.push(TuningPosition {
            fen: fens[i].clone(),
            result_red: results[i] as f32,
            search_score_red: if sides[i] == "b" { -score } else { score },
            game: game_key(runs[i], games[i]),
        });
    }
    let unique = out.len() as u64;
    Ok((out, PositionCounts { sampled, quiet, unique }))
}

/// A game id unique across runs: the run in the top 24 bits, the game in the low 40.
pub fn game_key(run: u64, game_id: u64) -> u64 {
    (run << 40) ^ game_id
}
