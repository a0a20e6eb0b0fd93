//! `report.md`: the report as Markdown tables.

use std::fmt::Write as _;

use proto::domain::RunState;

use super::build::{Report, verdict_text};

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 { "-".into() } else { format!("{:.1}%", 100.0 * part as f64 / whole as f64) }
}

/// Renders the report; `charts` are the chart file names to link (relative to the report).
pub fn render(report: &Report, charts: &[(String, String)]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# xqfarm report\n");
    let _ = writeln!(md, "{} games in {} pairings.\n", report.games, report.pairings.len());

    let _ = writeln!(md, "## Runs\n");
    let _ = writeln!(
        md,
        "| run | name | kind | state | tc | pairing | games | W | D | L | pentanomial [0,½,1,1½,2] | Elo (95%) | nElo (95%) | LOS | LLR (bounds) | verdict |"
    );
    let _ = writeln!(md, "|---:|---|---|---|---|---|---:|---:|---:|---:|---|---|---|---:|---|---|");
    for p in &report.pairings {
        let c = &p.counts;
        let (llr, verdict) = match &p.sprt {
            Some((params, r)) => (
                format!("{:.2} ({:.2}, {:.2}) [{}, {}]", r.llr, r.lower, r.upper, params.elo0, params.elo1),
                match &p.state {
                    Some(RunState::SprtDone { h1: true }) => "H1 accepted".to_owned(),
                    Some(RunState::SprtDone { h1: false }) => "H0 accepted".to_owned(),
                    Some(RunState::Active) | None => verdict_text(r).to_owned(),
                    Some(other) => format!("none ({other})", other = other.as_str()),
                },
            ),
            None => ("-".into(), "-".into()),
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} vs {} | {} | {} | {} | {} | {:?} | {:+.1} ± {:.1} | {:+.1} ± {:.1} | {:.1}% | {} | {} |",
            p.run,
            p.run_name,
            p.kind.map_or("?", |k| k.as_str()),
            p.state.as_ref().map_or("?", RunState::as_str),
            p.tc,
            p.first,
            p.second,
            c.games(),
            c.wins,
            c.draws,
            c.losses,
            c.pentanomial,
            p.elo.elo,
            p.elo.error(),
            p.nelo.nelo,
            p.nelo.error(),
            100.0 * p.los,
            llr,
            verdict
        );
    }

    let _ = writeln!(md, "\n## Rating list\n");
    match &report.anchor {
        Some(anchor) => {
            let _ = writeln!(
                md,
                "Maximum-likelihood Elo over all games of the selected runs (logistic model, draws as half points, as Ordo), `{anchor}` fixed at 0; ± is the 95% interval relative to it. Variants no chain of games links to `{anchor}` are not listed.\n"
            );
            let _ = writeln!(md, "| # | variant | Elo | ± | games | score |");
            let _ = writeln!(md, "|---:|---|---:|---:|---:|---:|");
            for (i, r) in report.ratings.iter().enumerate() {
                let _ = writeln!(
                    md,
                    "| {} | {} | {:+.1} | {:.1} | {} | {:.1}% |",
                    i + 1,
                    r.name,
                    r.elo,
                    r.error95,
                    r.games,
                    100.0 * r.score
                );
            }
        }
        None => {
            let _ = writeln!(md, "No games between different variants.");
        }
    }

    let _ = writeln!(md, "\n## Termination reasons\n");
    let _ = writeln!(md, "| run | reason | games | share |");
    let _ = writeln!(md, "|---:|---|---:|---:|");
    for r in &report.reasons {
        let total = report.lengths.iter().find(|l| l.run == r.run).map_or(0, |l| l.games);
        let _ = writeln!(md, "| {} | {} | {} | {} |", r.run, r.reason, r.games, pct(r.games, total));
    }

    let _ = writeln!(md, "\n## Game length\n");
    let _ = writeln!(md, "| run | games | mean plies | median | min | max | mean time/game | nodes |");
    let _ = writeln!(md, "|---:|---:|---:|---:|---:|---:|---:|---:|");
    for l in &report.lengths {
        let _ = writeln!(
            md,
            "| {} | {} | {:.1} | {:.0} | {} | {} | {:.2} s | {} |",
            l.run,
            l.games,
            l.mean_plies,
            l.median_plies,
            l.min_plies,
            l.max_plies,
            l.mean_duration_ms / 1000.0,
            l.nodes
        );
    }

    let _ = writeln!(md, "\n## Workers\n");
    let _ = writeln!(
        md,
        "Each worker's pentanomial counts against the pooled counts of the other workers of the same pairing (chi-square); flagged when p < {}.\n",
        super::build::WORKER_FLAG_P
    );
    let _ = writeln!(md, "| run | worker | pairs | pentanomial | chi² | p | flag |");
    let _ = writeln!(md, "|---:|---|---:|---|---:|---:|---|");
    for w in &report.workers {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {:?} | {:.2} | {:.4} | {} |",
            w.run,
            w.worker,
            w.pairs,
            w.pentanomial,
            w.statistic,
            w.p_value,
            if w.flagged { "**inconsistent**" } else { "ok" }
        );
    }

    if !charts.is_empty() {
        let _ = writeln!(md, "\n## Charts\n");
        for (title, file) in charts {
            let _ = writeln!(md, "![{title}]({file})\n");
        }
    }
    md
}
