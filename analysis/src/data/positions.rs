//! Tuning positions from the `positions` table: quiet (not in check, quiescence score equal to
//! the static evaluation), at least `min_ply` plies into the game, of a game whose result is
//! known (an imported game may have none), each position once.
//!
//! Only the columns the filter and the labels need are read, file by file; deduplication is by
//! the FEN's board and side to move (the move counters differ between games that reach the same
//! position), keeping the first occurrence in (run, game, ply) order so the result does not
//! depend on file order.

use std::collections::HashMap;
use std::path::Path;

use proto::columns::positions as column;

use super::read::ParquetFile;
use super::{Part, Table, read_parts};
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
    /// The playing engine's search score, centipawns from Red's side; `None` where the engine
    /// reported none (the position keeps its result-only label).
    pub search_score_red: Option<i32>,
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
    /// Positions left out because their game's result is unknown (imported games without a
    /// `[Result]`): a position is labelled by its result.
    pub unknown_result: u64,
}

/// Tuning positions and the counts behind them.
pub fn tuning_positions(data: &Path, filter: &PositionFilter) -> Result<(Vec<TuningPosition>, PositionCounts)> {
    let keep = |run| filter.runs.is_empty() || filter.runs.contains(&run);
    let read = read_parts(data, Table::Positions, keep, |parts| read_tuning_positions(parts, filter))?;
    Ok(read.unwrap_or_else(|| (Vec::new(), PositionCounts::default())))
}

/// [`tuning_positions`] of these parts.
fn read_tuning_positions(parts: &[Part], filter: &PositionFilter) -> Result<(Vec<TuningPosition>, PositionCounts)> {
    let columns = [
        column::GAME_ID,
        column::PLY,
        column::FEN,
        column::SIDE_TO_MOVE,
        column::SEARCH_SCORE,
        column::RESULT,
        column::QUIET,
        column::IN_CHECK,
    ];
    let mut sampled = 0;
    let mut quiet = 0;
    let mut unknown_result = 0;
    let mut unique = FirstOccurrences::default();
    for part in parts {
        let file = ParquetFile::open(&part.path)?;
        sampled += file.rows();
        file.for_each_batch(&columns, |batch| {
            let games = batch.u64s(column::GAME_ID)?;
            let plies = batch.u64s(column::PLY)?;
            let fens = batch.strs(column::FEN)?;
            let sides = batch.strs(column::SIDE_TO_MOVE)?;
            let scores = batch.optional_i64s(column::SEARCH_SCORE)?;
            let results = batch.optional_f64s(column::RESULT)?;
            let quiets = batch.bools(column::QUIET)?;
            let checks = batch.bools(column::IN_CHECK)?;
            for i in 0..batch.len() {
                if !quiets[i] || checks[i] || plies[i] < u64::from(filter.min_ply) {
                    continue;
                }
                let Some(result) = results[i] else {
                    unknown_result += 1;
                    continue;
                };
                quiet += 1;
                unique.offer((part.run, games[i], plies[i]), fens[i], || {
                    let score = scores[i].map(|s| s.clamp(i64::from(i32::MIN) + 1, i64::from(i32::MAX)) as i32);
                    TuningPosition {
                        fen: fens[i].to_owned(),
                        result_red: result as f32,
                        search_score_red: score.map(|s| if sides[i] == "b" { -s } else { s }),
                        game: game_key(part.run, games[i]),
                    }
                });
            }
            Ok(())
        })?;
    }
    let out = unique.into_sorted();
    let unique = out.len() as u64;
    Ok((out, PositionCounts { sampled, quiet, unique, unknown_result }))
}

/// Where a position was sampled: (run, game, ply), the order the first occurrence is taken in.
type Origin = (u64, u64, u64);

/// The first occurrence, in (run, game, ply) order, of each position (board and side to move),
/// whatever order the rows arrive in: the same set as sorting every row and keeping the first.
#[derive(Debug, Default)]
struct FirstOccurrences {
    /// Per position: where it was first sampled so far, the arrival number (ties keep the
    /// earlier row) and the labelled position.
    first: HashMap<String, (Origin, u64, TuningPosition)>,
    arrivals: u64,
}

impl FirstOccurrences {
    /// A row at `origin` with FEN `fen`; `position` is made only when it is kept.
    fn offer(&mut self, origin: Origin, fen: &str, position: impl FnOnce() -> TuningPosition) {
        let arrival = self.arrivals;
        self.arrivals += 1;
        let key = fen.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
        match self.first.get_mut(&key) {
            Some(seen) if seen.0 <= origin => {}
            Some(seen) => *seen = (origin, arrival, position()),
            None => {
                self.first.insert(key, (origin, arrival, position()));
            }
        }
    }

    /// The kept positions in (run, game, ply) order.
    fn into_sorted(self) -> Vec<TuningPosition> {
        let mut kept: Vec<_> = self.first.into_values().collect();
        kept.sort_by_key(|&(origin, arrival, _)| (origin, arrival));
        kept.into_iter().map(|(_, _, position)| position).collect()
    }
}

/// A game id unique across runs: the run in the top 24 bits, the game in the low 40.
pub fn game_key(run: u64, game_id: u64) -> u64 {
    (run << 40) ^ game_id
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(fen: &str, game: u64) -> TuningPosition {
        TuningPosition { fen: fen.to_owned(), result_red: 0.5, search_score_red: Some(0), game }
    }

    #[test]
    fn the_first_occurrence_in_run_game_ply_order_is_kept_whatever_the_arrival_order() {
        let rows: [(Origin, &str); 5] = [
            ((2, 1, 12), "board w - - 0 7"),
            ((1, 9, 30), "board w - - 0 9"),
            ((1, 9, 14), "other b - - 0 3"),
            ((1, 3, 40), "board b - - 0 1"),
            ((1, 9, 14), "other b - - 0 5"),
        ];
        let mut first = FirstOccurrences::default();
        for (origin, fen) in rows {
            first.offer(origin, fen, || position(fen, origin.1));
        }
        let kept: Vec<(String, u64)> = first.into_sorted().into_iter().map(|p| (p.fen, p.game)).collect();
        assert_eq!(
            kept,
            [
                // Black to move on `board` is another position than Red to move.
                ("board b - - 0 1".to_owned(), 3),
                // Two rows at one origin: the one that came first.
                ("other b - - 0 3".to_owned(), 9),
                // Run 1 comes before run 2 though it arrived later.
                ("board w - - 0 9".to_owned(), 9),
            ]
        );
    }
}
