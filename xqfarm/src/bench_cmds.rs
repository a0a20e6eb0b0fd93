//! `xqfarm bench rpc` and `xqfarm bench worker`: the farm's own speed figures.
//! - rpc: lease + submit round trips per second that one embedded coordinator (SQLite, or
//!   PostgreSQL with `--db postgres://...`) sustains with many simulated workers on loopback,
//!   each submitting legal 120-ply games that the coordinator's referee replays; and the
//!   referee's own cost per game;
//! - worker: games per minute per core at a node limit, and the share of the worker's
//!   CPU spent outside engine search (the arbiter, sampling, bookkeeping).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use coordinator::{LeaseTerms, referee};
use engine::Position;
use engine::eval::Params;
use proto::domain::{
    Adjudication, BatchResult, GameReport, LeaseGrant, LeaseReply, LeaseRequest, OpeningSuiteSpec, PairReport,
    PairTask, RunKind, RunSpec, SubmitRequest, TimeControl, VariantId, VariantKind, VariantSpec, WorkerInfo,
};
use web::embedded::Embedded;
use worker::game::GameSettings;
use worker::matchrun::{SideStats, Timed};
use worker::player::{InProcess, RandomMover};

use crate::remote;

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Lease + submit RPCs per second with simulated workers on loopback.
    Rpc(RpcArgs),
    /// Games per minute per core and the worker's time outside search.
    Worker(WorkerBenchArgs),
    /// The web API's latency with a large run, and the cost of many open event streams.
    Web(crate::bench_web::WebBenchArgs),
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

pub async fn run(cmd: BenchCommand) -> Result<()> {
    match cmd {
        BenchCommand::Rpc(a) => rpc(a).await,
        BenchCommand::Worker(a) => tokio::task::spawn_blocking(move || worker_bench(a)).await?,
        BenchCommand::Web(a) => crate::bench_web::web(a).await,
    }
}

async fn rpc(a: RpcArgs) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let token = "bench";
    let emb = match &a.db {
        Some(db) => {
            let storage = coordinator::storage::open(db).context("opening the coordinator's database (--db)")?;
            Embedded::start_on(storage, &dir.path().join("data"), token).await?
        }
        None => Embedded::start(&dir.path().join("bench.db"), &dir.path().join("data"), token).await?,
    };
    let client = remote::connect(&emb.url, token, None).await?;
    let toml = Params::default().to_toml();
    let mut ids = Vec::new();
    for name in ["a", "b"] {
        let spec = VariantSpec { name: name.into(), kind: VariantKind::Params { toml: toml.clone() } };
        ids.push(client.add_variant(spec).await?.id);
    }
    let suite = client.add_openings(OpeningSuiteSpec { name: "s".into(), openings: vec!["startpos".into()] }).await?;
    let spec = RunSpec {
        name: "rpc-bench".into(),
        kind: RunKind::Games { pairs: 100_000_000 },
        variants: ids.clone(),
        tc: spec_tc(),
        openings: suite.id,
        adjudication: Adjudication::default(),
        bench_signature: None,
        sample_every: 0,
    };
    client.create_run(spec).await?;

    let payload = Arc::new(legal_pair(spec_tc(), &engine::Position::startpos()));
    let plies = payload[0].moves.len();
    let rpcs = Arc::new(AtomicU64::new(0));
    let pairs_done = Arc::new(AtomicU64::new(0));
    let stop_at = Instant::now() + Duration::from_secs(a.seconds);
    let mut tasks = Vec::new();
    let (first_lease_tx, first_lease_rx) = tokio::sync::oneshot::channel::<proto::domain::Lease>();
    let first_lease_tx = Arc::new(std::sync::Mutex::new(Some(first_lease_tx)));
    for i in 0..a.workers {
        let (url, rpcs, pairs_done) = (emb.url.clone(), Arc::clone(&rpcs), Arc::clone(&pairs_done));
        let (payload, first_lease_tx) = (Arc::clone(&payload), Arc::clone(&first_lease_tx));
        tasks.push(tokio::spawn(async move {
            let c = remote::connect(&url, token, None).await?;
            let worker = c.register(&sim_worker(i)).await?;
            while Instant::now() < stop_at {
                let req = LeaseRequest { worker, free_slots: 1, held: Vec::new(), finished: Vec::new() };
                let LeaseReply { grant, .. } = c.lease(req).await?;
                rpcs.fetch_add(1, Ordering::Relaxed);
                let LeaseGrant::Lease(lease) = grant else {
                    continue;
                };
                if let Some(tx) = first_lease_tx.lock().ok().and_then(|mut t| t.take()) {
                    let _ = tx.send(lease.clone());
                }
                let pairs: Vec<PairReport> = lease.tasks.iter().map(|t| pair_for(&payload, t)).collect();
                let n = pairs.len() as u64;
                let batch = BatchResult { lease: lease.id, seq: 1, pairs, is_final: true };
                c.submit(SubmitRequest { worker, batch }).await?;
                rpcs.fetch_add(1, Ordering::Relaxed);
                pairs_done.fetch_add(n, Ordering::Relaxed);
            }
            anyhow::Ok(())
        }));
    }
    let started = Instant::now();
    for t in tasks {
        t.await.context("simulated worker")??;
    }
    let secs = started.elapsed().as_secs_f64();
    let n = rpcs.load(Ordering::Relaxed);
    let pairs = pairs_done.load(Ordering::Relaxed);
    let games_per_s = 2.0 * pairs as f64 / secs;
    println!(
        "{} simulated workers, {secs:.1} s, legal {plies}-ply games, referee on: {n} lease+submit RPCs = {:.0} RPCs/s, \
         {pairs} pairs recorded = {games_per_s:.0} games/s",
        a.workers,
        n as f64 / secs,
    );
    emb.stop().await;

    // The referee alone, on one thread, over the same payload and terms.
    let lease = first_lease_rx.await.context("no lease was granted during the bench")?;
    let terms = LeaseTerms::from(&lease);
    let batch: Vec<PairReport> = lease.tasks.iter().map(|t| pair_for(&payload, t)).collect();
    let rounds = 2_000usize.div_ceil(batch.len());
    let timed = Instant::now();
    for _ in 0..rounds {
        referee::check_batch(&terms, &batch, None).context("the bench's own games must pass the referee")?;
    }
    let per_game = timed.elapsed().as_secs_f64() / (rounds * batch.len() * 2) as f64;
    // Off: the same wall time per game, less the referee's share of it.
    let games_off = 1.0 / (1.0 / games_per_s - per_game).max(f64::MIN_POSITIVE);
    println!(
        "referee alone: {:.1} us per {plies}-ply game ({:.0} games/s on one core); without it the same payload \
         would run at about {games_off:.0} games/s: the referee costs {:.1}% of throughput (goal: at most 20%)",
        per_game * 1e6,
        1.0 / per_game,
        100.0 * (1.0 - games_per_s / games_off),
    );
    Ok(())
}

