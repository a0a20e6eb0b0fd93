//! Upgrades the files an older version wrote, in place, so that users' data survives upgrades.
//!
//! Version 1 `games` files lack the opening line (`opening_fen`, `opening_moves`). Each is
//! rewritten with the line its `opening_id` names, every other column copied as it was, to a
//! temp file that is synced and renamed over the old one: a crash leaves either file whole.
//!
//! `positions` files of versions 1 and 2 have a non-nullable `search_score`; version 3's may be
//! null (the engine reported no score). Each older file is rewritten the same way with the
//! nullable field and every value as it was, so that a run's files share one schema (pyarrow's
//! datasets take the first file's). Their scores stay what the older workers wrote, the static
//! evaluation where the engine gave none: those cannot be told apart.
//!
//! `positions` files of versions 1 to 3 have a non-nullable `result`; version 4's may be null
//! (an imported game without a result). The same rewrite gives them the nullable field, every
//! value as it was.

use proto::domain::RunId;
use std::collections::HashMap;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use arrow_array::cast::AsArray;
use arrow_array::types::UInt32Type;
use arrow_array::{ArrayRef, RecordBatch, StringArray};
use proto::columns::{games, positions};

use super::error::{AtPath, Error, Result};
use super::layout::{PartRange, part_files, partition_dir, sync_dir};
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
        rewrite_part(data_dir, Table::Games, run, range, &batches)?;
        rewritten += 1;
    }
    if rewritten > 0 {
        sync_dir(&partition_dir(data_dir, Table::Games, run))?;
        tracing::info!(run = %run, files = rewritten, "games files of schema version 1 given their opening lines");
    }
    Ok(rewritten)
}

/// Rewrites every `positions` part file of `run` whose `search_score` or `result` is not
/// nullable (schema versions 1 to 3) with the current schema, every value unchanged. Returns how
/// many files were rewritten.
pub fn migrate_positions(data_dir: &Path, run: RunId) -> Result<usize> {
    let mut rewritten = 0;
    for (range, path) in part_files(data_dir, Table::Positions, run)? {
        let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(&path).at(&path)?).at(&path)?;
        let nullable =
            |name: &str| builder.schema().fields().iter().find(|f| f.name() == name).map(|f| f.is_nullable());
        let (Some(score), Some(result)) = (nullable(positions::SEARCH_SCORE), nullable(positions::RESULT)) else {
            // Not a positions file this version knows: `recover` and the readers name it.
            continue;
        };
        if score && result {
            continue;
        }
        let mut batches = Vec::new();
        for batch in builder.build().at(&path)? {
            let batch = batch.at(&path)?;
            batches.push(RecordBatch::try_new(Table::Positions.schema(), batch.columns().to_vec()).at(&path)?);
        }
        rewrite_part(data_dir, Table::Positions, run, range, &batches)?;
        rewritten += 1;
    }
    if rewritten > 0 {
        sync_dir(&partition_dir(data_dir, Table::Positions, run))?;
        tracing::info!(run = %run, files = rewritten, "positions files given the nullable search_score and result of schema version 4");
    }
    Ok(rewritten)
}

