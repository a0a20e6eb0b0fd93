//! `xqfarm report`: `report.md` and charts over a data directory's Parquet tables.

use std::path::PathBuf;

use analysis::report::{self, ReportOptions, verdict_text};
use anyhow::{Context, Result};
use clap::Args;

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Data directory of a coordinator (`games/`, `positions/`, `runs.parquet`).
    #[arg(long)]
    pub data: PathBuf,
    /// Only this run.
    #[arg(long)]
    pub run: Option<u64>,
    /// Where `report.md` and the charts go (default: `<data>/report`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The rating list's anchor (variant name or id prefix).
    #[arg(long)]
    pub base: Option<String>,
    /// The coordinator's database, for a "Tournament" section per tournament run (its draw,
    /// rounds and standings are there, not in Parquet); default `<data>/../xqfarm.db` when it
    /// exists (the layout of `--local` farms). A SQLite file or a PostgreSQL URL, as `serve --db`
    /// takes.
    #[arg(long)]
    pub db: Option<String>,
}

/// A "Tournament" section for each tournament run in the coordinator's database `db`.
fn tournament_sections(db: &str, only: Option<u64>) -> Result<Vec<(String, String)>> {
    let storage = coordinator::storage::open(db)
        .with_context(|| format!("opening the database {}", coordinator::storage::describe(db)))?;
    let mut sections = Vec::new();
    for run in storage.list_runs()? {
        if only.is_some_and(|r| r != run.id.get()) {
            continue;
        }
        let Some(draw) = storage.tournament_draw(run.id)? else { continue };
        let status = proto::domain::RunStatus { tournament: Some(draw.clone()), ..coordinator::farm::status(run) };
        if let Some(text) = crate::tournament_cmd::tournament_text(&status, &draw.names) {
            sections.push((
                format!("Tournament: run {} {}", status.run.id, status.run.spec.name),
                format!("```text\n{text}```\n"),
            ));
        }
    }
    Ok(sections)
}

pub fn run(args: &ReportArgs) -> Result<()> {
    if !args.data.is_dir() {
        anyhow::bail!("--data {}: not a directory", args.data.display());
    }
    let options = ReportOptions { run: args.run, base: args.base.clone() };
    let mut report = report::build(&args.data, &options).with_context(|| format!("reading {}", args.data.display()))?;
    let db = args.db.clone().or_else(|| {
        let guess = args.data.parent().map(|p| p.join("xqfarm.db"))?;
        guess.is_file().then(|| guess.to_string_lossy().into_owned())
    });
    if let Some(db) = db {
        report.sections = tournament_sections(&db, args.run)?;
    }
    if report.games == 0 {
        anyhow::bail!(
            "no games in {}{}",
            args.data.display(),
            args.run.map(|r| format!(" for run {r}")).unwrap_or_default()
        );
    }
    let out = args.out.clone().unwrap_or_else(|| args.data.join("report"));
    let files = report::write(&report, &out)?;
    for p in &report.pairings {
        let sprt = p
            .sprt
            .as_ref()
            .map(|(_, r)| format!(", LLR {:.2} ({:.2}, {:.2}) {}", r.llr, r.lower, r.upper, verdict_text(r)))
            .unwrap_or_default();
        println!(
            "run {} {} vs {}: {} games W{} D{} L{}, Elo {:+.1} ± {:.1}, nElo {:+.1}, LOS {:.1}%{sprt}",
            p.run,
            p.first,
            p.second,
            p.counts.games(),
            p.counts.wins,
            p.counts.draws,
            p.counts.losses,
            p.elo.elo,
            p.elo.error(),
            p.nelo.nelo,
            100.0 * p.los
        );
    }
    for w in report.workers.iter().filter(|w| w.flagged) {
        println!("worker {} of run {}: results inconsistent with the others (p = {:.2e})", w.worker, w.run, w.p_value);
    }
    for f in files {
        println!("wrote {}", f.display());
    }
    Ok(())
}
