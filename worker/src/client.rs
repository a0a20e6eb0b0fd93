//! The worker against a coordinator. Three parts that never wait for one another:
//!
//! - the player (a thread per lease, [`crate::runner`]) writes every finished pair to the
//!   spool the moment it finishes, before any network call;
//! - the delivery task ([`crate::delivery`]) sends what the spool holds and deletes each file
//!   only once the coordinator acknowledged it;
//! - the lease loop here registers, asks for work and heartbeats the lease being played.
//!
//! Every call has a deadline ([`RPC_TIMEOUT`]), so a frozen or cut-off coordinator delays
//! delivery and new leases, never play. The worker keeps its identity across restarts: the key
//! in its spool registers as the same worker id, so results spooled before a `kill -9` still
//! belong to their leases.
//!
//! Sequence numbers: pair `i` of a lease's task list is submitted alone as seq `i`, the lease's
//! final batch (no pairs, `is_final`) as [`FINAL_SEQ`]. They depend on nothing but the lease,
//! so a resend after any crash carries the same (lease, seq) and is acknowledged as a
//! duplicate.
//!
//! Stopping (the `shutdown` future of [`run_worker_until`]: SIGTERM, SIGINT): no new game
//! starts, games in progress are abandoned at their next move, the lease's final batch sends
//! their pairs back to the pool, and the worker returns after delivering what it can within
//! [`ABANDON_WAIT`] + [`DRAIN_WAIT`]. What is not delivered by then stays in the spool for the
//! next start.

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use proto::client::{ClientConfig, FarmClient, RetryPolicy, retry};
use proto::domain::{BatchResult, Lease, LeaseGrant, LeaseId, LeaseRequest, SubmitRequest, WorkerId, WorkerInfo};
use proto::pb;
use tokio::sync::{Notify, oneshot, watch};

use crate::delivery::Delivery;
use crate::engines::EngineSet;
use crate::error::{Error, Result};
use crate::networks::NetworkCache;
use crate::runner::{StopFlag, play_lease_with};
use crate::spool::Spool;

/// Every call's deadline.
pub const RPC_TIMEOUT: Duration = Duration::from_secs(10);
/// Heartbeat a lease this often while it is played: well inside the coordinator's lease
/// timeout (30 s).
pub const HEARTBEAT_EVERY: Duration = Duration::from_secs(5);
/// The sequence number of a lease's final batch: above every pair's (a lease has at most a
/// few dozen pairs).
pub const FINAL_SEQ: u32 = u32::MAX;
/// After a stop: how long the games in progress get to notice it (they stop before their
/// next move).
pub const ABANDON_WAIT: Duration = Duration::from_secs(5);
/// After a stop: how long delivery goes on before the worker returns anyway.
pub const DRAIN_WAIT: Duration = Duration::from_secs(10);
/// How the worker waits between failed attempts: capped exponential backoff with jitter,
/// for as long as it takes (the lease loop and delivery use its delays in their own loops).
pub(crate) const BACKOFF: RetryPolicy = RetryPolicy::FOREVER;

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    /// `http://host:port`, or `https://host:port` with `ca_cert`.
    pub coordinator: String,
    /// The farm CA's certificate (PEM) that signed an `https://` coordinator's certificate.
    pub ca_cert: Option<PathBuf>,
    pub token: String,
    pub name: String,
    /// Games played at once.
    pub concurrency: usize,
    pub spool_dir: PathBuf,
    /// The engine build's bench signature (`engine::bench`); runs that pin another get no
    /// work to this worker.
    pub bench_signature: u64,
    /// Stop after this many leases (tests and local runs); `None` = forever.
    pub max_leases: Option<usize>,
    /// Return (after delivering everything) once there was no work for this long; `None` =
    /// wait for work forever.
    pub idle_exit: Option<Duration>,
    /// The external engines the worker may start (checked at start), advertised at Register.
    pub engines: EngineSet,
    /// Endgame tables its arbiter ends games with (`worker --tablebases`); the coordinator
    /// must have the same tables to accept such endings.
    pub tablebases: Option<Arc<engine::tablebase::Tablebases>>,
}

/// The worker's connection: the farm client, retrying only where the worker has no loop of
/// its own (connecting, registering); the lease loop and delivery send once per attempt.
#[derive(Clone, Debug)]
pub(crate) struct Connection {
    pub(crate) client: FarmClient,
}

