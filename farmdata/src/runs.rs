//! The `runs` table: one row per run, so the Parquet data explains itself without the
//! database: which variants a run's `red_variant`/`black_variant` ids are, their names, the
//! run's kind and SPRT bounds, its state. Small, so it is one file (`<data>/runs.parquet`)
//! rewritten whole (temp file + rename) whenever a run's row changes.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use ::parquet::arrow::ArrowWriter;
use arrow_array::builder::{Float64Builder, ListBuilder, StringBuilder, UInt32Builder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use proto::columns::runs;
use proto::domain::{Run, RunId, RunKind, Variant, VariantId};

use super::error::{AtPath, Result};
use super::layout::{sync_dir, temp_dir};
use super::schema::SCHEMA_VERSION;
use super::writer::writer_properties;

/// Where the runs table lives.
pub fn runs_path(data_dir: &Path) -> PathBuf {
    data_dir.join(runs::FILE)
}

/// One run as the `runs` table holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunRow {
    pub run: RunId,
    pub name: String,
    /// [`proto::domain::RunKindName::as_str`]: `sprt`, `games`, `gauntlet`, `round_robin`, `spsa`,
    /// `tournament` or `datagen`.
    pub kind: String,
    /// SPRT bounds and error rates; 0 for other kinds.
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// `normalized` or `logistic` for an SPRT, empty otherwise.
    pub model: String,
    /// The variants in the spec's order (the first is the candidate of an SPRT/gauntlet).
    pub variant_ids: Vec<String>,
    pub variant_names: Vec<String>,
    /// [`proto::domain::RunState::as_str`]: `active`, `sprt_h1`, `sprt_h0`, `completed` or `stopped`
    /// (files written before the vocabulary was one said `h1`/`h0`; the coordinator rewrites the
    /// table at start).
    pub state: String,
    pub tc: String,
    pub sample_every: u32,
    pub created_unix_ms: u64,
}

impl RunRow {
    /// The row of `run`, whose variants (in the spec's order) are `variants`.
    pub fn new(run: &Run, variants: &[Variant]) -> RunRow {
        let (elo0, elo1, alpha, beta, model) = match &run.spec.kind {
            RunKind::Sprt(s) => (s.elo0, s.elo1, s.alpha, s.beta, s.model.as_str()),
            RunKind::Games { .. }
            | RunKind::Gauntlet { .. }
            | RunKind::RoundRobin { .. }
            | RunKind::Spsa(_)
            | RunKind::Datagen(_)
            | RunKind::Tournament(_) => (0.0, 0.0, 0.0, 0.0, ""),
        };
        let kind = run.spec.kind.name().as_str();
        let state = run.state.as_str();
        RunRow {
            run: run.id,
            name: run.spec.name.clone(),
            kind: kind.to_owned(),
            elo0,
            elo1,
            alpha,
            beta,
            model: model.to_owned(),
            variant_ids: run.spec.variants.iter().map(VariantId::to_string).collect(),
            variant_names: run
                .spec
                .variants
                .iter()
                .map(|id| variants.iter().find(|v| &v.id == id).map_or_else(|| id.to_string(), |v| v.spec.name.clone()))
                .collect(),
            state: state.to_owned(),
            tc: run.spec.tc.to_string(),
            sample_every: run.spec.sample_every,
            created_unix_ms: run.created_unix_ms,
        }
    }
}

fn names_item() -> Field {
    Field::new_list_field(DataType::Utf8, false)
}

static RUNS: LazyLock<SchemaRef> = LazyLock::new(|| {
    let metadata = [("xqfarm.table", "runs"), ("xqfarm.schema_version", SCHEMA_VERSION)];
    Arc::new(
        Schema::new(vec![
            Field::new(runs::RUN, DataType::UInt64, false),
            Field::new(runs::NAME, DataType::Utf8, false),
            Field::new(runs::KIND, DataType::Utf8, false),
            Field::new(runs::ELO0, DataType::Float64, false),
            Field::new(runs::ELO1, DataType::Float64, false),
            Field::new(runs::ALPHA, DataType::Float64, false),
            Field::new(runs::BETA, DataType::Float64, false),
            Field::new(runs::MODEL, DataType::Utf8, false),
            Field::new(runs::VARIANT_IDS, DataType::List(Arc::new(names_item())), false),
            Field::new(runs::VARIANT_NAMES, DataType::List(Arc::new(names_item())), false),
            Field::new(runs::STATE, DataType::Utf8, false),
            Field::new(runs::TC, DataType::Utf8, false),
            Field::new(runs::SAMPLE_EVERY, DataType::UInt32, false),
            Field::new(runs::CREATED_UNIX_MS, DataType::UInt64, false),
        ])
        .with_metadata(metadata),
    )
});

