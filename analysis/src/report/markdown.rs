//! `report.md`: the report as Markdown tables.

use std::fmt::Write as _;

use proto::domain::RunState;

use super::build::{Report, TOP_OPENING_CODES, verdict_text};
use crate::data::{EccoFamily, RunOpenings};
use crate::stats::Wdl;

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 { "-".into() } else { format!("{:.1}%", 100.0 * part as f64 / whole as f64) }
}

/// A table row's counts: games, Red's wins, draws and losses, and Red's score.
fn red_cells(red: &Wdl) -> String {
    format!(
        "{} | {} | {} | {} | {}",
        red.games(),
        red.wins,
        red.draws,
        red.losses,
        pct(2 * red.wins + red.draws, 2 * red.games())
    )
}

/// The `## Openings (ECCO)` section: per run, games by family, then the most played codes.
fn openings(md: &mut String, runs: &[RunOpenings]) {
    let _ = writeln!(md, "\n## Openings (ECCO)\n");
    if runs.is_empty() {
        let _ = writeln!(md, "No games.");
        return;
    }
    let _ = writeln!(
        md,
        "Each game from the initial position by the ECCO code of its first ten rounds (the suite's opening line, then the players' moves); results and score from Red's side.\n"
    );
    let _ = writeln!(md, "| run | family | games | Red wins | draws | Red losses | Red score |");
    let _ = writeln!(md, "|---:|---|---:|---:|---:|---:|---:|");
    for r in runs {
        for family in EccoFamily::ALL {
            let _ = writeln!(
                md,
                "| {} | {} {} ({}) | {} |",
                r.run,
                family.letter(),
                family.name(),
                family.description(),
                red_cells(r.family(family))
            );
        }
        if r.unclassified.games() > 0 {
            let _ = writeln!(
                md,
                "| {} | unclassified (not from the initial position) | {} |",
                r.run,
                red_cells(&r.unclassified)
            );
        }
    }
    let _ = writeln!(md, "\nThe {TOP_OPENING_CODES} most played codes of each run:\n");
    let _ = writeln!(md, "| run | code | opening | games | Red wins | draws | Red losses | Red score |");
    let _ = writeln!(md, "|---:|---|---|---:|---:|---:|---:|---:|");
    for r in runs {
        for c in r.codes.iter().take(TOP_OPENING_CODES) {
            let o = &c.opening;
            let name = if o.variation.is_empty() { o.name.to_owned() } else { format!("{} ({})", o.name, o.variation) };
            let _ = writeln!(md, "| {} | {} | {} | {} |", r.run, o.code, name, red_cells(&c.red));
        }
    }
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

    if !report.imported.is_empty() {
        let _ = writeln!(md, "\n## Imported games\n");
        let _ = writeln!(
            md,
            "Game archives (`xqfarm import pgn`): no pairs, so no pentanomial, Elo or SPRT.\n\n\
             | run | name | files | games | Red wins | draws | Black wins | unknown result | played past the rules' end |"
        );
        let _ = writeln!(md, "|---:|---|---:|---:|---:|---:|---:|---:|---:|");
        for r in &report.imported {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.run,
                r.name,
                r.files.len(),
                r.games,
                r.red_wins,
                r.draws,
                r.black_wins,
                r.unknown,
                r.past_rules_end
            );
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

    openings(&mut md, &report.openings);

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

    for (title, body) in &report.sections {
        let _ = writeln!(md, "\n## {title}\n\n{body}");
    }

    if !charts.is_empty() {
        let _ = writeln!(md, "\n## Charts\n");
        for (title, file) in charts {
            let _ = writeln!(md, "![{title}]({file})\n");
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_the_openings_by_family_and_the_top_codes() {
        let opening = |code| engine::ecco::opening(code).expect("a code of the table");
        let wdl = |wins, draws, losses| Wdl { wins, draws, losses };
        let run = RunOpenings {
            run: 4,
            families: [wdl(2, 1, 0), wdl(0, 0, 0), wdl(3, 1, 2), wdl(0, 1, 0), wdl(0, 1, 2)],
            unclassified: wdl(1, 0, 0),
            codes: vec![
                crate::data::CodeCounts { opening: opening("C00"), red: wdl(3, 1, 2) },
                crate::data::CodeCounts { opening: opening("C02"), red: wdl(1, 0, 0) },
            ],
        };
        let report = Report {
            games: 14,
            pairings: Vec::new(),
            ratings: Vec::new(),
            anchor: None,
            reasons: Vec::new(),
            lengths: Vec::new(),
            openings: vec![run],
            workers: Vec::new(),
            imported: vec![crate::data::ImportedRun {
                run: 8_388_608,
                name: "masters".into(),
                files: vec!["a.pgn".into(), "b.pgn".into()],
                games: 9,
                red_wins: 4,
                draws: 2,
                black_wins: 1,
                unknown: 2,
                past_rules_end: 1,
            }],
            sections: vec![("Tournament: run 3 swiss".into(), "```text\nstandings\n```".into())],
        };
        let md = render(&report, &[]);
        assert!(md.contains("\n| 8388608 | masters | 2 | 9 | 4 | 2 | 1 | 2 | 1 |\n"), "{md}");
        assert!(md.contains("\n## Tournament: run 3 swiss\n\n```text\nstandings\n```"), "{md}");
        let section = md.split("## Openings (ECCO)\n").nth(1).expect("the section");
        let section = section.split("\n## ").next().unwrap_or(section);
        for row in [
            "| run | family | games | Red wins | draws | Red losses | Red score |",
            "| 4 | A 其他开局 (openings other than the central cannon and the pawn) | 3 | 2 | 1 | 0 | 83.3% |",
            "| 4 | B 中炮对非屏风马 (central cannon against defences other than the screen horses) | 0 | 0 | 0 | 0 | - |",
            "| 4 | C 中炮对屏风马 (central cannon against the screen horses) | 6 | 3 | 1 | 2 | 58.3% |",
            "| 4 | D 顺炮与列炮 (same- and opposite-direction cannons) | 1 | 0 | 1 | 0 | 50.0% |",
            "| 4 | E 仙人指路 (the pawn opening) | 3 | 0 | 1 | 2 | 16.7% |",
            "| 4 | unclassified (not from the initial position) | 1 | 1 | 0 | 0 | 100.0% |",
            "| run | code | opening | games | Red wins | draws | Red losses | Red score |",
            "| 4 | C00 | 中炮对屏风马 | 6 | 3 | 1 | 2 | 58.3% |",
            "| 4 | C02 | 中炮七路马对屏风马 (红左马盘河) | 1 | 1 | 0 | 0 | 100.0% |",
        ] {
            assert!(section.lines().any(|l| l == row), "missing `{row}` in\n{section}");
        }
        assert!(md.find("## Openings (ECCO)") < md.find("## Workers"), "{md}");

        let empty = render(&Report { openings: Vec::new(), ..report }, &[]);
        assert!(empty.contains("## Openings (ECCO)\n\nNo games."), "{empty}");
    }
}
