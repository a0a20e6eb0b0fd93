//! Reading a run back through the parquet crate's Arrow reader (tests, PGN export).

use proto::domain::RunId;
use std::fs::File;
use std::path::Path;

use ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
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