impl Connection {
    async fn open(cfg: &WorkerConfig) -> Result<Connection> {
        let config = ClientConfig { rpc_timeout: RPC_TIMEOUT, retry: BACKOFF, ..ClientConfig::default() };
        let client = FarmClient::connect(&cfg.coordinator, cfg.ca_cert.as_deref(), &cfg.token, config)
            .await
            .map_err(|e| Error::Coordinator { url: cfg.coordinator.clone(), reason: without_url(&e) })?;
        Ok(Connection { client })
    }

    /// The client for one attempt per call.
    pub(crate) fn once(&self) -> FarmClient {
        self.client.with_retry(RetryPolicy::ONCE)
    }

    pub(crate) fn fatal(&self, error: &proto::Error) -> Error {
        Error::Coordinator { url: self.client.url().to_owned(), reason: without_url(error) }
    }
}

/// A farm error's text for [`Error::Coordinator`], which names the URL itself.
fn without_url(error: &proto::Error) -> String {
    match error {
        proto::Error::Rpc { code, message, .. } => format!("{code:?}: {message}"),
        other => other.to_string(),
    }
}

/// The wait before the `failures`th retry of a worker loop.
pub(crate) fn backoff(failures: u32) -> Duration {
    BACKOFF.backoff(failures.max(1), retry::jitter())
}

/// Resolves once the stop flag's watch says so.
async fn stopped(rx: &mut watch::Receiver<bool>) {
    if rx.wait_for(|s| *s).await.is_err() {
        // The sender is gone: nobody can ask for a stop any more.
        std::future::pending::<()>().await;
    }
}

/// Aborts a task when dropped.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Runs the worker until `max_leases` leases are done, or it was idle for `idle_exit` (or
/// forever).
pub async fn run_worker(cfg: WorkerConfig, info: WorkerInfo) -> Result<()> {
    run_worker_until(cfg, info, std::future::pending()).await
}

/// [`run_worker`] until `shutdown` resolves too; then it stops as the module docs say and
/// returns `Ok`.
pub async fn run_worker_until(
    mut cfg: WorkerConfig,
    mut info: WorkerInfo,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let spool = Arc::new(Spool::open(&cfg.spool_dir)?);
    // Networks that variants name are fetched once and kept beside the spool, by hash.
    if cfg.engines.networks().is_none() {
        let cache = NetworkCache::open(&cfg.spool_dir.join("networks"))?;
        cfg.engines = cfg.engines.clone().with_networks(Arc::new(cache));
    }
    info.worker_key = spool.worker_key()?;
    info.engines = cfg.engines.infos();
    // Leases a killed run of this worker was playing: their final batches send the pairs it
    // did not finish back to the pool now, rather than when the leases expire.
    for lease in spool.open_leases()? {
        spool.put(&final_batch(WorkerId::new(0), LeaseId::new(lease)))?;
        spool.close_lease(lease)?;
        tracing::info!(lease = %lease, "closing a lease the previous run left open");
    }

    let stop = StopFlag::new();
    let (stop_tx, mut stop_rx) = watch::channel(false);
    let _signal = AbortOnDrop(tokio::spawn({
        let stop = stop.clone();
        async move {
            shutdown.await;
            tracing::info!("stopping: no new games; finished results are delivered or stay in the spool");
            stop.stop();
            let _ = stop_tx.send(true);
        }
    }));

    let conn = tokio::select! {
        conn = Connection::open(&cfg) => conn?,
        () = stopped(&mut stop_rx) => return Ok(()),
    };
    let worker = tokio::select! {
        worker = register(&conn, &info) => worker?,
        () = stopped(&mut stop_rx) => return Ok(()),
    };
    tracing::info!(worker = %worker, name = %cfg.name, "registered");

    let wake = Arc::new(Notify::new());
    let (finish_tx, finish_rx) = watch::channel(false);
    let mut delivery = AbortOnDrop(tokio::spawn(
        Delivery { conn: conn.clone(), spool: Arc::clone(&spool), worker, wake: Arc::clone(&wake) }.run(finish_rx),
    ));

    let leases = LeaseLoop { cfg: &cfg, conn: &conn, spool: &spool, worker, wake: &wake, stop: &stop };
    let played = leases.run(&mut stop_rx).await;

    // Everything finished is spooled; deliver it (within DRAIN_WAIT once stopping, or when
    // the coordinator refused this worker: it may refuse the deliveries too).
    let _ = finish_tx.send(true);
    let delivered = if played.is_err() {
        tokio::time::timeout(DRAIN_WAIT, &mut delivery.0).await.ok()
    } else {
        tokio::select! {
            done = &mut delivery.0 => Some(done),
            () = stopped(&mut stop_rx) => tokio::time::timeout(DRAIN_WAIT, &mut delivery.0).await.ok(),
        }
    };
    match delivered {
        Some(Ok(result)) => result?,
        Some(Err(e)) => return Err(Error::Engine { engine: "delivery".into(), reason: e.to_string() }),
        None => {
            let left = spool.pending().map_or(0, |p| p.len());
            tracing::warn!(left, spool = %spool.dir().display(), "stopping with undelivered results; the next start sends them");
        }
    }
    played
}

