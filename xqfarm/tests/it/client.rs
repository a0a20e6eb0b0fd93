//! The typed farm client (`proto::client`) against a real coordinator and against a scripted
//! one: typed calls, the "exported up to game N" signal on WatchRun, CreateRun's request key,
//! retries of transient failures only, the per-call deadline, and a watch that notices a
//! coordinator gone silent.

use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use coordinator::farm::Farm;
use coordinator::server::Security;
use coordinator::{SqliteStorage, SystemClock};
use engine::eval::Params;
use proto::client::{ClientConfig, Code, FarmClient, RetryPolicy};
use proto::domain::{
    Adjudication, OpeningSuiteSpec, RunFilter, RunId, RunKind, RunSpec, RunState, SuiteId, TimeControl, VariantId,
    VariantKind, VariantSpec, WorkerInfo,
};
use proto::pb;
use tokio::net::TcpListener;
use tonic::{Request, Response, Status};
use worker::client::{WorkerConfig, run_worker};

use crate::served::Served;

/// How long a call or a watch may take before the test calls it hung: far past any deadline or
/// keep-alive period here, so that a loaded machine is never mistaken for a hang.
const HANG: Duration = Duration::from_secs(60);

/// A coordinator on SQLite and Parquet in a temporary directory, served in this process.
struct Coordinator {
    served: Served,
    url: String,
    data: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Coordinator {
    async fn start() -> Coordinator {
        let dir = tempfile::tempdir().expect("temp dir");
        let data = dir.path().join("data");
        let storage = SqliteStorage::open(dir.path().join("farm.db")).expect("database");
        let farm = Arc::new(Farm::new(Arc::new(storage), Arc::new(SystemClock), Some(data.clone())).expect("farm"));
        let served = Served::start(farm, Security::single_token("secret")).await;
        Coordinator { url: served.url.clone(), served, data, _dir: dir }
    }

    /// Ends the server at once: a graceful stop would wait for the streams of a frozen client.
    fn abort(self) {
        self.served.abort();
    }

    async fn stop(self) {
        self.served.stop().await;
    }
}

fn params_variant(name: &str, params: &Params) -> VariantSpec {
    VariantSpec { name: name.into(), kind: VariantKind::Params { toml: params.to_toml() } }
}

fn games_spec(variants: Vec<VariantId>, suite: SuiteId, pairs: u64) -> RunSpec {
    RunSpec {
        name: "client".into(),
        kind: RunKind::Games { pairs },
        variants,
        tc: TimeControl::Depth(1),
        openings: suite,
        adjudication: Adjudication::default(),
        bench_signature: None,
        sample_every: 4,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn typed_calls_and_the_exported_signal() {
    let coordinator = Coordinator::start().await;
    let client = FarmClient::connect(&coordinator.url, None, "secret", ClientConfig::default()).await.expect("connect");

    let a = client.add_variant(params_variant("default", &Params::default())).await.expect("variant");
    let again = client.add_variant(params_variant("default", &Params::default())).await.expect("variant again");
    assert_eq!(a.id, again.id, "variants are named by content");
    let b = client.add_variant(params_variant("material", &Params::material_only())).await.expect("variant");
    let openings = vec!["startpos moves h2e2 h9g7".to_owned(), "startpos moves b0c2".to_owned()];
    let suite = client.add_openings(OpeningSuiteSpec { name: "two".into(), openings }).await.expect("suite");
    assert_eq!((suite.name.as_str(), suite.openings), ("two", 2));
    let pairs = 3;
    let run = client.create_run(games_spec(vec![a.id, b.id], suite.id, pairs)).await.expect("run");
    let listed = client.list_runs(RunFilter::default()).await.expect("list");
    assert_eq!(listed.iter().map(|s| s.run.id).collect::<Vec<_>>(), [run.id], "the client created one run");
    let before = client.get_run(run.id).await.expect("get");
    assert_eq!((before.run.state.clone(), before.exported_games), (RunState::Active, 0));

    // A refusal keeps its gRPC code and message.
    let error = client.get_run(RunId::new(999)).await.expect_err("no such run");
    assert_eq!(error.code(), Some(Code::NotFound), "{error}");
    assert!(error.to_string().contains("GetRun") && error.to_string().contains("999"), "{error}");

    let spool = tempfile::tempdir().expect("spool");
    let cfg = WorkerConfig {
        coordinator: coordinator.url.clone(),
        ca_cert: None,
        token: "secret".into(),
        name: "w".into(),
        concurrency: 2,
        spool_dir: spool.path().to_owned(),
        bench_signature: 0,
        max_leases: None,
        idle_exit: None,
        engines: worker::engines::EngineSet::empty(),
        tablebases: None,
    };
    let info = WorkerInfo {
        name: "w".into(),
        host: "h".into(),
        cores: 2,
        engine_version: "t".into(),
        bench_signature: 0,
        worker_key: String::new(),
        rules_version: engine::RULES_VERSION,
        engines: Vec::new(),
        bench_nps: 0,
        simd: None,
        nnue_bench_nps: 0,
    };
    let worker = tokio::spawn(run_worker(cfg, info));

    // The watch follows the run to its end, then on until every game is in Parquet, and
    // then the coordinator ends the stream.
    let mut watch = client.watch_run(run.id).await.expect("watch");
    let mut seen = Vec::new();
    let ended = tokio::time::timeout(Duration::from_secs(120), async {
        while let Some(status) = watch.next().await {
            seen.push(status.expect("a status"));
        }
    })
    .await;
    assert!(ended.is_ok(), "the stream ends once the run is over and exported: {:?}", seen.last());
    let last = seen.last().expect("statuses");
    assert_eq!(last.run.state, RunState::Completed);
    let games = 2 * pairs;
    assert_eq!(last.exported_games, games, "the last status says every game is exported");
    // The export progress only grows, and the Parquet files hold what it says.
    assert!(seen.windows(2).all(|w| w[0].exported_games <= w[1].exported_games));
    assert_eq!(farmdata::read_games(&coordinator.data, run.id).expect("Parquet").len() as u64, games);
    // Waiting for the export of a finished run answers at once.
    let exported = client.wait_exported(run.id, games).await.expect("exported");
    assert_eq!(exported.exported_games, games);
    // And waiting for more than it will ever have is an error, not a hang.
    let error = client.wait_exported(run.id, games + 1).await.expect_err("never");
    assert_eq!(error.code(), Some(Code::OutOfRange), "{error}");

    worker.abort();
    coordinator.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_create_run_request_key_makes_one_run() {
    let coordinator = Coordinator::start().await;
    let client = FarmClient::connect(&coordinator.url, None, "secret", ClientConfig::default()).await.expect("connect");
    let a = client.add_variant(params_variant("a", &Params::default())).await.expect("variant").id;
    let b = client.add_variant(params_variant("b", &Params::material_only())).await.expect("variant").id;
    let suite = client
        .add_openings(OpeningSuiteSpec { name: "s".into(), openings: vec!["startpos".into()] })
        .await
        .expect("suite")
        .id;
    let spec = games_spec(vec![a, b], suite, 1);
    let channel = proto::endpoint::endpoint(&coordinator.url, None).expect("endpoint").connect().await.expect("dial");
    let token = proto::auth::BearerToken::new("secret").expect("token");
    let mut raw = pb::farm_client::FarmClient::with_interceptor(channel, token);
    let keyed =
        |key: &str| pb::CreateRunRequest { request_key: key.into(), ..pb::CreateRunRequest::from(spec.clone()) };
    let id = |r: Response<pb::CreateRunResponse>| r.into_inner().run.expect("run").run_id;

    let first = id(raw.create_run(keyed("k-1")).await.expect("create"));
    let resent = id(raw.create_run(keyed("k-1")).await.expect("resend"));
    let other = id(raw.create_run(keyed("k-2")).await.expect("another key"));
    let unkeyed = id(raw.create_run(keyed("")).await.expect("no key"));
    let unkeyed_again = id(raw.create_run(keyed("")).await.expect("no key again"));
    assert_eq!(resent, first, "the same key is the same run");
    assert_eq!([other, unkeyed, unkeyed_again], [first + 1, first + 2, first + 3], "new keys, or none, are new runs");
    let bad = raw.create_run(keyed("two words")).await.expect_err("a key with a space");
    assert_eq!(bad.code(), Code::InvalidArgument);
    assert!(bad.message().contains("request_key"), "{}", bad.message());
    assert_eq!(client.list_runs(RunFilter::default()).await.expect("list").len(), 4, "the refused key made no run");
    coordinator.stop().await;
}

/// A coordinator that answers as scripted: the first `fail_first` calls of GetRun and
/// CreateRun fail with `code`; GetRun of run 99 never answers in time.
#[derive(Clone)]
struct Scripted {
    code: Code,
    fail_first: u32,
    calls: Arc<AtomicU32>,
    keys: Arc<Mutex<Vec<String>>>,
}

type Stream = Pin<Box<dyn tokio_stream::Stream<Item = Result<pb::WatchRunResponse, Status>> + Send>>;

fn unused<T>() -> Result<Response<T>, Status> {
    Err(Status::unimplemented("not scripted"))
}

#[tonic::async_trait]
impl pb::farm_server::Farm for Scripted {
    async fn register(&self, _: Request<pb::RegisterRequest>) -> Result<Response<pb::RegisterResponse>, Status> {
        unused()
    }
    async fn lease(&self, _: Request<pb::LeaseRequest>) -> Result<Response<pb::LeaseResponse>, Status> {
        unused()
    }
    async fn submit(&self, _: Request<pb::SubmitRequest>) -> Result<Response<pb::SubmitResponse>, Status> {
        unused()
    }
    async fn create_run(&self, req: Request<pb::CreateRunRequest>) -> Result<Response<pb::CreateRunResponse>, Status> {
        self.keys.lock().expect("keys").push(req.get_ref().request_key.clone());
        if self.calls.fetch_add(1, Ordering::SeqCst) < self.fail_first {
            return Err(Status::new(self.code, "scripted failure"));
        }
        let spec = req.into_inner().spec;
        let run = pb::Run {
            run_id: 5,
            spec,
            state: pb::RunState::Active.into(),
            stats: vec![],
            created_unix_ms: 1,
            tablebases: vec![],
        };
        Ok(Response::new(pb::CreateRunResponse { run: Some(run) }))
    }
    async fn list_runs(&self, _: Request<pb::ListRunsRequest>) -> Result<Response<pb::ListRunsResponse>, Status> {
        unused()
    }
    async fn get_run(&self, req: Request<pb::GetRunRequest>) -> Result<Response<pb::GetRunResponse>, Status> {
        if req.get_ref().run_id == 99 {
            tokio::time::sleep(Duration::from_secs(30)).await;
        }
        if self.calls.fetch_add(1, Ordering::SeqCst) < self.fail_first {
            return Err(Status::new(self.code, "scripted failure"));
        }
        Err(Status::not_found("run 7 does not exist (the scripted answer)"))
    }
    async fn stop_run(&self, _: Request<pb::StopRunRequest>) -> Result<Response<pb::StopRunResponse>, Status> {
        unused()
    }
    type WatchRunStream = Stream;
    async fn watch_run(&self, _: Request<pb::WatchRunRequest>) -> Result<Response<Stream>, Status> {
        unused()
    }
    async fn add_variant(&self, _: Request<pb::AddVariantRequest>) -> Result<Response<pb::AddVariantResponse>, Status> {
        unused()
    }
    async fn add_openings(
        &self,
        _: Request<pb::AddOpeningsRequest>,
    ) -> Result<Response<pb::AddOpeningsResponse>, Status> {
        unused()
    }
    async fn add_network(
        &self,
        _: Request<tonic::Streaming<pb::NetworkChunk>>,
    ) -> Result<Response<pb::AddNetworkResponse>, Status> {
        unused()
    }
    type FetchNetworkStream = Pin<Box<dyn tokio_stream::Stream<Item = Result<pb::NetworkChunk, Status>> + Send>>;
    async fn fetch_network(
        &self,
        _: Request<pb::FetchNetworkRequest>,
    ) -> Result<Response<Self::FetchNetworkStream>, Status> {
        unused()
    }
}

async fn scripted(code: Code, fail_first: u32) -> (String, Scripted) {
    let service = Scripted { code, fail_first, calls: Arc::default(), keys: Arc::default() };
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let server = pb::farm_server::FarmServer::new(service.clone());
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(server)
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
    );
    (url, service)
}

const FAST: RetryPolicy =
    RetryPolicy { first_delay: Duration::from_millis(10), max_delay: Duration::from_millis(40), max_attempts: Some(4) };

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transient_failures_are_retried_and_answers_are_not() {
    let config = ClientConfig { retry: FAST, ..ClientConfig::default() };
    // Two UNAVAILABLE, then the real answer (NOT_FOUND), which is returned as it is.
    let (url, service) = scripted(Code::Unavailable, 2).await;
    let client = FarmClient::connect(&url, None, "t", config).await.expect("connect");
    let error = client.get_run(RunId::new(7)).await.expect_err("the scripted answer");
    assert_eq!(error.code(), Some(Code::NotFound), "{error}");
    assert!(error.to_string().contains("run 7 does not exist"), "{error}");
    assert_eq!(service.calls.load(Ordering::SeqCst), 3, "two retries, then the answer");

    // More transient failures than attempts: the last failure, after exactly 4 attempts.
    let (url, service) = scripted(Code::Unavailable, 100).await;
    let client = FarmClient::connect(&url, None, "t", config).await.expect("connect");
    let error = client.get_run(RunId::new(7)).await.expect_err("gives up");
    assert_eq!((error.code(), service.calls.load(Ordering::SeqCst)), (Some(Code::Unavailable), 4), "{error}");

    // An answer about the request is never sent again.
    let (url, service) = scripted(Code::PermissionDenied, 100).await;
    let client = FarmClient::connect(&url, None, "t", config).await.expect("connect");
    let error = client.get_run(RunId::new(7)).await.expect_err("refused");
    assert_eq!((error.code(), service.calls.load(Ordering::SeqCst)), (Some(Code::PermissionDenied), 1), "{error}");

    // CreateRun is retried with the same request key, so the coordinator makes one run.
    let (url, service) = scripted(Code::Unavailable, 1).await;
    let client = FarmClient::connect(&url, None, "t", config).await.expect("connect");
    let run = client.create_run(games_spec(vec!["a".into(), "b".into()], SuiteId::new(1), 1)).await.expect("created");
    assert_eq!(run.id, RunId::new(5));
    let keys = service.keys.lock().expect("keys").clone();
    assert_eq!(keys.len(), 2, "{keys:?}");
    assert!(keys[0].len() == 32 && keys[0] == keys[1], "one key for both attempts: {keys:?}");
    // A second run gets a key of its own.
    client.create_run(games_spec(vec!["a".into(), "b".into()], SuiteId::new(1), 1)).await.expect("created");
    assert_ne!(service.keys.lock().expect("keys")[2], keys[0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_unary_call_has_a_deadline() {
    let (url, service) = scripted(Code::Unavailable, 0).await;
    let config =
        ClientConfig { rpc_timeout: Duration::from_millis(300), retry: RetryPolicy::ONCE, ..ClientConfig::default() };
    let client = FarmClient::connect(&url, None, "t", config).await.expect("connect");
    // The scripted service never answers: only the client's deadline ends the call (the outer
    // timeout turns a missing deadline into a failure rather than a hung test). Lower bounds
    // only: how soon after its deadline a call ends is the machine's speed, not the contract.
    let started = Instant::now();
    let error = tokio::time::timeout(HANG, client.get_run(RunId::new(99)))
        .await
        .expect("the call has a deadline")
        .expect_err("no answer in time");
    assert_eq!(error.code(), Some(Code::DeadlineExceeded), "{error}");
    assert!(started.elapsed() >= Duration::from_millis(300), "one attempt: {:?}", started.elapsed());
    // With retries, each attempt has its own deadline and DEADLINE_EXCEEDED is retried.
    let client = client.with_retry(FAST);
    let started = Instant::now();
    let error = tokio::time::timeout(HANG, client.get_run(RunId::new(99)))
        .await
        .expect("each attempt has a deadline")
        .expect_err("no answer in time");
    assert_eq!(error.code(), Some(Code::DeadlineExceeded), "{error}");
    assert!(started.elapsed() >= Duration::from_millis(4 * 300), "four attempts: {:?}", started.elapsed());
    assert_eq!(service.calls.load(Ordering::SeqCst), 0, "no attempt got past the wait");
}

/// Copies `from` to `to` until `frozen` is set; from then on, bytes are read and dropped. The
/// write half stays open: a frozen peer does not hang up.
async fn pipe(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    frozen: Arc<std::sync::atomic::AtomicBool>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buf = vec![0u8; 16 * 1024];
    while let Ok(n) = from.read(&mut buf).await {
        if n == 0 {
            break;
        }
        if !frozen.load(Ordering::SeqCst) && to.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    std::future::pending::<()>().await;
}

/// A TCP proxy to `target` that can be frozen: a coordinator frozen (SIGSTOP) or cut off,
/// its connections open and silent.
async fn freezable_proxy(target: String) -> (String, Arc<std::sync::atomic::AtomicBool>) {
    let frozen = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let flag = Arc::clone(&frozen);
    tokio::spawn(async move {
        while let Ok((inbound, _)) = listener.accept().await {
            let Ok(outbound) = tokio::net::TcpStream::connect(&target).await else { continue };
            let (ri, wi) = inbound.into_split();
            let (ro, wo) = outbound.into_split();
            tokio::spawn(pipe(ri, wo, Arc::clone(&flag)));
            tokio::spawn(pipe(ro, wi, Arc::clone(&flag)));
        }
    });
    (url, frozen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_notices_a_coordinator_gone_silent() {
    let coordinator = Coordinator::start().await;
    let admin = FarmClient::connect(&coordinator.url, None, "secret", ClientConfig::default()).await.expect("connect");
    let a = admin.add_variant(params_variant("a", &Params::default())).await.expect("variant").id;
    let b = admin.add_variant(params_variant("b", &Params::material_only())).await.expect("variant").id;
    let suite = admin
        .add_openings(OpeningSuiteSpec { name: "s".into(), openings: vec!["startpos".into()] })
        .await
        .expect("suite")
        .id;
    let run = admin.create_run(games_spec(vec![a, b], suite, 1)).await.expect("run").id;

    let target = coordinator.url.trim_start_matches("http://").to_owned();
    let (url, frozen) = freezable_proxy(target).await;
    let config = ClientConfig {
        keep_alive_interval: Duration::from_millis(300),
        keep_alive_timeout: Duration::from_millis(300),
        retry: RetryPolicy::ONCE,
        ..ClientConfig::default()
    };
    let client = FarmClient::connect(&url, None, "secret", config).await.expect("connect through the proxy");
    let mut watch = client.watch_run(run).await.expect("watch");
    let first = watch.next().await.expect("a first status").expect("readable");
    assert_eq!(first.run.state, RunState::Active);
    // Nobody plays: without keep-alive the stream would now wait forever, silent or not.
    frozen.store(true, Ordering::SeqCst);
    let next = tokio::time::timeout(HANG, watch.next()).await.expect("the watch must not hang");
    let error = next.expect("an error, not the end of the stream").expect_err("the coordinator is silent");
    assert!(error.code().is_some(), "{error}");
    coordinator.abort();
}
