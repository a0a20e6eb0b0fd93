//! `xqfarm bench rpc`: lease + submit round trips per second that one embedded coordinator
//! (SQLite, or PostgreSQL) sustains with many simulated workers on loopback, each submitting
//! legal 120-ply games that the coordinator's referee replays; and the referee's own cost per
//! game, alone on one thread over the same payload and terms.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use coordinator::{LeaseTerms, Storage, referee};
use proto::domain::{PairReport, RunKind};
use worker::loadgen::{SimTally, bench_tc, lease_and_submit_until, legal_pair, pair_for, sim_worker};

use super::{TOKEN, connect, create_run, joined};
use crate::embedded::Embedded;
use crate::{Error, Result};

/// Games the referee alone replays (rounded up to whole batches).
const REFEREE_GAMES: usize = 2_000;

/// What [`rpc`] runs.
#[derive(Clone, Debug)]
pub struct RpcSettings {
    /// Simulated workers.
    pub workers: usize,
    /// How long they lease and submit.
    pub duration: Duration,
}

/// The RPC bench's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcFigures {
    pub workers: usize,
    /// Wall seconds the simulated workers ran.
    pub secs: f64,
    /// Plies of each submitted game.
    pub plies: usize,
    /// Lease and submit RPCs answered.
    pub rpcs: u64,
    /// Pairs recorded.
    pub pairs: u64,
    /// The referee's seconds per game, alone on one thread.
    pub referee_s_per_game: f64,
}

impl RpcFigures {
    pub fn rpcs_per_s(&self) -> f64 {
        self.rpcs as f64 / self.secs
    }

    /// Games recorded a second, referee on.
    pub fn games_per_s(&self) -> f64 {
        2.0 * self.pairs as f64 / self.secs
    }

    /// Games a second the same payload would record without the referee: the same wall time
    /// per game, less the referee's share of it.
    pub fn games_per_s_without_referee(&self) -> f64 {
        1.0 / (1.0 / self.games_per_s() - self.referee_s_per_game).max(f64::MIN_POSITIVE)
    }

    /// Percent of the throughput the referee costs (goal: at most 20).
    pub fn referee_cost_pct(&self) -> f64 {
        100.0 * (1.0 - self.games_per_s() / self.games_per_s_without_referee())
    }
}

/// Serves a farm over `storage` (data files in `data`), creates a games run, and lets
/// `settings.workers` simulated workers lease and submit for `settings.duration`; then stops
/// the farm and times the referee alone on the first lease's terms.
pub async fn rpc(storage: Arc<dyn Storage>, data: &Path, settings: &RpcSettings) -> Result<RpcFigures> {
    let emb = Embedded::start_on(storage, data, TOKEN).await?;
    let client = connect(&emb.url).await?;
    create_run(&client, "rpc-bench", RunKind::Games { pairs: 100_000_000 }).await?;

    let payload = Arc::new(legal_pair(bench_tc(), &engine::Position::startpos()));
    let plies = payload[0].moves.len();
    let stop_at = Instant::now() + settings.duration;
    let mut tasks = Vec::new();
    for i in 0..settings.workers {
        let (url, payload) = (emb.url.clone(), Arc::clone(&payload));
        tasks.push(tokio::spawn(async move {
            let c = connect(&url).await?;
            let worker = c.register(&sim_worker(i)).await?;
            Ok(lease_and_submit_until(&c, worker, &payload, stop_at).await?)
        }));
    }
    let started = Instant::now();
    let mut total = SimTally::default();
    for t in tasks {
        let tally = joined("simulated worker", t.await)?;
        total.rpcs += tally.rpcs;
        total.pairs += tally.pairs;
        total.first_lease = total.first_lease.or(tally.first_lease);
    }
    let secs = started.elapsed().as_secs_f64();
    emb.stop().await;

    // The referee alone, on one thread, over the same payload and terms.
    let lease = total.first_lease.ok_or_else(|| Error::Bench("no lease was granted during the bench".into()))?;
    let terms = LeaseTerms::from(&lease);
    let batch: Vec<PairReport> = lease.tasks.iter().map(|t| pair_for(&payload, t)).collect();
    if batch.is_empty() {
        return Err(Error::Bench(format!("lease {} has no pairs", lease.id)));
    }
    let rounds = REFEREE_GAMES.div_ceil(batch.len());
    let timed = Instant::now();
    for _ in 0..rounds {
        referee::check_batch(&terms, &batch, None)
            .map_err(|e| Error::Bench(format!("the bench's own games must pass the referee: {e}")))?;
    }
    let referee_s_per_game = timed.elapsed().as_secs_f64() / (rounds * batch.len() * 2) as f64;
    Ok(RpcFigures { workers: settings.workers, secs, plies, rpcs: total.rpcs, pairs: total.pairs, referee_s_per_game })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_referee_share_follows_from_the_wall_time_per_game() {
        // 100 games/s with the referee (10 ms a game), of which 2 ms the referee: 125 games/s
        // without it, the referee costing 20%.
        let f = RpcFigures { workers: 4, secs: 10.0, plies: 120, rpcs: 1000, pairs: 500, referee_s_per_game: 0.002 };
        assert_eq!(f.rpcs_per_s(), 100.0);
        assert_eq!(f.games_per_s(), 100.0);
        assert!((f.games_per_s_without_referee() - 125.0).abs() < 1e-9);
        assert!((f.referee_cost_pct() - 20.0).abs() < 1e-9);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn simulated_workers_lease_submit_and_pass_the_referee() {
        let dir = tempfile::tempdir().unwrap();
        let storage = Arc::new(coordinator::SqliteStorage::open(dir.path().join("farm.db")).unwrap());
        let settings = RpcSettings { workers: 2, duration: Duration::from_millis(1500) };
        let f = rpc(storage, &dir.path().join("data"), &settings).await.unwrap();
        assert_eq!((f.workers, f.plies), (2, 120));
        assert!(f.pairs > 0 && f.rpcs >= 2 * f.pairs, "{f:?}");
        assert!(f.referee_s_per_game > 0.0);
    }
}
