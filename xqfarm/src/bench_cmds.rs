//! `xqfarm bench rpc`, `xqfarm bench worker` and `xqfarm bench web`: the farm's own speed
//! figures, measured by `web::bench` (rpc, web) and `worker::speed` (worker); printed here.
//! - rpc: lease + submit round trips per second that one embedded coordinator (SQLite, or
//!   PostgreSQL with `--db postgres://...`) sustains with many simulated workers on loopback,
//!   each submitting legal 120-ply games that the coordinator's referee replays; and the
//!   referee's own cost per game;
//! - worker: games per minute per core at a node limit, and the share of the worker's
//!   CPU spent outside engine search (the arbiter, sampling, bookkeeping);
//! - web: the Run page's API latency with a large run, and the CPU cost of many open event
//!   streams.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use coordinator::Storage;
use web::bench::api::ApiSettings;
use web::bench::rpc::RpcSettings;
use worker::speed::SpeedSettings;

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Lease + submit RPCs per second with simulated workers on loopback.
    Rpc(RpcArgs),
    /// Games per minute per core and the worker's time outside search.
    Worker(WorkerBenchArgs),
    /// The web API's latency with a large run, and the cost of many open event streams.
    Web(WebBenchArgs),
}

#[derive(Args, Debug)]
pub struct RpcArgs {
    /// Simulated workers.
    #[arg(long, default_value_t = 64)]
    workers: usize,
    /// Seconds to measure.
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// The coordinator's store: a PostgreSQL URL (`postgres://USER:PASSWORD@HOST:PORT/DB`, an
    /// empty database) or a SQLite file; a fresh SQLite file in a temporary directory if absent.
    #[arg(long, env = "XQFARM_DB", hide_env_values = true)]
    db: Option<String>,
}

#[derive(Args, Debug)]
pub struct WorkerBenchArgs {
    /// Nodes per move.
    #[arg(long, default_value_t = 5000)]
    nodes: u64,
    /// Game pairs to play.
    #[arg(long, default_value_t = 20)]
    pairs: usize,
    /// Threads (games at once).
    #[arg(long, default_value_t = 1)]
    threads: usize,
}

#[derive(Args, Debug)]
pub struct WebBenchArgs {
    /// Games in the run whose page is timed.
    #[arg(long, default_value_t = 100_000)]
    games: u64,
    /// Event streams held open.
    #[arg(long, default_value_t = 200)]
    streams: usize,
    /// Games per second recorded while the streams are open.
    #[arg(long, default_value_t = 20)]
    rate: u64,
    /// Seconds of each CPU measurement (without, then with the streams).
    #[arg(long, default_value_t = 10)]
    seconds: u64,
}

pub async fn run(cmd: BenchCommand) -> Result<()> {
    match cmd {
        BenchCommand::Rpc(a) => rpc(a).await,
        BenchCommand::Worker(a) => tokio::task::spawn_blocking(move || worker_bench(a)).await?,
        BenchCommand::Web(a) => web(a).await,
    }
}

/// A fresh SQLite store in `dir`.
fn fresh_sqlite(dir: &Path) -> Result<Arc<dyn Storage>> {
    let db = dir.join("bench.db");
    let storage =
        coordinator::SqliteStorage::open(&db).with_context(|| format!("opening the database {}", db.display()))?;
    Ok(Arc::new(storage))
}

async fn rpc(a: RpcArgs) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let storage = match &a.db {
        Some(db) => coordinator::storage::open(db).context("opening the coordinator's database (--db)")?,
        None => fresh_sqlite(dir.path())?,
    };
    let settings = RpcSettings { workers: a.workers, duration: Duration::from_secs(a.seconds) };
    let f = web::bench::rpc::rpc(storage, &dir.path().join("data"), &settings).await?;
    let (plies, secs) = (f.plies, f.secs);
    println!(
        "{} simulated workers, {secs:.1} s, legal {plies}-ply games, referee on: {} lease+submit RPCs = {:.0} RPCs/s, \
         {} pairs recorded = {:.0} games/s",
        f.workers,
        f.rpcs,
        f.rpcs_per_s(),
        f.pairs,
        f.games_per_s(),
    );
    println!(
        "referee alone: {:.1} us per {plies}-ply game ({:.0} games/s on one core); without it the same payload \
         would run at about {:.0} games/s: the referee costs {:.1}% of throughput (goal: at most 20%)",
        f.referee_s_per_game * 1e6,
        1.0 / f.referee_s_per_game,
        f.games_per_s_without_referee(),
        f.referee_cost_pct(),
    );
    Ok(())
}

fn worker_bench(a: WorkerBenchArgs) -> Result<()> {
    let openings = crate::args::load_openings(None)?;
    let s = worker::speed::measure(&openings, &SpeedSettings { nodes: a.nodes, pairs: a.pairs, threads: a.threads });
    println!(
        "{} games at nodes={} on {} thread(s) in {:.1} s: {:.1} games/min/core",
        s.games,
        a.nodes,
        a.threads,
        s.wall_s,
        s.games_per_min_per_core(a.threads)
    );
    println!(
        "time in engine search {:.2} s of {:.2} s thread time: {:.2}% outside search (arbiter, game loop, {} reports with sampling)",
        s.search_s,
        s.thread_s,
        s.outside_search_pct(),
        s.reports
    );
    Ok(())
}

async fn web(a: WebBenchArgs) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let settings =
        ApiSettings { games: a.games, streams: a.streams, rate: a.rate, measure: Duration::from_secs(a.seconds) };
    let f = web::bench::api::web(fresh_sqlite(dir.path())?, &dir.path().join("data"), &settings).await?;
    eprintln!("filled the run with {} games in {:.0} s", f.games, f.fill_s);
    for (path, ms) in &f.latencies_ms {
        println!("GET {path}: {ms:.1} ms with {} games in the run (goal: under 100 ms)", f.games);
    }
    println!(
        "{} event streams, {:.1} games/s recorded: the process used {:.1}% of a core without them and {:.1}% with them \
         (the streams and their readers: {:.1}% of one core; goal under 5%); {}/{} streams received every one \
         of their {} updates",
        f.streams,
        f.games_per_s_while_measuring(),
        100.0 * f.cpu_without,
        100.0 * f.cpu_with,
        100.0 * (f.cpu_with - f.cpu_without),
        f.complete_streams,
        f.streams,
        f.updates,
    );
    Ok(())
}