/// Replaces part file `range` of `run`'s `table` by `batches`, atomically.
fn rewrite_part(data_dir: &Path, table: Table, run: RunId, range: PartRange, batches: &[RecordBatch]) -> Result<()> {
    write_atomically(data_dir, table, run, range, |writer, at| {
        for batch in batches {
            writer.write(batch).at(at)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use ::parquet::arrow::ArrowWriter;
    use arrow_array::{ArrayRef, BooleanArray, Float32Array, Int32Array, StringArray, UInt32Array, UInt64Array};
    use arrow_schema::{DataType, Field, Schema};

    use super::*;
    use crate::layout::{PartRange, part_path};
    use crate::read_positions;

    /// A positions file exactly as schema version 2 wrote it: every field non-nullable, version
    /// "2" in its metadata.
    fn write_v2_positions(data: &Path, run: RunId) -> std::path::PathBuf {
        write_old_positions(data, run, "2")
    }

    /// A positions file as schema version `version` (2 or 3) wrote it: version 3's
    /// `search_score` is nullable (one score null), every other field non-nullable.
    fn write_old_positions(data: &Path, run: RunId, version: &str) -> std::path::PathBuf {
        let v3 = version == "3";
        let fields: Vec<Field> = [
            (positions::GAME_ID, DataType::UInt64),
            (positions::PLY, DataType::UInt32),
            (positions::FEN, DataType::Utf8),
            (positions::SIDE_TO_MOVE, DataType::Utf8),
            (positions::STATIC_EVAL, DataType::Int32),
            (positions::SEARCH_SCORE, DataType::Int32),
            (positions::BEST_MOVE, DataType::Utf8),
            (positions::IN_CHECK, DataType::Boolean),
            (positions::QUIET, DataType::Boolean),
            (positions::RESULT, DataType::Float32),
        ]
        .into_iter()
        .map(|(name, ty)| Field::new(name, ty, v3 && name == positions::SEARCH_SCORE))
        .collect();
        let metadata: std::collections::HashMap<String, String> =
            [("xqfarm.table", "positions"), ("xqfarm.schema_version", version)]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect();
        let schema = Arc::new(Schema::new(fields).with_metadata(metadata));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(UInt64Array::from(vec![1, 1])),
            Arc::new(UInt32Array::from(vec![4, 8])),
            Arc::new(StringArray::from(vec!["fen a", "fen b"])),
            Arc::new(StringArray::from(vec!["w", "w"])),
            Arc::new(Int32Array::from(vec![12, -3])),
            Arc::new(if v3 { Int32Array::from(vec![Some(40), None]) } else { Int32Array::from(vec![40, -3]) }),
            Arc::new(StringArray::from(vec!["h2e2", "b0c2"])),
            Arc::new(BooleanArray::from(vec![false, true])),
            Arc::new(BooleanArray::from(vec![true, false])),
            Arc::new(Float32Array::from(vec![0.5, 0.5])),
        ];
        let batch = RecordBatch::try_new(schema.clone(), columns).expect("a version 2 batch");
        let path = part_path(data, Table::Positions, run, PartRange { first: 1, last: 1 });
        std::fs::create_dir_all(path.parent().expect("partition")).expect("mkdir");
        let mut writer = ArrowWriter::try_new(File::create(&path).expect("create"), schema, None).expect("writer");
        writer.write(&batch).expect("write");
        writer.close().expect("close");
        path
    }

    #[test]
    fn version_2_positions_files_become_nullable_with_their_values_unchanged() {
        let data = tempfile::tempdir().expect("temp dir");
        let run = RunId::new(3);
        let path = write_v2_positions(data.path(), run);
        // Readable as they are: version 3 reads a non-nullable column as scores that are all given.
        let before = read_positions(data.path(), run).expect("a version 2 file reads");
        assert_eq!(before.iter().map(|p| p.search_score).collect::<Vec<_>>(), [Some(40), Some(-3)]);

        assert_eq!(migrate_positions(data.path(), run).expect("migrated"), 1);
        let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(&path).expect("open")).expect("parquet");
        let schema = builder.schema();
        assert_eq!(schema.metadata().get("xqfarm.schema_version").map(String::as_str), Some("4"));
        let field = schema.field_with_name(positions::SEARCH_SCORE).expect("the column");
        assert!(field.is_nullable(), "search_score takes nulls from version 3 on");
        let field = schema.field_with_name(positions::RESULT).expect("the column");
        assert!(field.is_nullable(), "result takes nulls from version 4 on");
        assert_eq!(read_positions(data.path(), run).expect("reads"), before, "every value unchanged");
        // Already current: nothing to do again.
        assert_eq!(migrate_positions(data.path(), run).expect("idempotent"), 0);
    }

    #[test]
    fn version_3_positions_files_get_a_nullable_result_with_their_values_unchanged() {
        let data = tempfile::tempdir().expect("temp dir");
        let run = RunId::new(4);
        let path = write_old_positions(data.path(), run, "3");
        let before = read_positions(data.path(), run).expect("a version 3 file reads");
        assert_eq!(before.iter().map(|p| p.search_score).collect::<Vec<_>>(), [Some(40), None]);
        assert_eq!(before.iter().map(|p| p.result).collect::<Vec<_>>(), [Some(0.5), Some(0.5)]);

        assert_eq!(migrate_positions(data.path(), run).expect("migrated"), 1);
        let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(&path).expect("open")).expect("parquet");
        let schema = builder.schema();
        assert_eq!(schema.metadata().get("xqfarm.schema_version").map(String::as_str), Some("4"));
        assert!(schema.field_with_name(positions::RESULT).expect("the column").is_nullable());
        assert_eq!(read_positions(data.path(), run).expect("reads"), before, "every value unchanged");
        assert_eq!(migrate_positions(data.path(), run).expect("idempotent"), 0);
    }
}
