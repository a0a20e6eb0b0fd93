//! `xqfarm import pgn`: game archives into a data directory, as an imported run
//! (`farmdata::import_pgn` does the work; this parses arguments and prints), and
//! `xqfarm import bench`: its games per second in each notation.

use std::path::PathBuf;

use anyhow::{Context, Result, ensure};
use clap::{Args, Subcommand};
use engine::notation::Notation;
use farmdata::{ImportOptions, bench_import, import_pgn, pgn_files};

#[derive(Subcommand, Debug)]
pub enum ImportCommand {
    /// PGN archives (WXF, Chinese or ICCS; files of many games, or directories of `*.pgn`) as a
    /// new imported run: `tune`, `book build` and `report` read it; a file imported before is
    /// left out.
    Pgn(PgnArgs),
    /// Games per second of the import, over generated archives in WXF, Chinese and ICCS.
    Bench(BenchArgs),
}

#[derive(Args, Debug)]
pub struct PgnArgs {
    /// PGN files, or directories whose `*.pgn` files are read.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The data directory (`--data` of `serve`, `tune`, `book build`, `report`).
    #[arg(long)]
    data: PathBuf,
    /// The imported run's name (default: the first file's name).
    #[arg(long)]
    name: Option<String>,
    /// Skipped games listed one a line (all of them; the summary names the first 20 otherwise).
    #[arg(long)]
    list_skipped: bool,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Games per notation.
    #[arg(long, default_value_t = 100_000)]
    games: usize,
    /// Seed of the random playouts.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where the archives and data directories go (a temporary directory when absent).
    #[arg(long)]
    dir: Option<PathBuf>,
}

pub fn run(cmd: &ImportCommand) -> Result<()> {
    match cmd {
        ImportCommand::Pgn(args) => pgn(args),
        ImportCommand::Bench(args) => bench(args),
    }
}

fn pgn(args: &PgnArgs) -> Result<()> {
    let files = pgn_files(&args.files).context("listing the PGN files")?;
    ensure!(!files.is_empty(), "no PGN file in {:?}", args.files);
    let created_unix_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    let options = ImportOptions { name: args.name.clone(), created_unix_ms };
    let summary =
        import_pgn(&args.data, &files, &options).with_context(|| format!("importing into {}", args.data.display()))?;
    for f in &summary.files {
        match f.already_in {
            Some(run) => println!("{}: already imported (run {run}), left out", f.file),
            None => println!("{}: {} games imported, {} skipped", f.file, f.games, f.skipped),
        }
    }
    match summary.run {
        Some(run) => println!(
            "run {run} `{}`: {} games, {} positions; {} without a result, {} played on past the rules' end",
            summary.name, summary.games, summary.positions, summary.unknown_results, summary.past_rules_end
        ),
        None => println!("nothing new imported"),
    }
    if !summary.skipped.is_empty() {
        let reasons: Vec<String> =
            summary.skipped_by_reason().iter().map(|(reason, n)| format!("{n} {reason}")).collect();
        println!("{} games skipped: {}", summary.skipped.len(), reasons.join(", "));
        let shown = if args.list_skipped { summary.skipped.len() } else { 20 };
        for s in summary.skipped.iter().take(shown) {
            println!("  {s}");
        }
        if summary.skipped.len() > shown {
            println!("  ... and {} more (--list-skipped lists them all)", summary.skipped.len() - shown);
        }
    }
    Ok(())
}

fn bench(args: &BenchArgs) -> Result<()> {
    ensure!(args.games > 0, "--games 0 measures nothing");
    let temp;
    let dir = match &args.dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            dir.clone()
        }
        None => {
            temp = tempfile::tempdir().context("a temporary directory")?;
            temp.path().to_path_buf()
        }
    };
    println!("{:<8} {:>8} {:>10} {:>11} {:>9} {:>10}", "notation", "games", "mean plies", "MB", "seconds", "games/s");
    for notation in [Notation::Wxf, Notation::Chinese, Notation::Iccs] {
        let s = bench_import(&dir, args.games, args.seed, notation).with_context(|| format!("{notation}"))?;
        println!(
            "{:<8} {:>8} {:>10.1} {:>11.1} {:>9.2} {:>10.0}",
            notation.name(),
            s.games,
            s.plies as f64 / s.games as f64,
            s.bytes as f64 / 1e6,
            s.seconds,
            s.games_per_second()
        );
    }
    Ok(())
}