async fn register(conn: &Connection, info: &WorkerInfo) -> Result<WorkerId> {
    // The client retries transient failures (the coordinator down or restarting) forever.
    conn.client.register(info).await.map_err(|e| conn.fatal(&e))
}

/// The final batch of a lease: no pairs, `is_final`; its unreported pairs go back to the pool.
fn final_batch(worker: WorkerId, lease: LeaseId) -> pb::SubmitRequest {
    pb::SubmitRequest::from(SubmitRequest {
        worker,
        batch: BatchResult { lease, seq: FINAL_SEQ, pairs: Vec::new(), is_final: true },
    })
}

/// The lease loop's view of the worker.
struct LeaseLoop<'a> {
    cfg: &'a WorkerConfig,
    conn: &'a Connection,
    spool: &'a Arc<Spool>,
    worker: WorkerId,
    wake: &'a Arc<Notify>,
    stop: &'a StopFlag,
}

impl LeaseLoop<'_> {
    /// Leases and plays until stopped, `max_leases` or `idle_exit`.
    async fn run(&self, stop_rx: &mut watch::Receiver<bool>) -> Result<()> {
        let mut leases_done = 0;
        let mut idle_since = Instant::now();
        let mut failures = 0;
        loop {
            if self.stop.is_stopped() || self.cfg.max_leases.is_some_and(|m| leases_done >= m) {
                return Ok(());
            }
            if let Some(idle) = self.cfg.idle_exit
                && idle_since.elapsed() >= idle
                && self.spool.is_empty()?
            {
                tracing::info!(idle = ?idle, "no work for the idle time: exiting");
                return Ok(());
            }
            let req = LeaseRequest {
                worker: self.worker,
                free_slots: self.cfg.concurrency as u32,
                held: Vec::new(),
                finished: Vec::new(),
            };
            let client = self.conn.once();
            let reply = tokio::select! {
                reply = client.lease(req) => reply,
                () = stopped(stop_rx) => continue,
            };
            let wait = match reply {
                Ok(reply) => {
                    failures = 0;
                    match reply.grant {
                        LeaseGrant::Lease(lease) => {
                            self.play(lease, stop_rx).await?;
                            leases_done += 1;
                            idle_since = Instant::now();
                            continue;
                        }
                        LeaseGrant::NoWork { retry_after_ms } => {
                            Duration::from_millis(retry_after_ms.clamp(50, 30_000))
                        }
                    }
                }
                Err(error) if error.is_transient() => {
                    failures += 1;
                    let wait = backoff(failures);
                    tracing::warn!(%error, retry_in = ?wait, "lease call failed; retrying");
                    wait
                }
                Err(error) => return Err(self.conn.fatal(&error)),
            };
            // Wake up in time for the idle exit.
            let wait = match self.cfg.idle_exit {
                Some(idle) => wait.min(idle.saturating_sub(idle_since.elapsed()).max(Duration::from_millis(50))),
                None => wait,
            };
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = stopped(stop_rx) => {}
            }
        }
    }

    /// Fetches the networks the lease's variants name that the worker's cache lacks.
    async fn fetch_networks(&self, lease: &Lease) -> Result<()> {
        let Some(cache) = self.cfg.engines.networks() else {
            return Ok(());
        };
        for id in crate::networks::named_by(&lease.variants) {
            if cache.get(id)?.is_some() {
                continue;
            }
            let bytes = self.conn.client.fetch_network(id).await.map_err(|e| self.conn.fatal(&e))?;
            cache.insert(id, &bytes)?;
            tracing::info!(network = %id, bytes = bytes.len(), "network fetched");
        }
        Ok(())
    }

    /// Plays one lease on a thread of its own, spooling each pair as it finishes, heartbeating
    /// meanwhile; then spools the final batch.
    async fn play(&self, lease: Lease, stop_rx: &mut watch::Receiver<bool>) -> Result<()> {
        let lease_id = lease.id;
        if lease.tasks.len() >= FINAL_SEQ as usize {
            return Err(Error::Coordinator {
                url: self.conn.client.url().to_owned(),
                reason: format!("lease {lease_id} has {} pairs; sequence numbers run out", lease.tasks.len()),
            });
        }
        // Defence in depth: the coordinator leases a run only to workers that advertised its
        // engines, but a lease naming another one is refused whole and nothing is started; its
        // final batch sends the pairs back to the pool.
        if let Some(refusal) = self.cfg.engines.refusal(&lease) {
            tracing::error!(lease = %lease_id, run = %lease.run, error = %refusal, "lease refused; its pairs go back to the pool");
            self.spool.put(&final_batch(self.worker, lease_id))?;
            self.wake.notify_one();
            return Ok(());
        }
        // The networks its variants name, fetched once (a lease that cannot have them is
        // refused whole, its pairs back to the pool).
        if let Err(refusal) = self.fetch_networks(&lease).await {
            tracing::error!(lease = %lease_id, run = %lease.run, error = %refusal, "lease refused; its pairs go back to the pool");
            self.spool.put(&final_batch(self.worker, lease_id))?;
            self.wake.notify_one();
            return Ok(());
        }
        // An SPSA lease plays the two sides its batch describes.
        let seed =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
        let (lease, realized) = match crate::spsa::realize(&lease, seed) {
            Ok(Some(r)) => (r.lease.clone(), Some(r)),
            Ok(None) => (lease, None),
            Err(refusal) => {
                tracing::error!(lease = %lease_id, run = %lease.run, error = %refusal, "SPSA lease refused; its pairs go back to the pool");
                self.spool.put(&final_batch(self.worker, lease_id))?;
                self.wake.notify_one();
                return Ok(());
            }
        };
        // An external engine must take every tuned value as a spin option (a handshake of its
        // own); otherwise each game would be an engine error, so the lease is refused whole.
        if let (Some(r), Some(batch)) = (&realized, &lease.spsa)
            && let Some(base) = r.base(&lease)
        {
            let (engines, base, ranges) =
                (self.cfg.engines.clone(), base.clone(), crate::spsa::Realized::side_ranges(batch));
            let checked = tokio::task::spawn_blocking(move || engines.check_spin_ranges(&base, &ranges)).await;
            let refusal = match checked {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(e.to_string()),
                Err(e) => Some(format!("the option check failed: {e}")),
            };
            if let Some(refusal) = refusal {
                tracing::error!(lease = %lease_id, run = %lease.run, error = %refusal, "SPSA lease refused; its pairs go back to the pool");
                self.spool.put(&final_batch(self.worker, lease_id))?;
                self.wake.notify_one();
                return Ok(());
            }
        }
        tracing::info!(lease = %lease_id, run = %lease.run, pairs = lease.tasks.len(), "playing");
        self.spool.open_lease(lease_id.get())?;
        let _heartbeat = AbortOnDrop(tokio::spawn(heartbeat(self.conn.clone(), self.worker, lease_id)));

        let (done_tx, mut done_rx) = oneshot::channel::<(Result<()>, Option<Error>)>();
        let threads = self.cfg.concurrency.min(lease.tasks.len()).max(1);
        let seq_of: HashMap<u64, u32> = lease.tasks.iter().enumerate().map(|(i, t)| (t.pair_index, i as u32)).collect();
        let (spool, wake, stop, worker, name) =
            (Arc::clone(self.spool), Arc::clone(self.wake), self.stop.clone(), self.worker, self.cfg.name.clone());
        let engines = self.cfg.engines.clone();
        let tables = self.cfg.tablebases.clone();
        std::thread::Builder::new()
            .name(format!("lease-{lease_id}"))
            .spawn(move || {
                let mut spool_error = None;
                let player = |v: &proto::domain::Variant| engines.player(v);
                let played = play_lease_with(&lease, threads, &player, &name, &stop, tables, |mut pair| {
                    if let Some(r) = &realized {
                        r.restore(&mut pair);
                    }
                    let Some(&seq) = seq_of.get(&pair.pair_index) else {
                        tracing::error!(lease = %lease_id, pair = pair.pair_index, "a pair the lease does not hold");
                        return;
                    };
                    let req = pb::SubmitRequest::from(SubmitRequest {
                        worker,
                        batch: BatchResult { lease: lease_id, seq, pairs: vec![pair], is_final: false },
                    });
                    match spool.put(&req) {
                        Ok(()) => wake.notify_one(),
                        Err(e) => {
                            // Nowhere to keep results: play no more.
                            tracing::error!(lease = %lease_id, seq, error = %e, "cannot spool a finished pair; stopping");
                            stop.stop();
                            spool_error.get_or_insert(e);
                        }
                    }
                });
                let _ = done_tx.send((played, spool_error));
            })
            .map_err(|e| Error::Engine { engine: "runner".into(), reason: format!("starting a thread: {e}") })?;

        let outcome = tokio::select! {
            done = &mut done_rx => done.ok(),
            () = stopped(stop_rx) => tokio::time::timeout(ABANDON_WAIT, &mut done_rx).await.ok().and_then(Result::ok),
        };
        let spool_error = match outcome {
            Some((played, spool_error)) => {
                if let Err(e) = played {
                    tracing::warn!(lease = %lease_id, error = %e, "some pairs were not played; they go back to the pool");
                }
                spool_error
            }
            None => {
                // A game that does not notice the stop (an external engine deep in a search):
                // leave it; a pair it still finishes is spooled and sent by the next start.
                tracing::warn!(lease = %lease_id, "games still running after the stop; leaving them");
                None
            }
        };
        self.spool.put(&final_batch(self.worker, lease_id))?;
        self.spool.close_lease(lease_id.get())?;
        self.wake.notify_one();
        spool_error.map_or(Ok(()), Err)
    }
}

