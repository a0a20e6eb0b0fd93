//! The `imports` table (`<data>/imports.parquet`): one row per imported PGN file, naming the
//! imported run it went into and the file's SHA-256, so that importing the same file again is
//! a no-op. Small, so it is one file rewritten whole (temp file + rename), as `runs.parquet` is;
//! the coordinator never writes it (it rewrites `runs.parquet` from its database, which holds
//! no imported run).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use arrow_array::builder::{StringBuilder, UInt64Builder};
use arrow_array::cast::AsArray;
use arrow_array::types::UInt64Type;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use proto::domain::RunId;

use super::error::{AtPath, Error, Result};
use super::runs::replace_file;
use super::schema::SCHEMA_VERSION;

/// The file's name under the data directory.
pub const IMPORTS_FILE: &str = "imports.parquet";

/// Column names of the `imports` table.
mod column {
    pub const RUN: &str = "run";
    pub const NAME: &str = "name";
    pub const FILE: &str = "file";
    pub const SHA256: &str = "sha256";
    pub const GAMES: &str = "games";
    pub const SKIPPED: &str = "skipped";
    pub const CREATED_UNIX_MS: &str = "created_unix_ms";
}

/// Where the imports table lives.
pub fn imports_path(data_dir: &Path) -> PathBuf {
    data_dir.join(IMPORTS_FILE)
}

/// One imported file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportRow {
    /// The imported run its games went into (at least [`RunId::FIRST_IMPORTED`]).
    pub run: RunId,
    /// The run's name (`--name`, or the first file's name).
    pub name: String,
    /// The file as it was given.
    pub file: String,
    /// Hex SHA-256 of the file's bytes: what makes a second import of it a no-op.
    pub sha256: String,
    /// Games imported from the file.
    pub games: u64,
    /// Games of the file refused (an illegal move, an unknown notation, a bad FEN or tag).
    pub skipped: u64,
    pub created_unix_ms: u64,
}

static IMPORTS: LazyLock<SchemaRef> = LazyLock::new(|| {
    let metadata = [("xqfarm.table", "imports"), ("xqfarm.schema_version", SCHEMA_VERSION)];
    Arc::new(
        Schema::new(vec![
            Field::new(column::RUN, DataType::UInt64, false),
            Field::new(column::NAME, DataType::Utf8, false),
            Field::new(column::FILE, DataType::Utf8, false),
            Field::new(column::SHA256, DataType::Utf8, false),
            Field::new(column::GAMES, DataType::UInt64, false),
            Field::new(column::SKIPPED, DataType::UInt64, false),
            Field::new(column::CREATED_UNIX_MS, DataType::UInt64, false),
        ])
        .with_metadata(metadata),
    )
});

/// Every imported file of the data directory, in the order they were imported; empty when
/// nothing was ever imported.
pub fn read_imports(data_dir: &Path) -> Result<Vec<ImportRow>> {
    let path = imports_path(data_dir);
    if !path.exists() {
        return Ok(Vec::new());
    }
    let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(&path).at(&path)?).at(&path)?.build().at(&path)?;
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.at(&path)?;
        let bad =
            |name: &str| Error::Schema { path: path.clone(), problem: format!("column `{name}` missing or mistyped") };
        let u64s = |name: &str| {
            batch.column_by_name(name).and_then(|c| c.as_primitive_opt::<UInt64Type>()).ok_or_else(|| bad(name))
        };
        let strs =
            |name: &str| batch.column_by_name(name).and_then(|c| c.as_string_opt::<i32>()).ok_or_else(|| bad(name));
        let (run, name, file, sha256) =
            (u64s(column::RUN)?, strs(column::NAME)?, strs(column::FILE)?, strs(column::SHA256)?);
        let (games, skipped, created) = (u64s(column::GAMES)?, u64s(column::SKIPPED)?, u64s(column::CREATED_UNIX_MS)?);
        for i in 0..batch.num_rows() {
            rows.push(ImportRow {
                run: RunId::new(run.value(i)),
                name: name.value(i).to_owned(),
                file: file.value(i).to_owned(),
                sha256: sha256.value(i).to_owned(),
                games: games.value(i),
                skipped: skipped.value(i),
                created_unix_ms: created.value(i),
            });
        }
    }
    Ok(rows)
}

/// Replaces `<data>/imports.parquet` with `rows`, all or nothing.
pub fn write_imports(data_dir: &Path, rows: &[ImportRow]) -> Result<()> {
    let path = imports_path(data_dir);
    let mut run = UInt64Builder::with_capacity(rows.len());
    let (mut name, mut file, mut sha256) = (StringBuilder::new(), StringBuilder::new(), StringBuilder::new());
    let [mut games, mut skipped, mut created] = std::array::from_fn(|_| UInt64Builder::with_capacity(rows.len()));
    for row in rows {
        run.append_value(row.run.get());
        name.append_value(&row.name);
        file.append_value(&row.file);
        sha256.append_value(&row.sha256);
        games.append_value(row.games);
        skipped.append_value(row.skipped);
        created.append_value(row.created_unix_ms);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(run.finish()),
        Arc::new(name.finish()),
        Arc::new(file.finish()),
        Arc::new(sha256.finish()),
        Arc::new(games.finish()),
        Arc::new(skipped.finish()),
        Arc::new(created.finish()),
    ];
    let batch = RecordBatch::try_new(IMPORTS.clone(), columns).at(&path)?;
    replace_file(data_dir, &path, "imports", &batch)
}
