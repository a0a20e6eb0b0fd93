//! The campaign's files: `loop.md` (one row per iteration), `best.toml` and the Elo-progress
//! chart.

use std::path::Path;

use analysis::charts::{self, ProgressPoint};
use engine::eval::Params;

use crate::campaign::Iteration;
use crate::error::{Error, Result};

/// The summary table in Markdown, and the chart's points: each tuned set's Elo over the
/// start, as the current best's plus the SPRT's estimate.
pub fn table(done: &[Iteration]) -> (String, Vec<ProgressPoint>) {
    let mut md = String::from(
        "# xqfarm loop\n\n| iteration | self-play games | positions (train/val) | K | train loss | validation loss | SPRT games | tuned vs best Elo | LLR | verdict | promoted | minutes |\n\
         |---:|---:|---|---:|---|---|---:|---|---:|---|---|---:|\n",
    );
    let mut cumulative = 0.0;
    let mut points = vec![ProgressPoint { iteration: 0, elo: 0.0, lower: 0.0, upper: 0.0, promoted: true }];
    for it in done {
        let t = &it.tuning;
        let half = (it.sprt.elo_upper - it.sprt.elo_lower) / 2.0;
        md.push_str(&format!(
            "| {} | {} | {} / {} | {:.5} | {:.5} → {:.5} | {:.5} → {:.5} | {} | {:+.1} ± {:.1} | {:.2} | {} | {} | {:.1} |\n",
            it.index,
            it.selfplay_games,
            t.train_positions,
            t.validation_positions,
            t.k,
            t.start_loss.0,
            t.end_loss.0,
            t.start_loss.1,
            t.end_loss.1,
            it.sprt.counts.games(),
            it.sprt.elo,
            half,
            it.sprt.sprt.map_or(f64::NAN, |s| s.llr),
            it.verdict.as_str(),
            if it.promoted() { "yes" } else { "no" },
            it.minutes
        ));
        let elo = cumulative + it.sprt.elo;
        points.push(ProgressPoint {
            iteration: it.index,
            elo,
            lower: elo - half,
            upper: elo + half,
            promoted: it.promoted(),
        });
        if it.promoted() {
            cumulative = elo;
        }
    }
    md.push_str(&format!(
        "\nCumulative Elo of the promoted parameters over the start (sum of the promoting SPRTs' estimates): {cumulative:+.1}\n\n![Elo progress](elo-progress.png)\n"
    ));
    (md, points)
}

/// Writes `loop.md`, `best.toml` and `elo-progress.png` into `dir`.
pub fn write(dir: &Path, done: &[Iteration], best: &Params) -> Result<()> {
    let (md, points) = table(done);
    let path = dir.join("loop.md");
    std::fs::write(&path, md).map_err(|e| Error::file(&path, e))?;
    let path = dir.join("best.toml");
    std::fs::write(&path, best.to_toml()).map_err(|e| Error::file(&path, e))?;
    charts::elo_progress(
        &dir.join("elo-progress.png"),
        "Elo of each tuned set over the start (promoted: filled)",
        &points,
    )?;
    Ok(())
}
