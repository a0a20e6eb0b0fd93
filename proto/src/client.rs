//! The typed farm client: the one way the worker and every command talk to a coordinator.
//! Domain types go in and come out ([`crate::convert`] does the wire), every unary call has a
//! deadline, failures that may go away (see [`retry::is_transient`]) are retried with capped
//! exponential backoff and jitter, and a failure keeps its gRPC code ([`Error::Rpc`]).
//!
//! ```no_run
//! use proto::client::{ClientConfig, FarmClient};
//! use proto::domain::RunFilter;
//!
//! # async fn demo() -> proto::Result<()> {
//! let farm = FarmClient::connect("http://127.0.0.1:7878", None, "secret", ClientConfig::default()).await?;
//! for status in farm.list_runs(RunFilter::default()).await? {
//!     println!("run {}: {} games in Parquet", status.run.id, status.exported_games);
//! }
//! # Ok(()) }
//! ```
//!
//! Every call is safe to send twice, so retrying never does anything twice: Register gives
//! the same id for the same worker key, Lease and the heartbeat only hand out or renew work
//! (a lease granted to a lost reply expires and its pairs go back to the pool), Submit is
//! idempotent by (lease, seq), AddVariant by content hash, AddOpenings stores a suite the
//! runs name by id (a duplicate suite is unused, not wrong), StopRun sets a state, and the
//! reads read. CreateRun is not idempotent by itself (the same spec twice is two runs), so
//! the client sends a random `request_key` with it, the same on every retry, and the
//! coordinator answers a key it has seen with the run it created for it. The coordinator
//! remembers keys in memory: a retry that reaches a *restarted* coordinator after the first
//! attempt committed may still create a second run (the window is a crash between the commit
//! and the reply).
//!
//! WatchRun gets no deadline (a run may take days), but the channel sends HTTP/2 keep-alive
//! pings while a stream is open, so a coordinator that is frozen or cut off ends the stream
//! with an error within [`ClientConfig::keep_alive_interval`] +
//! [`ClientConfig::keep_alive_timeout`] instead of hanging forever.

pub mod retry;

use std::future::Future;
use std::path::Path;
use std::time::Duration;

use engine::nnue::NetworkId;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::auth::BearerToken;
use crate::domain::{
    BatchAck, LeaseId, LeaseReply, LeaseRequest, OpeningSuiteSpec, OpeningSuiteSummary, Run, RunFilter, RunId, RunSpec,
    RunState, RunStatus, SubmitRequest, Variant, VariantSpec, WorkerId, WorkerInfo,
};
use crate::error::{Error, Result};
use crate::pb;
pub use retry::RetryPolicy;
/// The gRPC status codes that [`Error::Rpc`] keeps.
pub use tonic::Code;

/// How a client calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientConfig {
    /// Every unary call's deadline (sent to the coordinator as `grpc-timeout`, and enforced
    /// here, so a reply that never comes cannot hang the caller).
    pub rpc_timeout: Duration,
    /// Which failures are retried, how often and how far apart (also for connecting).
    pub retry: RetryPolicy,
    /// An HTTP/2 ping goes out this long after the last frame from the coordinator ...
    pub keep_alive_interval: Duration,
    /// ... and the connection is declared dead if the ping is not answered within this.
    pub keep_alive_timeout: Duration,
}

impl Default for ClientConfig {
    /// A user command: 10 s per call, [`RetryPolicy::COMMAND`], a dead coordinator noticed
    /// within 20 s.
    fn default() -> ClientConfig {
        ClientConfig {
            rpc_timeout: Duration::from_secs(10),
            retry: RetryPolicy::COMMAND,
            keep_alive_interval: Duration::from_secs(10),
            keep_alive_timeout: Duration::from_secs(10),
        }
    }
}

impl ClientConfig {
    /// The same with another retry policy.
    pub fn with_retry(self, retry: RetryPolicy) -> ClientConfig {
        ClientConfig { retry, ..self }
    }
}

type Inner = pb::farm_client::FarmClient<InterceptedService<Channel, BearerToken>>;

