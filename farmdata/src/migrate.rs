//! Upgrades the files an older version wrote, in place, so that users' data survives upgrades.
//!
//! Version 1 `games` files lack the opening line (`opening_fen`, `opening_moves`). Each is
//! rewritten with the line its `opening_id` names, every other column copied as it was, to a
//! temp file that is synced and renamed over the old one: a crash leaves either file whole.
//! `positions` files did not change.

use proto::domain::RunId;
use std::collections::HashMap;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use arrow_array::cast::AsArray;
use arrow_array::types::UInt32Type;
use arrow_array::{ArrayRef, RecordBatch, StringArray};
use proto::columns::games;

use super::error::{AtPath, Error, Result};
use super::layout::{part_files, partition_dir, sync_dir};
use super::rows::GameOpening;
use super::schema::{GAMES_V1, Table, move_lists};
use super::writer::write_atomically;

/// Rewrites every version-1 `games` part file of `run` with its opening line, which
/// `opening(opening_id)` gives (the run's suite line; an `Err` names what is missing and stops
/// the migration with that file untouched). Files of the current version are left alone, as is
/// anything else `recover` judges. Returns how many files were rewritten.
pub fn migrate_games(
    data_dir: &Path,
    run: RunId,
    mut opening: impl FnMut(u32) -> std::result::Result<GameOpening, String>,
) -> Result<usize> {
    let mut lines: HashMap<u32, GameOpening> = HashMap::new();
    let mut rewritten = 0;
    for (range, path) in part_files(data_dir, Table::Games, run)? {
        let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(&path).at(&path)?).at(&path)?;
        let names: Vec<&str> = builder.schema().fields().iter().map(|f| f.name().as_str()).collect();
        if names != GAMES_V1 {
            continue;
        }
        let mut batches = Vec::new();
        for batch in builder.build().at(&path)? {
            let batch = batch.at(&path)?;
            let ids = batch
                .column_by_name(games::OPENING_ID)
                .and_then(|c| c.as_primitive_opt::<UInt32Type>())
                .ok_or_else(|| Error::Schema { path: path.clone(), problem: "`opening_id` is not UInt32".into() })?;
            let ids = ids
                .iter()
                .map(|id| {
                    id.ok_or_else(|| Error::Schema { path: path.clone(), problem: "`opening_id` has nulls".into() })
                })
                .collect::<Result<Vec<u32>>>()?;
            for &id in &ids {
                if let std::collections::hash_map::Entry::Vacant(slot) = lines.entry(id) {
                    slot.insert(opening(id).map_err(|problem| Error::Migration {
                        path: path.clone(),
                        problem: format!("opening {id} of run {run}: {problem}"),
                    })?);
                }
            }
            let rows: Vec<&GameOpening> = ids.iter().map(|id| &lines[id]).collect();
            let fens: ArrayRef = Arc::new(rows.iter().map(|o| Some(o.fen.as_str())).collect::<StringArray>());
            let moves = move_lists(rows.iter().map(|o| o.moves.as_slice()));
            let mut columns = batch.columns().to_vec();
            // Version 2 puts the line right after `opening_id` (index 2).
            columns.splice(3..3, [fens, moves]);
            batches.push(RecordBatch::try_new(Table::Games.schema(), columns).at(&path)?);
        }
        write_atomically(data_dir, Table::Games, run, range, |writer, at| {
            for batch in &batches {
                writer.write(batch).at(at)?;
            }
            Ok(())
        })?;
        rewritten += 1;
    }
    if rewritten > 0 {
        sync_dir(&partition_dir(data_dir, Table::Games, run))?;
        tracing::info!(run = %run, files = rewritten, "games files of schema version 1 given their opening lines");
    }
    Ok(rewritten)
}
