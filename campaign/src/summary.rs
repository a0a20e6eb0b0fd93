//! The campaign's files: `loop.md` (one row per iteration: its data run, the tuning's
//! positions and losses, the SPRTs and what the tuned set evaluates with, a network by its
//! id's first digits), `best.toml` and the Elo-progress chart.

use std::path::Path;

use analysis::charts::{self, ProgressPoint};
use engine::{EvalSpec, ParamSet};
use proto::domain::LiveStats;

use crate::campaign::Iteration;
use crate::error::{Error, Result};

/// The summary table in Markdown, and the chart's points: each tuned set's Elo over the
/// start, measured against the start where a match against it ran (iteration 1's SPRT, the
/// anchor), else the current best's plus the SPRT's estimate.
pub fn table(done: &[Iteration]) -> (String, Vec<ProgressPoint>) {
    let mut md = String::from(
        "# xqfarm loop\n\n| iteration | self-play games | positions (train/val) | K | train loss | validation loss | SPRT games | tuned vs best Elo | LLR | verdict | anchor games | anchor vs start Elo | anchor LLR | anchor verdict | promoted | minutes | data run | evaluation |\n\
         |---:|---:|---|---:|---|---|---:|---|---:|---|---:|---|---:|---|---|---:|---:|---|\n",
    );
    // The best's Elo over the start, as the chart chains it, and as the promoting SPRTs sum.
    let mut best_elo = 0.0;
    let mut sum = 0.0;
    let mut last_promotion: Option<&Iteration> = None;
    let mut points = vec![ProgressPoint { iteration: 0, elo: 0.0, lower: 0.0, upper: 0.0, promoted: true }];
    for it in done {
        let t = &it.tuning;
        let (anchor_games, anchor_elo, anchor_llr, anchor_verdict) = match &it.anchor {
            Some(a) => (a.stats.counts.games().to_string(), elo_cell(&a.stats), llr_cell(&a.stats), a.verdict.as_str()),
            None => ("—".to_owned(), "—".to_owned(), "—".to_owned(), "—"),
        };
        md.push_str(&format!(
            "| {} | {} | {} / {} | {:.5} | {:.5} → {:.5} | {:.5} → {:.5} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1} | {} | {} |\n",
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
            elo_cell(&it.sprt),
            llr_cell(&it.sprt),
            it.verdict.as_str(),
            anchor_games,
            anchor_elo,
            anchor_llr,
            anchor_verdict,
            if it.promoted() { "yes" } else { "no" },
            it.minutes,
            it.selfplay_run,
            evaluation(&t.params),
        ));
        let (elo, half) = match it.measured_over_start() {
            Some(live) => (live.elo, half_width(live)),
            None => (best_elo + it.sprt.elo, half_width(&it.sprt)),
        };
        points.push(ProgressPoint {
            iteration: it.index,
            elo,
            lower: elo - half,
            upper: elo + half,
            promoted: it.promoted(),
        });
        if it.promoted() {
            best_elo = elo;
            sum += it.sprt.elo;
            last_promotion = Some(it);
        }
    }
    match last_promotion {
        Some(it) => md.push_str(&format!(
            "\nThe best (`{}`) over the start: {best_elo:+.1} Elo as measured against the start by {}; \
             {sum:+.1} as the sum of the promoting SPRTs' estimates.\n",
            it.best_name,
            if it.anchor.is_some() {
                format!("iteration {}'s anchor", it.index)
            } else {
                format!("iteration {}'s SPRT", it.index)
            }
        )),
        None => md.push_str("\nNo tuned set was promoted: the start is the best.\n"),
    }
    md.push_str("\n![Elo progress](elo-progress.png)\n");
    (md, points)
}

/// What a tuned set evaluates with: `hce`, or `nnue:` and its network's first 8 hex digits.
fn evaluation(params: &ParamSet) -> String {
    match params.eval_spec {
        EvalSpec::Hce => "hce".into(),
        EvalSpec::Nnue(id) => format!("nnue:{}", id.short()),
    }
}

fn half_width(live: &LiveStats) -> f64 {
    (live.elo_upper - live.elo_lower) / 2.0
}

fn elo_cell(live: &LiveStats) -> String {
    format!("{:+.1} ± {:.1}", live.elo, half_width(live))
}

fn llr_cell(live: &LiveStats) -> String {
    format!("{:.2}", live.sprt.map_or(f64::NAN, |s| s.llr))
}

/// Writes `loop.md`, `best.toml` (the whole parameter set) and `elo-progress.png` into `dir`.
pub fn write(dir: &Path, done: &[Iteration], best: &ParamSet) -> Result<()> {
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