/// A connection to one coordinator. Cheap to clone (clones share the connection); each
/// clone may carry its own [`ClientConfig`] ([`FarmClient::with_config`]).
#[derive(Clone, Debug)]
pub struct FarmClient {
    inner: Inner,
    url: String,
    config: ClientConfig,
}

impl FarmClient {
    /// Connects to `url` (`https://` with the farm's `ca_cert`, see [`crate::endpoint`])
    /// with `token`. A coordinator that is down is retried as `config.retry` says
    /// ([`Error::Unreachable`] once it gives up); a TLS mismatch or a bad token fails at once.
    pub async fn connect(url: &str, ca_cert: Option<&Path>, token: &str, config: ClientConfig) -> Result<FarmClient> {
        let token = BearerToken::new(token)?;
        let endpoint =
            crate::endpoint::endpoint(url, ca_cert)?.keep_alive(config.keep_alive_interval, config.keep_alive_timeout);
        let mut attempt = 1;
        let channel = loop {
            match endpoint.connect().await {
                Ok(channel) => break channel,
                Err(e) if e.is_transient() => {
                    let code = tonic::Code::Unavailable;
                    let Some(wait) = config.retry.next_delay(attempt, code, retry::jitter()) else {
                        return Err(e);
                    };
                    tracing::warn!(url, error = %e, retry_in = ?wait, "coordinator unreachable");
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                Err(e) => return Err(e),
            }
        };
        Ok(FarmClient {
            inner: pb::farm_client::FarmClient::with_interceptor(channel, token),
            url: url.to_owned(),
            config,
        })
    }

    /// The same connection with another configuration (say, another retry policy).
    pub fn with_config(&self, config: ClientConfig) -> FarmClient {
        FarmClient { config, ..self.clone() }
    }

    /// The same connection with another retry policy.
    pub fn with_retry(&self, retry: RetryPolicy) -> FarmClient {
        self.with_config(self.config.with_retry(retry))
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// Sends `request` until it succeeds, fails for good, or the retry policy gives up; each
    /// attempt within the deadline.
    async fn unary<Req, Resp, Fut>(
        &self,
        call: &'static str,
        request: Req,
        send: impl Fn(Inner, tonic::Request<Req>) -> Fut,
    ) -> Result<Resp>
    where
        Req: Clone,
        Fut: Future<Output = std::result::Result<tonic::Response<Resp>, tonic::Status>>,
    {
        let timeout = self.config.rpc_timeout;
        let mut attempt = 1;
        loop {
            let mut message = tonic::Request::new(request.clone());
            message.set_timeout(timeout);
            let sent = std::time::Instant::now();
            let status = match tokio::time::timeout(timeout, send(self.inner.clone(), message)).await {
                Ok(Ok(response)) => return Ok(response.into_inner()),
                // The coordinator enforces `grpc-timeout` too, and answers CANCELLED when it
                // expires first: that is this deadline, and it is reported as one.
                Ok(Err(status)) if status.code() == tonic::Code::Cancelled && sent.elapsed() >= timeout => {
                    tonic::Status::deadline_exceeded(format!("no answer within {timeout:?}"))
                }
                Ok(Err(status)) => status,
                Err(_) => tonic::Status::deadline_exceeded(format!("no answer within {timeout:?}")),
            };
            match self.config.retry.next_delay(attempt, status.code(), retry::jitter()) {
                Some(wait) => {
                    tracing::warn!(call, code = ?status.code(), message = status.message(), attempt, retry_in = ?wait, "call failed; retrying");
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
                None => return Err(Error::Rpc { call, code: status.code(), message: status.message().to_owned() }),
            }
        }
    }

    /// Registers a worker: its id (the same again for the same worker key).
    pub async fn register(&self, info: &WorkerInfo) -> Result<WorkerId> {
        let request = pb::RegisterRequest::from(info.clone());
        let response = self.unary("Register", request, |mut c, r| async move { c.register(r).await }).await?;
        Ok(response.into())
    }

    /// Asks for work, hands in riding batches, renews held leases.
    pub async fn lease(&self, request: LeaseRequest) -> Result<LeaseReply> {
        let request = pb::LeaseRequest::from(request);
        let response = self.unary("Lease", request, |mut c, r| async move { c.lease(r).await }).await?;
        read("Lease", response)
    }

    /// Keeps `lease` alive (a Lease call that holds it and asks for no work): whether the
    /// coordinator says the lease is over.
    pub async fn heartbeat(&self, worker: WorkerId, lease: LeaseId) -> Result<bool> {
        let reply = self.lease(LeaseRequest { worker, free_slots: 0, held: vec![lease], finished: Vec::new() }).await?;
        Ok(reply.closed.contains(&lease))
    }

    /// Hands in a batch.
    pub async fn submit(&self, request: SubmitRequest) -> Result<BatchAck> {
        self.submit_wire(pb::SubmitRequest::from(request)).await
    }

    /// Hands in a batch already in wire form (as the worker's spool keeps it).
    pub async fn submit_wire(&self, request: pb::SubmitRequest) -> Result<BatchAck> {
        let response = self.unary("Submit", request, |mut c, r| async move { c.submit(r).await }).await?;
        read("Submit", response)
    }

    /// Creates a run, once: retries carry the same request key (see the module docs).
    pub async fn create_run(&self, spec: RunSpec) -> Result<Run> {
        let mut request = pb::CreateRunRequest::from(spec);
        request.request_key = request_key()?;
        let response = self.unary("CreateRun", request, |mut c, r| async move { c.create_run(r).await }).await?;
        read("CreateRun", response)
    }

    pub async fn get_run(&self, run: RunId) -> Result<RunStatus> {
        let request = pb::GetRunRequest::from(run);
        let response = self.unary("GetRun", request, |mut c, r| async move { c.get_run(r).await }).await?;
        read("GetRun", response)
    }

    pub async fn list_runs(&self, filter: RunFilter) -> Result<Vec<RunStatus>> {
        let request = pb::ListRunsRequest::from(filter);
        let response = self.unary("ListRuns", request, |mut c, r| async move { c.list_runs(r).await }).await?;
        read("ListRuns", response)
    }

    pub async fn stop_run(&self, run: RunId) -> Result<RunStatus> {
        let request = pb::StopRunRequest::from(run);
        let response = self.unary("StopRun", request, |mut c, r| async move { c.stop_run(r).await }).await?;
        read("StopRun", response)
    }

    pub async fn add_variant(&self, spec: VariantSpec) -> Result<Variant> {
        let request = pb::AddVariantRequest::from(spec);
        let response = self.unary("AddVariant", request, |mut c, r| async move { c.add_variant(r).await }).await?;
        read("AddVariant", response)
    }

    /// Stores a network file on the coordinator, sent in chunks; its id (the SHA-256 of the
    /// bytes, what a parameter set's `eval = "nnue:<sha256>"` names) comes back.
    pub async fn add_network(&self, bytes: &[u8]) -> Result<NetworkId> {
        let chunks = crate::convert::network_chunks(bytes);
        let response = self
            .unary("AddNetwork", chunks, |mut c, r| async move { c.add_network(r.map(tokio_stream::iter)).await })
            .await?;
        response
            .sha256
            .parse()
            .map_err(|e: engine::nnue::BadNetworkId| Error::BadResponse { call: "AddNetwork", reason: e.to_string() })
    }

    /// A stored network file's bytes, received in chunks (the caller checks them against
    /// `id`: the worker's cache does).
    pub async fn fetch_network(&self, id: NetworkId) -> Result<Vec<u8>> {
        let request = pb::FetchNetworkRequest { protocol_version: crate::PROTOCOL_VERSION, sha256: id.to_string() };
        let mut stream =
            self.unary("FetchNetwork", request, |mut c, r| async move { c.fetch_network(r).await }).await?;
        let mut assembly = crate::convert::NetworkAssembly::default();
        let bad = |e: Error| Error::BadResponse { call: "FetchNetwork", reason: e.to_string() };
        loop {
            match stream.message().await {
                Ok(Some(chunk)) => assembly.push(chunk).map_err(bad)?,
                Ok(None) => return assembly.finish().map_err(bad),
                Err(status) => {
                    return Err(Error::Rpc {
                        call: "FetchNetwork",
                        code: status.code(),
                        message: status.message().to_owned(),
                    });
                }
            }
        }
    }

    pub async fn add_openings(&self, suite: OpeningSuiteSpec) -> Result<OpeningSuiteSummary> {
        let request = pb::AddOpeningsRequest::from(suite);
        let response = self.unary("AddOpenings", request, |mut c, r| async move { c.add_openings(r).await }).await?;
        read("AddOpenings", response)
    }

    /// Follows a run: its status now, then at every change (statistics, state, games
    /// exported to Parquet). Opening the stream has the deadline and the retries; the stream
    /// itself has neither (see the module docs for how a dead coordinator is noticed).
    pub async fn watch_run(&self, run: RunId) -> Result<RunWatch> {
        let request = pb::WatchRunRequest::from(run);
        let stream = self.unary("WatchRun", request, |mut c, r| async move { c.watch_run(r).await }).await?;
        Ok(RunWatch { run, stream })
    }

    /// Watches `run` until `done` says so of a status, and returns that status. A stream
    /// that breaks for a transient reason is opened again as the retry policy allows
    /// (watching only reads); one that ends first is [`Error::Rpc`] with `OUT_OF_RANGE`,
    /// naming the run and its last state.
    pub async fn wait_for(&self, run: RunId, mut done: impl FnMut(&RunStatus) -> bool) -> Result<RunStatus> {
        let mut failures = 0;
        loop {
            let mut watch = self.watch_run(run).await?;
            let mut last: Option<RunStatus> = None;
            loop {
                match watch.next().await {
                    Some(Ok(status)) => {
                        failures = 0;
                        if done(&status) {
                            return Ok(status);
                        }
                        last = Some(status);
                    }
                    Some(Err(e)) => {
                        failures += 1;
                        let code = e.code().unwrap_or(tonic::Code::Unknown);
                        let Some(wait) = self.config.retry.next_delay(failures, code, retry::jitter()) else {
                            return Err(e);
                        };
                        tracing::warn!(run = %run, error = %e, retry_in = ?wait, "the run's watch broke; watching again");
                        tokio::time::sleep(wait).await;
                        break;
                    }
                    None => {
                        let state = last.map_or_else(|| "unknown".to_owned(), |s| s.run.state.as_str().to_owned());
                        return Err(Error::Rpc {
                            call: "WatchRun",
                            code: tonic::Code::OutOfRange,
                            message: format!("run {run} is over (state {state}) before what was waited for happened"),
                        });
                    }
                }
            }
        }
    }

    /// Waits until `run` is over (not active): its final status.
    pub async fn wait_finished(&self, run: RunId) -> Result<RunStatus> {
        self.wait_for(run, |s| s.run.state != RunState::Active).await
    }

    /// Waits until at least `games` of `run`'s games are in Parquet: the status that says so.
    pub async fn wait_exported(&self, run: RunId, games: u64) -> Result<RunStatus> {
        self.wait_for(run, |s| s.exported_games >= games).await
    }
}

/// A run's status stream (see [`FarmClient::watch_run`]).
#[derive(Debug)]
pub struct RunWatch {
    run: RunId,
    stream: tonic::Streaming<pb::WatchRunResponse>,
}

impl RunWatch {
    pub fn run(&self) -> RunId {
        self.run
    }

    /// The next status; `None` once the coordinator ended the stream (the run is over and
    /// all its games are exported). An error (a dead coordinator among them) ends it too.
    pub async fn next(&mut self) -> Option<Result<RunStatus>> {
        match self.stream.message().await {
            Ok(Some(message)) => Some(read("WatchRun", message)),
            Ok(None) => None,
            Err(status) => {
                Some(Err(Error::Rpc { call: "WatchRun", code: status.code(), message: status.message().to_owned() }))
            }
        }
    }
}

/// A response as its domain value.
fn read<W, D: TryFrom<W, Error = Error>>(call: &'static str, response: W) -> Result<D> {
    D::try_from(response).map_err(|e| Error::BadResponse { call, reason: e.to_string() })
}

/// A fresh CreateRun request key: 128 random bits in hex.
fn request_key() -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| Error::Random(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
