//! The `runs` table (`<data>/runs.parquet`): what each run was.

use std::path::Path;

use proto::columns::runs as column;
use proto::domain::{EloModel, RunKindName, RunState};

use super::data_error;
use super::read::ParquetFile;
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
    let bad = |run: u64, e: proto::Error| data_error(&path, format!("run {run}: {e}"));
    let columns = [
        column::RUN,
        column::NAME,
        column::KIND,
        column::ELO0,
        column::ELO1,
        column::ALPHA,
        column::BETA,
        column::MODEL,
        column::VARIANT_IDS,
        column::VARIANT_NAMES,
        column::STATE,
        column::TC,
    ];
    let mut out = Vec::new();
    ParquetFile::open(&path)?.for_each_batch(&columns, |batch| {
        let runs = batch.u64s(column::RUN)?;
        let name = batch.strs(column::NAME)?;
        let kind = batch.strs(column::KIND)?;
        let elo0 = batch.f64s(column::ELO0)?;
        let elo1 = batch.f64s(column::ELO1)?;
        let alpha = batch.f64s(column::ALPHA)?;
        let beta = batch.f64s(column::BETA)?;
        let model = batch.strs(column::MODEL)?;
        let state = batch.strs(column::STATE)?;
        let tc = batch.strs(column::TC)?;
        let ids = batch.str_lists(column::VARIANT_IDS, usize::MAX)?;
        let names = batch.str_lists(column::VARIANT_NAMES, usize::MAX)?;
        for i in 0..batch.len() {
            out.push(RunInfo {
                run: runs[i],
                name: name[i].to_owned(),
                kind: kind[i].parse().map_err(|e| bad(runs[i], e))?,
                elo0: elo0[i],
                elo1: elo1[i],
                alpha: alpha[i],
                beta: beta[i],
                model: if model[i].is_empty() { None } else { Some(model[i].parse().map_err(|e| bad(runs[i], e))?) },
                variant_ids: owned(&ids[i]),
                variant_names: owned(&names[i]),
                state: legacy_state(state[i]).parse().map_err(|e| bad(runs[i], e))?,
                tc: tc[i].to_owned(),
            });
        }
        Ok(())
    })?;
    out.sort_by_key(|r| r.run);
    Ok(out)
}

/// A list's items, a null item as the empty text.
fn owned(items: &[Option<&str>]) -> Vec<String> {
    items.iter().map(|v| v.unwrap_or_default().to_owned()).collect()
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
