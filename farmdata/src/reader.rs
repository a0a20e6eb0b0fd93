//! Reading a run back through the parquet crate's Arrow reader (tests, PGN export).

use proto::domain::RunId;
use std::fs::File;
use std::path::Path;

use ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use ::parquet::file::metadata::RowGroupMetaData;
use ::parquet::file::statistics::Statistics;
use arrow_array::RecordBatch;

use super::error::{AtPath, Result};
use super::layout::part_files;
use super::rows::{GameRow, PositionRow};
use super::schema::{Table, check_schema, games_from_batch, positions_from_batch};

fn read_table<T>(
    data_dir: &Path,
    table: Table,
    run: RunId,
    mut convert: impl FnMut(&RecordBatch, &Path) -> Result<Vec<T>>,
) -> Result<Vec<T>> {
    let mut rows = Vec::new();
    for (_, path) in part_files(data_dir, table, run)? {
        let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(&path).at(&path)?).at(&path)?;
        check_schema(table, builder.schema(), &path)?;
        for batch in builder.with_batch_size(64 * 1024).build().at(&path)? {
            rows.extend(convert(&batch.at(&path)?, &path)?);
        }
    }
    Ok(rows)
}

/// Every game of `run` in the part files, in game-id order.
pub fn read_games(data_dir: &Path, run: RunId) -> Result<Vec<GameRow>> {
    read_table(data_dir, Table::Games, run, |batch, path| games_from_batch(run, batch, path))
}

/// Every sampled position of `run`, in game-id order.
pub fn read_positions(data_dir: &Path, run: RunId) -> Result<Vec<PositionRow>> {
    read_table(data_dir, Table::Positions, run, |batch, path| positions_from_batch(run, batch, path))
}

/// The sampled positions of game `game_id` of `run`, in ply order (none for a game the files do
/// not hold). Reads only the part file whose range holds the game, and of it only the row
/// groups whose `game_id` statistics may hold it: a merged part of a datagen run holds millions
/// of positions, and the game viewer asks for one game's.
pub fn read_game_positions(data_dir: &Path, run: RunId, game_id: u64) -> Result<Vec<PositionRow>> {
    let mut rows = Vec::new();
    for (range, path) in part_files(data_dir, Table::Positions, run)? {
        if !range.contains_id(game_id) {
            continue;
        }
        let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(&path).at(&path)?).at(&path)?;
        check_schema(Table::Positions, builder.schema(), &path)?;
        let column =
            builder.parquet_schema().columns().iter().position(|c| c.name() == proto::columns::positions::GAME_ID);
        let groups: Vec<usize> = (0..builder.metadata().num_row_groups())
            .filter(|&i| may_hold(builder.metadata().row_group(i), column, game_id))
            .collect();
        for batch in builder.with_row_groups(groups).with_batch_size(64 * 1024).build().at(&path)? {
            let batch = batch.at(&path)?;
            rows.extend(positions_from_batch(run, &batch, &path)?.into_iter().filter(|p| p.game_id == game_id));
        }
    }
    Ok(rows)
}

/// Whether a row group's `game_id` column (at `column`) may hold `game_id`: yes unless its
/// statistics say otherwise.
fn may_hold(group: &RowGroupMetaData, column: Option<usize>, game_id: u64) -> bool {
    let Some(Statistics::Int64(stats)) = column.and_then(|c| group.column(c).statistics()) else {
        return true;
    };
    match (stats.min_opt().map(|&m| u64::try_from(m)), stats.max_opt().map(|&m| u64::try_from(m))) {
        (Some(Ok(min)), Some(Ok(max))) => (min..=max).contains(&game_id),
        _ => true,
    }
}