/// Keeps a lease alive while it is played (a Lease call that holds it and asks for no work).
/// Failures are logged and otherwise ignored: play goes on.
async fn heartbeat(conn: Connection, worker: WorkerId, lease: LeaseId) {
    let mut tick = tokio::time::interval(HEARTBEAT_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    let client = conn.once();
    loop {
        tick.tick().await;
        match client.heartbeat(worker, lease).await {
            Ok(true) => tracing::warn!(
                lease = %lease,
                "the coordinator closed this lease; its results still count if nobody else reports them"
            ),
            Ok(false) => {}
            Err(error) => tracing::warn!(lease = %lease, %error, "heartbeat failed; playing on"),
        }
    }
}

/// Parses a duration given as a number and a unit: `500ms`, `30s`, `5m`, `1h` (a bare number
/// is seconds).
pub fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 =
        number.parse().map_err(|_| format!("`{text}`: expected a number and a unit (ms, s, m, h), e.g. 30s or 5m"))?;
    let scale = match unit.trim() {
        "ms" => 0.001,
        "" | "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3_600.0,
        other => return Err(format!("`{text}`: unknown unit `{other}`; expected ms, s, m or h")),
    };
    let secs = value * scale;
    if !(secs > 0.0 && secs <= 1e9) {
        return Err(format!("`{text}`: must be positive and at most 10^9 seconds"));
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_their_units() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3_600)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1_500)));
        assert_eq!(parse_duration("12"), Ok(Duration::from_secs(12)));
        for bad in ["", "s", "0s", "-1s", "5 parsecs", "1d", "1e3s", "nan"] {
            let error = parse_duration(bad).expect_err(bad);
            assert!(error.contains(&format!("`{bad}`")), "{error}");
        }
    }

    #[test]
    fn final_batches_come_after_every_pair() {
        let req = final_batch(WorkerId::new(3), LeaseId::new(77));
        let batch = req.batch.expect("batch");
        assert_eq!((batch.lease_id, batch.seq, batch.is_final, batch.pairs.len()), (77, FINAL_SEQ, true, 0));
    }
}
