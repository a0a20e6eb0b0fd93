//! `xqfarm report`: statistics of the games in a data directory, as `report.md` and PNG charts.
//!
//! [`build`] queries the Parquet tables lazily ([`crate::data`]) and computes per-run Elo,
//! nElo, LOS and SPRT state, a maximum-likelihood rating list, termination reasons, game
//! lengths and per-worker consistency; [`write`] renders it.

mod build;
mod markdown;

use std::path::{Path, PathBuf};

use crate::charts::{self, EloBar, LlrSeries};
use crate::error::{Error, Result};

pub use build::{
    PairingReport, RatingRow, Report, ReportOptions, TOP_OPENING_CODES, WORKER_FLAG_P, WorkerRow, build, verdict_text,
};
pub use markdown::render;

/// Writes `report.md` and its charts into `out`; returns the files written.
pub fn write(report: &Report, out: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out).map_err(|e| Error::Data { path: out.display().to_string(), reason: e.to_string() })?;
    let mut written = Vec::new();
    let mut links = Vec::new();

    if !report.ratings.is_empty() {
        let bars: Vec<EloBar> = report
            .ratings
            .iter()
            .map(|r| EloBar { label: r.name.clone(), elo: r.elo, lower: r.elo - r.error95, upper: r.elo + r.error95 })
            .collect();
        let path = out.join("elo.png");
        let anchor = report.anchor.as_deref().unwrap_or("?");
        charts::elo_bars(&path, &format!("Elo with 95% intervals ({anchor} = 0)"), &bars)?;
        links.push(("Elo per variant".to_owned(), "elo.png".to_owned()));
        written.push(path);
    }

    let series: Vec<LlrSeries> = report
        .pairings
        .iter()
        .filter_map(|p| {
            let (_, r) = p.sprt.as_ref()?;
            Some(LlrSeries {
                label: format!("run {}: {} vs {}", p.run, p.first, p.second),
                points: p.llr_series.clone(),
                lower: r.lower,
                upper: r.upper,
            })
        })
        .collect();
    if !series.is_empty() {
        let path = out.join("llr.png");
        charts::llr_curve(&path, "SPRT log-likelihood ratio against games", &series)?;
        links.push(("LLR against games".to_owned(), "llr.png".to_owned()));
        written.push(path);
    }

    let md = out.join("report.md");
    std::fs::write(&md, render(report, &links))
        .map_err(|e| Error::Data { path: md.display().to_string(), reason: e.to_string() })?;
    written.insert(0, md);
    Ok(written)
}
