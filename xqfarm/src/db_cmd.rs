//! `xqfarm db`: maintenance of a coordinator's database, offline or beside a running
//! coordinator (each subcommand says which).

use std::path::Path;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use coordinator::storage::prune::{self, PrunedRun};
use coordinator::storage::sqlite::maintenance;
use proto::domain::RunId;

#[derive(Subcommand, Debug)]
pub enum DbCommand {
    /// Delete the sampled positions of games already exported to Parquet (they stay there, and
    /// the game viewer reads them from there), then shrink a SQLite file (VACUUM). Pruning is
    /// safe while a coordinator runs; the VACUUM needs it stopped (see --no-vacuum).
    PrunePositions(PruneArgs),
}

#[derive(Args, Debug)]
pub struct PruneArgs {
    /// The coordinator's database, as `serve --db` takes it: a SQLite file or a PostgreSQL URL
    /// (or XQFARM_DB, which keeps the password out of the process list).
    #[arg(long, env = "XQFARM_DB", hide_env_values = true)]
    db: String,
    /// Prune this run only (repeat for several); every run when absent.
    #[arg(long = "run", value_name = "ID")]
    runs: Vec<RunId>,
    /// Leave a SQLite file's size as it is: the freed pages hold the rows recorded next, so
    /// the file stops growing until they are used up. For pruning beside a running
    /// coordinator, which the VACUUM refuses to disturb.
    #[arg(long)]
    no_vacuum: bool,
}

pub fn run(cmd: &DbCommand) -> Result<()> {
    match cmd {
        DbCommand::PrunePositions(args) => prune_positions(args),
    }
}

fn prune_positions(args: &PruneArgs) -> Result<()> {
    let shown = coordinator::storage::describe(&args.db);
    let sqlite = (!coordinator::storage::postgres::is_postgres_url(&args.db)).then(|| Path::new(&args.db));
    if let Some(path) = sqlite
        && !path.is_file()
    {
        bail!("{}: no such database file (--db)", path.display());
    }
    let before = sqlite.map(maintenance::file_bytes).transpose()?;
    {
        let storage = coordinator::storage::open(&args.db).with_context(|| format!("opening the database {shown}"))?;
        let runs = if args.runs.is_empty() {
            storage.list_runs()?.into_iter().map(|r| r.id).collect()
        } else {
            args.runs.clone()
        };
        for run in runs {
            let pruned = prune::prune_exported_positions(storage.as_ref(), run)
                .with_context(|| format!("pruning the positions of run {run}"))?;
            println!("{}", describe_run(&pruned));
        }
    }
    let (Some(path), Some(before)) = (sqlite, before) else {
        println!(
            "{shown}: PostgreSQL reuses the deleted rows' space once (auto)vacuum has run; \
             `VACUUM FULL positions` gives it back to the file system"
        );
        return Ok(());
    };
    if args.no_vacuum {
        println!("{}: {} bytes (not vacuumed: freed pages hold the next rows)", path.display(), before);
        return Ok(());
    }
    maintenance::vacuum(path).context(
        "the positions were pruned, but the file was not shrunk (pass --no-vacuum to prune beside a running \
         coordinator)",
    )?;
    let after = maintenance::file_bytes(path)?;
    println!("{}: {before} bytes before, {after} bytes after VACUUM", path.display());
    Ok(())
}

fn describe_run(pruned: &PrunedRun) -> String {
    match pruned.exported_up_to {
        0 => format!("run {}: {} positions pruned (no game exported yet)", pruned.run, pruned.positions),
        mark => format!("run {}: {} positions pruned (games up to {mark} exported)", pruned.run, pruned.positions),
    }
}