/// A simulated worker's description.
pub(crate) fn sim_worker(i: usize) -> WorkerInfo {
    WorkerInfo {
        name: format!("sim{i}"),
        host: "bench".into(),
        cores: 1,
        engine_version: "bench".into(),
        bench_signature: 0,
        worker_key: String::new(),
        rules_version: engine::RULES_VERSION,
        engines: Vec::new(),
        bench_nps: 0,
    }
}

/// The bench run's time control: long enough that the scheduler leases one pair per free
/// slot, as a real farm's workers see it, so every RPC carries one pair.
pub(crate) fn spec_tc() -> TimeControl {
    TimeControl::Clock { base_ms: 60_000, inc_ms: 600 }
}

/// One pair really played from `start` by random quiet movers (120 plies to the move limit
/// from the start position), as the worker reports it; players named later by `pair_for`.
pub(crate) fn legal_pair(tc: TimeControl, start: &Position) -> [GameReport; 2] {
    let settings = GameSettings::new(tc);
    let play = |seed: u64| {
        let mut red = RandomMover::new("red", seed).with_score(Some(150));
        let mut black = RandomMover::new("black", seed + 1).with_score(Some(150));
        let record = worker::game::play_game([&mut red, &mut black], start, &settings);
        worker::runner::to_report(&record, &VariantId::default(), &VariantId::default(), 0)
    };
    [play(1), play(3)]
}

/// The payload's games as the report of `task`'s pair.
pub(crate) fn pair_for(payload: &[GameReport; 2], task: &PairTask) -> PairReport {
    let [x, y] = &task.variants;
    let game = |g: &GameReport, red: &VariantId, black: &VariantId| GameReport {
        red: red.clone(),
        black: black.clone(),
        ..g.clone()
    };
    PairReport { pair_index: task.pair_index, games: [game(&payload[0], x, y), game(&payload[1], y, x)] }
}

fn worker_bench(a: WorkerBenchArgs) -> Result<()> {
    let openings = crate::args::load_openings(None)?;
    let busy = Arc::new(SideStats::default());
    let settings = worker::game::GameSettings::new(TimeControl::Nodes(a.nodes));
    let started = Instant::now();
    let results = worker::matchrun::run_pairs(
        a.pairs,
        &openings,
        &settings,
        a.threads,
        || {
            let t = |n: &str, p: Params| Timed::new(InProcess::new(n, p), &busy);
            (t("a", Params::default()), t("b", Params::default()))
        },
        |_| {},
    );
    // What a worker does besides searching: convert every game to its report with
    // sampled positions (static eval + quiescence every 8 plies).
    let mut reports = 0;
    for pair in &results {
        for g in &pair.games {
            let _ = worker::runner::to_report(g, &"a".into(), &"b".into(), 8);
            reports += 1;
        }
    }
    let wall = started.elapsed().as_secs_f64();
    let thread_time = wall * a.threads as f64;
    let search = busy.busy().as_secs_f64();
    let games = 2 * results.len();
    println!(
        "{games} games at nodes={} on {} thread(s) in {wall:.1} s: {:.1} games/min/core",
        a.nodes,
        a.threads,
        games as f64 / (wall / 60.0) / a.threads as f64
    );
    println!(
        "time in engine search {search:.2} s of {thread_time:.2} s thread time: {:.2}% outside search (arbiter, game loop, {reports} reports with sampling)",
        100.0 * (1.0 - search / thread_time)
    );
    Ok(())
}
