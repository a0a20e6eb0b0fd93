//! The worker's loop against a coordinator: register, resend what the spool holds, then
//! lease, play, submit, forever (or until shutdown). Unreachable coordinator: retry with
//! exponential backoff; results are spooled on disk before they are sent and deleted only
//! once acknowledged.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use proto::auth::BearerToken;
use proto::domain::{BatchResult, LeaseGrant, LeaseReply, LeaseRequest, PairReport, SubmitRequest, WorkerInfo};
use proto::pb;
use proto::pb::farm_client::FarmClient;
use tonic::Code;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::error::{Error, Result};
use crate::runner::{default_player, play_lease};
use crate::spool::Spool;

/// Submit finished pairs (or heartbeat) this often during a lease: well inside the
/// coordinator's lease timeout.
const SUBMIT_EVERY: Duration = Duration::from_secs(5);
const MAX_BACKOFF: Duration = Duration::from_secs(30);

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
}

type Client = FarmClient<InterceptedService<Channel, BearerToken>>;

struct Connection {
    client: Client,
    url: String,
}

impl Connection {
    async fn open(cfg: &WorkerConfig) -> Result<Connection> {
        let endpoint = proto::endpoint::endpoint(&cfg.coordinator, cfg.ca_cert.as_deref())
            .map_err(|e| Error::Coordinator { url: cfg.coordinator.clone(), reason: e.to_string() })?;
        let token = BearerToken::new(&cfg.token)
            .map_err(|e| Error::Coordinator { url: cfg.coordinator.clone(), reason: e.to_string() })?;
        let mut backoff = Duration::from_millis(200);
        loop {
            match endpoint.connect().await {
                Ok(channel) => {
                    return Ok(Connection {
                        client: FarmClient::with_interceptor(channel, token),
                        url: cfg.coordinator.clone(),
                    });
                }
                // A TLS mismatch or an unknown CA: no retry can fix it.
                Err(e) if !e.is_transient() => {
                    return Err(Error::Coordinator { url: cfg.coordinator.clone(), reason: e.to_string() });
                }
                Err(e) => {
                    tracing::warn!(url = %cfg.coordinator, error = %e, retry_in = ?backoff, "coordinator unreachable");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        }
    }

    fn fatal(&self, status: &tonic::Status) -> Error {
        Error::Coordinator { url: self.url.clone(), reason: format!("{:?}: {}", status.code(), status.message()) }
    }
}

/// Whether a failed call may succeed later (network trouble, restarts).
fn transient(status: &tonic::Status) -> bool {
    matches!(
        status.code(),
        Code::Unavailable | Code::DeadlineExceeded | Code::Unknown | Code::Cancelled | Code::Aborted
    )
}

/// Retries `call` with backoff while it fails transiently.
macro_rules! with_retry {
    ($conn:expr, $call:expr) => {{
        let mut backoff = Duration::from_millis(200);
        loop {
            match $call.await {
                Ok(r) => break Ok(r.into_inner()),
                Err(status) if transient(&status) => {
                    tracing::warn!(code = ?status.code(), message = status.message(), retry_in = ?backoff, "call failed; retrying");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
                Err(status) => break Err($conn.fatal(&status)),
            }
        }
    }};
}

/// Runs the worker until `max_leases` leases are done (or forever).
pub async fn run_worker(cfg: WorkerConfig, info: WorkerInfo) -> Result<()> {
    let spool = Spool::open(&cfg.spool_dir)?;
    let mut conn = Connection::open(&cfg).await?;
    let reg = pb::RegisterRequest::from(info.clone());
    let worker: u64 = {
        let c = &mut conn.client;
        let resp: pb::RegisterResponse = with_retry!(conn, c.register(reg.clone()))?;
        resp.into()
    };
    tracing::info!(worker, name = %cfg.name, "registered");

    // Results a previous run of this worker could not deliver.
    for mut req in spool.pending()? {
        req.worker_id = worker;
        let (lease, seq) = req.batch.as_ref().map_or((0, 0), |b| (b.lease_id, b.seq));
        let c = &mut conn.client;
        match with_retry!(conn, c.submit(req.clone())) {
            Ok(_) => spool.remove(lease, seq)?,
            // The coordinator refuses it for good (e.g. it no longer knows the lease):
            // keep the file for a human, go on.
            Err(e) => tracing::error!(lease, seq, error = %e, "spooled submission refused"),
        }
    }

    let mut leases_done = 0;
    let info = Arc::new(cfg.name.clone());
    loop {
        if cfg.max_leases.is_some_and(|m| leases_done >= m) {
            return Ok(());
        }
        let req = pb::LeaseRequest::from(LeaseRequest {
            worker,
            free_slots: cfg.concurrency as u32,
            held: Vec::new(),
            finished: Vec::new(),
        });
        let c = &mut conn.client;
        let resp: pb::LeaseResponse = with_retry!(conn, c.lease(req.clone()))?;
        let reply = LeaseReply::try_from(resp).map_err(|e| conn.fatal(&tonic::Status::from(e)))?;
        let lease = match reply.grant {
            LeaseGrant::NoWork { retry_after_ms } => {
                tokio::time::sleep(Duration::from_millis(retry_after_ms.clamp(50, 30_000))).await;
                continue;
            }
            LeaseGrant::Lease(lease) => lease,
        };
        tracing::info!(lease = lease.id, run = lease.run, pairs = lease.tasks.len(), "playing");
        let lease_id = lease.id;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<PairReport>();
        let threads = cfg.concurrency.min(lease.tasks.len()).max(1);
        let name = Arc::clone(&info);
        let player = tokio::task::spawn_blocking(move || {
            play_lease(&lease, threads, &default_player, &name, |pair| {
                let _ = tx.send(pair);
            })
        });
        let mut seq = 0u32;
        let mut pending: Vec<PairReport> = Vec::new();
        let mut tick = tokio::time::interval(SUBMIT_EVERY);
        tick.tick().await;
        loop {
            tokio::select! {
                pair = rx.recv() => match pair {
                    Some(p) => pending.push(p),
                    None => break,
                },
                _ = tick.tick() => {
                    if pending.is_empty() {
                        heartbeat(&mut conn, worker, lease_id).await?;
                    } else {
                        seq += 1;
                        send_batch(&mut conn, &spool, worker, lease_id, seq, std::mem::take(&mut pending), false).await?;
                    }
                }
            }
        }
        let played = player.await.map_err(|e| Error::Engine { engine: "runner".into(), reason: e.to_string() })?;
        if let Err(e) = played {
            tracing::warn!(lease = lease_id, error = %e, "some pairs were not played; they go back to the pool");
        }
        seq += 1;
        send_batch(&mut conn, &spool, worker, lease_id, seq, pending, true).await?;
        leases_done += 1;
    }
}

/// Keeps a lease alive while no pair has finished (a Lease call that holds it, asking for
/// no new work).
async fn heartbeat(conn: &mut Connection, worker: u64, lease: u64) -> Result<()> {
    let req = pb::LeaseRequest::from(LeaseRequest { worker, free_slots: 0, held: vec![lease], finished: Vec::new() });
    let c = &mut conn.client;
    let resp: pb::LeaseResponse = with_retry!(conn, c.lease(req.clone()))?;
    if LeaseReply::try_from(resp).is_ok_and(|r| r.closed.contains(&lease)) {
        tracing::warn!(lease, "the coordinator closed this lease; results still count if nobody else reported them");
    }
    Ok(())
}

async fn send_batch(
    conn: &mut Connection,
    spool: &Spool,
    worker: u64,
    lease: u64,
    seq: u32,
    pairs: Vec<PairReport>,
    is_final: bool,
) -> Result<()> {
    let req = pb::SubmitRequest::from(SubmitRequest { worker, batch: BatchResult { lease, seq, pairs, is_final } });
    spool.put(&req)?;
    let c = &mut conn.client;
    match with_retry!(conn, c.submit(req.clone())) {
        Ok(_) => spool.remove(lease, seq),
        Err(e) => {
            // Refused for good: the coordinator has moved on (e.g. the run was stopped);
            // nothing a resend would fix.
            tracing::warn!(lease, seq, error = %e, "submission refused");
            spool.remove(lease, seq)
        }
    }
}
