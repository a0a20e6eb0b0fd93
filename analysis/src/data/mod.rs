//! Reading the farm's Parquet data with polars, lazily: every query here starts from
//! `scan_parquet` over a Hive-partitioned table (`<data>/<table>/run=<id>/part-*.parquet`),
//! pushes its filters and projections into the scan, and collects with the streaming engine,
//! so a report over millions of games keeps only aggregates in memory.
//!
//! The layout is the coordinator's: `games` and `positions` tables partitioned by run, and a
//! small `runs.parquet` naming each run's variants, kind and SPRT bounds.

mod games;
mod openings;
mod positions;
mod runs;

use std::path::{Path, PathBuf};

use polars::prelude::*;
use proto::columns;

use crate::error::{Error, Result};

pub use games::{
    GameTotals, LengthStats, PairRow, PairingCounts, ReasonCount, WorkerCounts, game_totals, lengths, pairing_counts,
    pairs, reasons, worker_counts,
};
pub use openings::{
    CLASSIFIED_PLIES, CodeCounts, EccoFamily, OpeningGames, RunOpenings, openings, red_score, tally_openings,
};
pub use positions::{PositionCounts, PositionFilter, TuningPosition, game_key, tuning_positions};
pub use runs::{RunInfo, read_runs};

/// The two partitioned tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    Games,
    Positions,
}

impl Table {
    fn dir_name(self) -> &'static str {
        match self {
            Table::Games => columns::games::TABLE,
            Table::Positions => columns::positions::TABLE,
        }
    }
}

/// The directory of `table` under the data directory.
pub fn table_dir(data: &Path, table: Table) -> PathBuf {
    data.join(table.dir_name())
}

/// Whether `dir` holds at least one Parquet file (in any partition).
fn has_parquet(dir: &Path) -> Result<bool> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(data_error(dir, e)),
    };
    for entry in entries {
        let path = entry.map_err(|e| data_error(dir, e))?.path();
        if path.is_dir() {
            if has_parquet(&path)? {
                return Ok(true);
            }
        } else if path.extension().is_some_and(|e| e == "parquet") {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A lazy scan of `table` with its `run` partition column (Int64), restricted to `run` when
/// given; `None` when the table has no file yet.
pub fn scan(data: &Path, table: Table, run: Option<u64>) -> Result<Option<LazyFrame>> {
    let dir = table_dir(data, table);
    if !has_parquet(&dir)? {
        return Ok(None);
    }
    let mut args = ScanArgsParquet::default();
    args.hive_options.enabled = Some(true);
    let path = PlRefPath::try_from_path(&dir).map_err(|e| data_error(&dir, e))?;
    let lf = LazyFrame::scan_parquet(path, args).map_err(|e| data_error(&dir, e))?;
    let lf = lf.with_column(col(columns::RUN).cast(DataType::UInt64));
    Ok(Some(match run {
        Some(r) => lf.filter(col(columns::RUN).eq(lit(r))),
        None => lf,
    }))
}

/// Runs a query with the streaming engine, naming the data directory on failure.
pub(crate) fn collect(lf: LazyFrame, what: &Path) -> Result<DataFrame> {
    let result = lf.collect_with_engine(Engine::Streaming).map_err(|e| data_error(what, e))?;
    // Several frames come only from a plan with several sinks, which no query here builds.
    Ok(result.unwrap_single())
}

pub(crate) fn data_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Data { path: path.display().to_string(), reason: e.to_string() }
}

/// A column of a collected frame, with the frame's origin in the error.
pub(crate) fn column<'a>(df: &'a DataFrame, name: &str, what: &Path) -> Result<&'a Column> {
    df.column(name).map_err(|e| data_error(what, e))
}

pub(crate) fn u64s(df: &DataFrame, name: &str, what: &Path) -> Result<Vec<u64>> {
    let c = column(df, name, what)?.cast(&DataType::UInt64).map_err(|e| data_error(what, e))?;
    let ca = c.u64().map_err(|e| data_error(what, e))?;
    ca.iter().map(|v| v.ok_or_else(|| data_error(what, format!("null in column `{name}`")))).collect()
}

pub(crate) fn f64s(df: &DataFrame, name: &str, what: &Path) -> Result<Vec<f64>> {
    let c = column(df, name, what)?.cast(&DataType::Float64).map_err(|e| data_error(what, e))?;
    let ca = c.f64().map_err(|e| data_error(what, e))?;
    ca.iter().map(|v| v.ok_or_else(|| data_error(what, format!("null in column `{name}`")))).collect()
}

pub(crate) fn i64s(df: &DataFrame, name: &str, what: &Path) -> Result<Vec<i64>> {
    let c = column(df, name, what)?.cast(&DataType::Int64).map_err(|e| data_error(what, e))?;
    let ca = c.i64().map_err(|e| data_error(what, e))?;
    ca.iter().map(|v| v.ok_or_else(|| data_error(what, format!("null in column `{name}`")))).collect()
}

pub(crate) fn strings(df: &DataFrame, name: &str, what: &Path) -> Result<Vec<String>> {
    let c = column(df, name, what)?;
    let ca = c.str().map_err(|e| data_error(what, e))?;
    ca.iter()
        .map(|v| v.map(str::to_owned).ok_or_else(|| data_error(what, format!("null in column `{name}`"))))
        .collect()
}
