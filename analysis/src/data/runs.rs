//! The `runs` table (`<data>/runs.parquet`): what each run was.

use std::path::Path;

use polars::prelude::*;
use proto::columns::runs as column;
use proto::domain::{EloModel, RunKindName, RunState};

use super::{collect, column, data_error, f64s, strings, u64s};
use crate::error::Result;

/// One run as the coordinator described it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunInfo {
    pub run: u64,
    pub name: String,
    pub kind: RunKindName,
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// SPRT runs only.
    pub model: Option<EloModel>,
    pub variant_ids: Vec<String>,
    pub variant_names: Vec<String>,
    pub state: RunState,
    pub tc: String,
}

impl RunInfo {
    pub fn is_sprt(&self) -> bool {
        self.kind == RunKindName::Sprt
    }

    /// The name of variant `id` in this run, if it is one of the run's.
    pub fn name_of(&self, id: &str) -> Option<&str> {
        self.variant_ids.iter().position(|v| v == id).and_then(|i| self.variant_names.get(i)).map(String::as_str)
    }
}

/// Every run of the data directory, by id; empty when the file does not exist (data written
/// before the table existed, or by hand).
pub fn read_runs(data: &Path) -> Result<Vec<RunInfo>> {
    let path = data.join(column::FILE);
    if !path.exists() {
        return Ok(Vec::new());
    }
    let pl_path = PlRefPath::try_from_path(&path).map_err(|e| data_error(&path, e))?;
    let lf = LazyFrame::scan_parquet(pl_path, ScanArgsParquet::default()).map_err(|e| data_error(&path, e))?;
    let df = collect(lf, &path)?;
    let runs = u64s(&df, column::RUN, &path)?;
    let name = strings(&df, column::NAME, &path)?;
    let kind = strings(&df, column::KIND, &path)?;
    let elo0 = f64s(&df, column::ELO0, &path)?;
    let elo1 = f64s(&df, column::ELO1, &path)?;
    let alpha = f64s(&df, column::ALPHA, &path)?;
    let beta = f64s(&df, column::BETA, &path)?;
    let model = strings(&df, column::MODEL, &path)?;
    let state = strings(&df, column::STATE, &path)?;
    let tc = strings(&df, column::TC, &path)?;
    let ids = string_lists(&df, column::VARIANT_IDS, &path)?;
    let names = string_lists(&df, column::VARIANT_NAMES, &path)?;
    let bad = |run: u64, e: proto::Error| data_error(&path, format!("run {run}: {e}"));
    let mut out = Vec::with_capacity(runs.len());
    for i in 0..runs.len() {
        out.push(RunInfo {
            run: runs[i],
            name: name[i].clone(),
            kind: kind[i].parse().map_err(|e| bad(runs[i], e))?,
            elo0: elo0[i],
            elo1: elo1[i],
            alpha: alpha[i],
            beta: beta[i],
            model: if model[i].is_empty() { None } else { Some(model[i].parse().map_err(|e| bad(runs[i], e))?) },
            variant_ids: ids[i].clone(),
            variant_names: names[i].clone(),
            state: legacy_state(&state[i]).parse().map_err(|e| bad(runs[i], e))?,
            tc: tc[i].clone(),
        });
    }
    out.sort_by_key(|r| r.run);
    Ok(out)
}

/// Tables written before the run states had one vocabulary said `h1`/`h0`; the coordinator
/// rewrites the table in today's words at its next start, and until then they read as these.
fn legacy_state(text: &str) -> &str {
    match text {
        "h1" => RunState::SprtDone { h1: true }.as_str(),
        "h0" => RunState::SprtDone { h1: false }.as_str(),
        other => other,
    }
}

fn string_lists(df: &DataFrame, name: &str, path: &Path) -> Result<Vec<Vec<String>>> {
    let lists = column(df, name, path)?.list().map_err(|e| data_error(path, e))?;
    let mut out = Vec::with_capacity(lists.len());
    for i in 0..lists.len() {
        let series = lists.get_as_series(i).ok_or_else(|| data_error(path, format!("null in column `{name}`")))?;
        let values = series.str().map_err(|e| data_error(path, e))?;
        out.push(values.iter().map(|v| v.unwrap_or_default().to_owned()).collect());
    }
    Ok(out)
}