fn runs_batch(rows: &[RunRow], path: &Path) -> Result<RecordBatch> {
    let n = rows.len();
    let mut run = UInt64Builder::with_capacity(n);
    let mut name = StringBuilder::new();
    let mut kind = StringBuilder::new();
    let [mut elo0, mut elo1, mut alpha, mut beta] = std::array::from_fn(|_| Float64Builder::with_capacity(n));
    let mut model = StringBuilder::new();
    let mut ids = ListBuilder::with_capacity(StringBuilder::new(), n).with_field(names_item());
    let mut names = ListBuilder::with_capacity(StringBuilder::new(), n).with_field(names_item());
    let mut state = StringBuilder::new();
    let mut tc = StringBuilder::new();
    let mut sample_every = UInt32Builder::with_capacity(n);
    let mut created = UInt64Builder::with_capacity(n);
    for row in rows {
        run.append_value(row.run.get());
        name.append_value(&row.name);
        kind.append_value(&row.kind);
        elo0.append_value(row.elo0);
        elo1.append_value(row.elo1);
        alpha.append_value(row.alpha);
        beta.append_value(row.beta);
        model.append_value(&row.model);
        for id in &row.variant_ids {
            ids.values().append_value(id);
        }
        ids.append(true);
        for n in &row.variant_names {
            names.values().append_value(n);
        }
        names.append(true);
        state.append_value(&row.state);
        tc.append_value(&row.tc);
        sample_every.append_value(row.sample_every);
        created.append_value(row.created_unix_ms);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(run.finish()),
        Arc::new(name.finish()),
        Arc::new(kind.finish()),
        Arc::new(elo0.finish()),
        Arc::new(elo1.finish()),
        Arc::new(alpha.finish()),
        Arc::new(beta.finish()),
        Arc::new(model.finish()),
        Arc::new(ids.finish()),
        Arc::new(names.finish()),
        Arc::new(state.finish()),
        Arc::new(tc.finish()),
        Arc::new(sample_every.finish()),
        Arc::new(created.finish()),
    ];
    RecordBatch::try_new(RUNS.clone(), columns).at(path)
}

/// Replaces `<data>/runs.parquet` with `rows`, all or nothing.
pub fn write_runs(data_dir: &Path, rows: &[RunRow]) -> Result<()> {
    let final_path = runs_path(data_dir);
    let batch = runs_batch(rows, &final_path)?;
    replace_file(data_dir, &final_path, "runs", &batch)
}

/// Replaces the one-file table at `final_path` (in `data_dir` or a directory of it) with
/// `batch`, all or nothing: written to a temporary file, synced, renamed over it.
pub(super) fn replace_file(data_dir: &Path, final_path: &Path, stem: &str, batch: &RecordBatch) -> Result<()> {
    let tmp_dir = temp_dir(data_dir);
    std::fs::create_dir_all(&tmp_dir).at(&tmp_dir)?;
    let temp = tmp_dir.join(format!("{stem}-{}.parquet", std::process::id()));
    let result = (|| {
        let file = File::create(&temp).at(&temp)?;
        let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(writer_properties())).at(&temp)?;
        writer.write(batch).at(&temp)?;
        let file = writer.into_inner().at(&temp)?;
        file.sync_all().at(&temp)?;
        std::fs::rename(&temp, final_path).at(final_path)?;
        sync_dir(final_path.parent().unwrap_or(data_dir))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    fn row(run: RunId) -> RunRow {
        RunRow {
            run,
            name: format!("run {run}"),
            kind: "sprt".into(),
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: "normalized".into(),
            variant_ids: vec!["aa".into(), "bb".into()],
            variant_names: vec!["tuned".into(), "base".into()],
            state: "active".into(),
            tc: "nodes=1000".into(),
            sample_every: 8,
            created_unix_ms: 1,
        }
    }

    #[test]
    fn the_written_columns_are_the_shared_names() {
        // Analysis reads with `proto::columns::runs`: a column renamed here alone fails this.
        let names: Vec<&str> = RUNS.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, runs::ALL);
    }

    #[test]
    fn rewrites_the_whole_table() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| crate::error::Error::Io { path: "tmp".into(), source: e })?;
        write_runs(dir.path(), &[row(RunId::new(1))])?;
        write_runs(dir.path(), &[row(RunId::new(1)), row(RunId::new(2))])?;
        let path = runs_path(dir.path());
        let file = File::open(&path).at(&path)?;
        let reader = ParquetRecordBatchReaderBuilder::try_new(file).at(&path)?.build().at(&path)?;
        let rows: usize = reader.map(|b| b.map(|b| b.num_rows()).unwrap_or(0)).sum();
        assert_eq!(rows, 2);
        assert!(std::fs::read_dir(temp_dir(dir.path())).at(dir.path())?.next().is_none(), "temp file left behind");
        Ok(())
    }
}
