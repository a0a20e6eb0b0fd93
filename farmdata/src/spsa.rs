//! The `spsa` table: an SPSA run's parameter values after every recorded submission, from
//! the start values at iteration 0, in long form (one row per parameter per point), so that
//! `pl.read_parquet("<data>/spsa/")` charts any parameter's path. One file per run
//! (`<data>/spsa/run=<id>.parquet`), rewritten whole (temp file + rename).

use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use arrow_array::builder::{Float64Builder, StringBuilder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use proto::columns::spsa;
use proto::domain::{HistoryPoint, RunId, SpsaParam};

use super::error::{AtPath, Result};
use super::schema::SCHEMA_VERSION;

/// Where a run's SPSA history lives.
pub fn spsa_path(data_dir: &Path, run: RunId) -> PathBuf {
    data_dir.join(spsa::TABLE).join(format!("run={run}.parquet"))
}

static SPSA: LazyLock<SchemaRef> = LazyLock::new(|| {
    let metadata: std::collections::HashMap<String, String> =
        [("xqfarm.schema_version".to_owned(), SCHEMA_VERSION.to_string())].into_iter().collect();
    Arc::new(
        Schema::new(vec![
            Field::new(spsa::RUN, DataType::UInt64, false),
            Field::new(spsa::ITERATION, DataType::UInt64, false),
            Field::new(spsa::RECEIVED_UNIX_MS, DataType::UInt64, false),
            Field::new(spsa::PARAM, DataType::Utf8, false),
            Field::new(spsa::VALUE, DataType::Float64, false),
            Field::new(spsa::START, DataType::Float64, false),
        ])
        .with_metadata(metadata),
    )
});

fn batch(run: RunId, params: &[SpsaParam], history: &[HistoryPoint], path: &Path) -> Result<RecordBatch> {
    let n = history.len() * params.len();
    let (mut runs, mut iteration, mut received) =
        (UInt64Builder::with_capacity(n), UInt64Builder::with_capacity(n), UInt64Builder::with_capacity(n));
    let mut param = StringBuilder::new();
    let (mut value, mut start) = (Float64Builder::with_capacity(n), Float64Builder::with_capacity(n));
    for point in history {
        for (p, &v) in params.iter().zip(&point.theta) {
            runs.append_value(run.get());
            iteration.append_value(point.iteration);
            received.append_value(point.received_ms);
            param.append_value(&p.name);
            value.append_value(v);
            start.append_value(p.start);
        }
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(runs.finish()),
        Arc::new(iteration.finish()),
        Arc::new(received.finish()),
        Arc::new(param.finish()),
        Arc::new(value.finish()),
        Arc::new(start.finish()),
    ];
    RecordBatch::try_new(SPSA.clone(), columns).at(path)
}

/// Replaces the run's SPSA history file with `history`, all or nothing.
pub fn write_spsa(data_dir: &Path, run: RunId, params: &[SpsaParam], history: &[HistoryPoint]) -> Result<()> {
    let final_path = spsa_path(data_dir, run);
    let dir = data_dir.join(spsa::TABLE);
    std::fs::create_dir_all(&dir).at(&dir)?;
    let batch = batch(run, params, history, &final_path)?;
    super::runs::replace_file(data_dir, &final_path, &format!("spsa-{run}"), &batch)
}

#[cfg(test)]
mod tests {
    use std::fs::File;

    use ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, UInt64Type};

    use super::*;

    #[test]
    fn the_history_is_written_long_with_its_start() -> Result<()> {
        let dir = tempfile::tempdir().expect("temp dir");
        let params = proto::domain::parse_spsa_lines("a,1,0,2,1,0.002\nb,10,0,20,1,0.002").expect("lines");
        let history = vec![
            HistoryPoint { iteration: 0, received_ms: 5, theta: vec![1.0, 10.0] },
            HistoryPoint { iteration: 3, received_ms: 9, theta: vec![1.25, 9.5] },
        ];
        write_spsa(dir.path(), RunId::new(4), &params, &history)?;
        let path = spsa_path(dir.path(), RunId::new(4));
        let file = File::open(&path).expect("written");
        let batches: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(file)
            .expect("parquet")
            .build()
            .expect("reader")
            .collect::<std::result::Result<_, _>>()
            .expect("batches");
        let b = &batches[0];
        let schema = b.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, spsa::ALL);
        assert_eq!(b.num_rows(), 4);
        let col = |i: usize| b.column(i).as_primitive::<UInt64Type>().values().to_vec();
        assert_eq!(col(1), [0, 0, 3, 3]);
        let values = b.column(4).as_primitive::<Float64Type>().values().to_vec();
        assert_eq!(values, [1.0, 10.0, 1.25, 9.5]);
        let starts = b.column(5).as_primitive::<Float64Type>().values().to_vec();
        assert_eq!(starts, [1.0, 10.0, 1.0, 10.0]);
        // Rewritten whole.
        write_spsa(dir.path(), RunId::new(4), &params, &history[..1])?;
        let file = File::open(&path).expect("written");
        let rows: usize = ParquetRecordBatchReaderBuilder::try_new(file)
            .expect("parquet")
            .build()
            .expect("reader")
            .map(|b| b.expect("batch").num_rows())
            .sum();
        assert_eq!(rows, 2);
        Ok(())
    }
}
