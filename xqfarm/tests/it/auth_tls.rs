//! Roles and TLS through the real server on 127.0.0.1:0: each role reaches its RPCs and is
//! refused the others; a CA and a server certificate made here carry a worker's games over
//! TLS; every TLS mismatch fails at once with what to fix; `xqfarm serve` refuses bad token
//! and TLS files naming them.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use coordinator::server::Security;
use engine::eval::Params;
use proto::auth::{Access, BearerToken, Role, token_file};
use proto::domain::{
    Adjudication, OpeningSuiteSpec, RunKind, RunSpec, RunState, TimeControl, VariantKind, VariantSpec, WorkerInfo,
};
use proto::pb;
use proto::pb::farm_client::FarmClient;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use tonic::Code;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;
use worker::client::{WorkerConfig, run_worker};

use crate::served::Served;

/// A mismatch must be told well inside this; a hang would hit it.
const PROMPT: Duration = Duration::from_secs(15);

type Client = FarmClient<InterceptedService<Channel, BearerToken>>;

/// A farm CA, a server certificate it signed for localhost and 127.0.0.1, and another CA,
/// written as PEM files.
struct Pki {
    dir: tempfile::TempDir,
}

impl Pki {
    fn new() -> Pki {
        let dir = tempfile::tempdir().expect("temp dir");
        let ca = new_ca();
        let other = new_ca();
        let key = KeyPair::generate().expect("server key");
        let params = CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).expect("names");
        let cert = params.signed_by(&key, &ca).expect("server certificate");
        let stray_key = KeyPair::generate().expect("another key");
        for (name, pem) in [
            ("ca.pem", ca.pem()),
            ("other-ca.pem", other.pem()),
            ("server.pem", cert.pem()),
            ("server.key", key.serialize_pem()),
            ("stray.key", stray_key.serialize_pem()),
            ("not-pem.txt", "hello\n".to_owned()),
        ] {
            std::fs::write(dir.path().join(name), pem).expect("write PEM");
        }
        Pki { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn server_tls(&self) -> tonic::transport::ServerTlsConfig {
        proto::tls::server_config(&self.path("server.pem"), &self.path("server.key")).expect("server TLS")
    }
}

fn new_ca() -> CertifiedIssuer<'static, KeyPair> {
    let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(rcgen::DnType::CommonName, "xqfarm test CA");
    CertifiedIssuer::self_signed(params, KeyPair::generate().expect("CA key")).expect("CA")
}

async fn client(url: &str, ca: Option<&Path>, token: &str) -> Client {
    let channel = proto::endpoint::endpoint(url, ca).expect("endpoint").connect().await.expect("connect");
    FarmClient::with_interceptor(channel, BearerToken::new(token).expect("token"))
}

fn list() -> pb::ListRunsRequest {
    pb::ListRunsRequest { protocol_version: proto::PROTOCOL_VERSION, active_only: false, limit: 0 }
}

fn worker_info(name: &str) -> WorkerInfo {
    WorkerInfo {
        name: name.into(),
        host: "test".into(),
        cores: 1,
        engine_version: "test".into(),
        bench_signature: 1,
        worker_key: String::new(),
        rules_version: engine::RULES_VERSION,
        engines: Vec::new(),
        bench_nps: 0,
        simd: None,
        nnue_bench_nps: 0,
    }
}

fn assert_refused<T: std::fmt::Debug>(result: Result<T, tonic::Status>, code: Code, says: &str) {
    let status = result.expect_err(says);
    assert_eq!(status.code(), code, "{}", status.message());
    assert!(status.message().contains(says), "`{}` should say `{says}`", status.message());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_role_reaches_its_rpcs_and_is_refused_the_others() {
    let worker = token_file::mint(Role::Worker, "box-1").expect("mint");
    let user = token_file::mint(Role::User, "alice").expect("mint");
    let reader = token_file::mint(Role::ReadOnly, "dashboard").expect("mint");
    let access = Access::from_entries(vec![worker.entry.clone(), user.entry.clone(), reader.entry.clone()]);
    let server = Served::in_memory_with(Security { access, tls: None }).await;
    let url = format!("http://{}", server.addr);

    let mut w = client(&url, None, &worker.token).await;
    let registered = w.register(pb::RegisterRequest::from(worker_info("w"))).await;
    assert!(registered.is_ok(), "a worker registers: {registered:?}");
    assert_refused(w.list_runs(list()).await, Code::PermissionDenied, "ListRuns needs a read-only token");
    assert_refused(
        w.add_openings(pb::AddOpeningsRequest::default()).await,
        Code::PermissionDenied,
        "AddOpenings needs a user token",
    );
    assert_refused(w.stop_run(pb::StopRunRequest::default()).await, Code::PermissionDenied, "box-1");

    let mut u = client(&url, None, &user.token).await;
    let suite = OpeningSuiteSpec { name: "one".into(), openings: vec!["startpos moves h2e2".into()] };
    let added = u.add_openings(pb::AddOpeningsRequest::from(suite)).await;
    assert!(added.is_ok(), "a user adds openings: {added:?}");
    assert!(u.list_runs(list()).await.is_ok(), "a user reads");
    assert_refused(
        u.register(pb::RegisterRequest::from(worker_info("u"))).await,
        Code::PermissionDenied,
        "Register needs a worker token",
    );
    assert_refused(u.lease(pb::LeaseRequest::default()).await, Code::PermissionDenied, "Lease needs a worker token");
    assert_refused(u.submit(pb::SubmitRequest::default()).await, Code::PermissionDenied, "Submit needs a worker token");

    let mut r = client(&url, None, &reader.token).await;
    assert!(r.list_runs(list()).await.is_ok(), "read-only lists runs");
    // Through the guard to the handler: the run does not exist.
    assert_refused(
        r.get_run(pb::GetRunRequest { protocol_version: proto::PROTOCOL_VERSION, run_id: 42 }).await,
        Code::NotFound,
        "42",
    );
    assert_refused(
        r.watch_run(pb::WatchRunRequest { protocol_version: proto::PROTOCOL_VERSION, run_id: 42 }).await,
        Code::NotFound,
        "42",
    );
    assert_refused(
        r.create_run(pb::CreateRunRequest::default()).await,
        Code::PermissionDenied,
        "CreateRun needs a user token",
    );

    let mut stranger = client(&url, None, "xqf_not-a-minted-token").await;
    assert_refused(stranger.list_runs(list()).await, Code::Unauthenticated, "unknown farm token");
    let channel = proto::endpoint::endpoint(&url, None).expect("endpoint").connect().await.expect("connect");
    let mut bare = FarmClient::new(channel);
    assert_refused(bare.list_runs(list()).await, Code::Unauthenticated, "authorization");
    server.stop().await;
}

/// A games run over TLS: a worker dials `https://` with the farm's CA and plays it out.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_worker_plays_a_run_over_tls() {
    let pki = Pki::new();
    let server =
        Served::in_memory_with(Security { access: Access::single_token("secret"), tls: Some(pki.server_tls()) }).await;
    let url = format!("https://localhost:{}", server.addr.port());
    let farm = Arc::clone(&server.farm);
    let params =
        |name: &str, p: Params| VariantSpec { name: name.into(), kind: VariantKind::Params { toml: p.to_toml() } };
    let a = farm.add_variant(&params("default", Params::default())).expect("variant");
    let b = farm.add_variant(&params("material", Params::material_only())).expect("variant");
    let suite = farm
        .add_openings(&OpeningSuiteSpec { name: "one".into(), openings: vec!["startpos moves h2e2 h9g7".into()] })
        .expect("suite");
    let run = farm
        .create_run(&RunSpec {
            name: "tls".into(),
            kind: RunKind::Games { pairs: 2 },
            variants: vec![a.id.clone(), b.id.clone()],
            tc: TimeControl::Depth(1),
            openings: suite.id,
            adjudication: Adjudication::default(),
            bench_signature: None,
            sample_every: 5,
        })
        .expect("run");

    let spool = tempfile::tempdir().expect("spool");
    let cfg = WorkerConfig {
        coordinator: url.clone(),
        ca_cert: Some(pki.path("ca.pem")),
        token: "secret".into(),
        name: "tls-worker".into(),
        concurrency: 1,
        spool_dir: spool.path().to_owned(),
        bench_signature: 1,
        max_leases: None,
        idle_exit: None,
        engines: worker::engines::EngineSet::empty(),
        tablebases: None,
    };
    let worker = tokio::spawn(run_worker(cfg, worker_info("tls-worker")));
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        let s = farm.get_run(run.id).expect("run");
        if s.run.state != RunState::Active {
            break s;
        }
        assert!(!worker.is_finished(), "the worker stopped: {:?}", worker.await);
        assert!(Instant::now() < deadline, "the run did not finish over TLS: {s:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    worker.abort();
    assert_eq!(status.run.state, RunState::Completed);
    assert_eq!(status.live[0].counts.games(), 4);

    // A user command over the same TLS port.
    let mut c = client(&url, Some(&pki.path("ca.pem")), "secret").await;
    let runs = c.list_runs(list()).await.expect("list over TLS").into_inner();
    assert_eq!(runs.runs.len(), 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_mismatches_fail_at_once_saying_what_to_fix() {
    let pki = Pki::new();
    let tls =
        Served::in_memory_with(Security { access: Access::single_token("secret"), tls: Some(pki.server_tls()) }).await;
    let plain = Served::in_memory_with(Security::single_token("secret")).await;
    let ca = pki.path("ca.pem");
    let other_ca = pki.path("other-ca.pem");

    let cases: [(String, Option<&Path>, &str); 3] = [
        (format!("http://127.0.0.1:{}", tls.addr.port()), None, "speaks TLS, not plaintext: use https://"),
        (format!("https://localhost:{}", plain.addr.port()), Some(&ca), "does not speak TLS: use http://"),
        (format!("https://localhost:{}", tls.addr.port()), Some(&other_ca), "not signed by the CA"),
    ];
    for (url, ca, says) in cases {
        let started = Instant::now();
        let endpoint = proto::endpoint::endpoint(&url, ca).expect("endpoint");
        let error = tokio::time::timeout(PROMPT, endpoint.connect()).await.expect("no hang").expect_err(&url);
        assert!(!error.is_transient(), "{url}: {error}");
        assert!(error.to_string().contains(says), "{url}: `{error}` should say `{says}`");

        // The worker, which retries an unreachable coordinator forever, stops at once too.
        let spool = tempfile::tempdir().expect("spool");
        let cfg = WorkerConfig {
            coordinator: url.clone(),
            ca_cert: ca.map(Path::to_owned),
            token: "secret".into(),
            name: "w".into(),
            concurrency: 1,
            spool_dir: spool.path().to_owned(),
            bench_signature: 1,
            max_leases: None,
            idle_exit: None,
            engines: worker::engines::EngineSet::empty(),
            tablebases: None,
        };
        let stopped = tokio::time::timeout(PROMPT, run_worker(cfg, worker_info("w"))).await.expect("the worker hangs");
        let error = stopped.expect_err("the worker must refuse").to_string();
        assert!(error.contains(says), "{url}: worker said `{error}`");
        assert!(started.elapsed() < PROMPT, "{url}: took {:?}", started.elapsed());
    }

    // A coordinator that is down is not a mismatch: worth retrying.
    let down = format!("http://127.0.0.1:{}", plain.addr.port());
    plain.stop().await;
    let error = proto::endpoint::endpoint(&down, None).expect("endpoint").connect().await.expect_err("down");
    assert!(error.is_transient(), "{error}");
    tls.stop().await;
}

#[test]
fn bad_tls_files_are_named() {
    let pki = Pki::new();
    let cases = [
        (pki.path("missing.pem"), pki.path("server.key"), "missing.pem", "cannot read"),
        (pki.path("not-pem.txt"), pki.path("server.key"), "not-pem.txt", "BEGIN CERTIFICATE"),
        (pki.path("server.pem"), pki.path("not-pem.txt"), "not-pem.txt", "private key"),
        (pki.path("server.pem"), pki.path("stray.key"), "stray.key", "does not fit the certificate"),
    ];
    for (cert, key, names, says) in cases {
        let error = proto::tls::server_config(&cert, &key).expect_err(says).to_string();
        assert!(error.contains(names) && error.contains(says), "`{error}` should name {names} and say `{says}`");
    }
    let error = proto::tls::client_config(&pki.path("not-pem.txt")).expect_err("not a CA").to_string();
    assert!(error.contains("not-pem.txt"), "{error}");
}

/// `xqfarm serve` with its output read until it says where it listens.
struct ServeProcess {
    child: Child,
    addr: String,
    /// Kept open: the server may still write warnings.
    _stderr: BufReader<std::process::ChildStderr>,
}

impl ServeProcess {
    fn start(dir: &Path, extra: &[&str]) -> ServeProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_xqfarm"))
            .args(["serve", "--listen", "127.0.0.1:0", "--db"])
            .arg(dir.join("farm.db"))
            .arg("--data")
            .arg(dir.join("data"))
            .args(extra)
            .env_remove("XQFARM_TOKEN")
            .stderr(Stdio::piped())
            .spawn()
            .expect("xqfarm serve starts");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let mut line = String::new();
        stderr.read_line(&mut line).expect("serve says where it listens");
        assert!(line.contains("TLS: https://"), "serve says it speaks TLS: {line}");
        let addr = line
            .strip_prefix("xqfarm coordinator on ")
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in `{line}`"))
            .to_owned();
        ServeProcess { child, addr, _stderr: stderr }
    }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn xqfarm(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xqfarm")).args(args).env_remove("XQFARM_TOKEN").output().expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn serve_with_tls_and_a_token_file_from_the_command_line() {
    let pki = Pki::new();
    let tokens = pki.path("tokens.txt");
    let tokens_arg = tokens.to_str().expect("utf-8 path");
    let mint = |role: &str, label: &str| {
        let (code, out, err) = xqfarm(&["token", "new", "--role", role, "--label", label, "--file", tokens_arg]);
        assert_eq!(code, Some(0), "{err}");
        out.trim().to_owned()
    };
    let reader = mint("read-only", "dash");
    let worker = mint("worker", "box");
    let stored = std::fs::read_to_string(&tokens).expect("token file");
    assert!(!stored.contains(&reader) && !stored.contains(&worker), "the file stores hashes only");

    let (cert, key, ca) = (pki.path("server.pem"), pki.path("server.key"), pki.path("ca.pem"));
    let (cert, key, ca) = (cert.to_str().expect("path"), key.to_str().expect("path"), ca.to_str().expect("path"));
    let serve =
        ServeProcess::start(pki.dir.path(), &["--token-file", tokens_arg, "--tls-cert", cert, "--tls-key", key]);
    let port = serve.addr.rsplit(':').next().expect("port");
    let https = format!("https://localhost:{port}");

    let (code, out, err) = xqfarm(&["run", "list", "--coordinator", &https, "--ca-cert", ca, "--token", &reader]);
    assert_eq!(code, Some(0), "read-only lists runs over TLS: {out}{err}");
    let (code, _, err) = xqfarm(&["run", "list", "--coordinator", &https, "--ca-cert", ca, "--token", &worker]);
    assert_eq!(code, Some(2));
    assert!(err.contains("ListRuns needs a read-only token"), "{err}");

    // The JSON API on the same TLS port, as `xqfarm sprt` reads a run's games (web::client).
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let api = web::client::ApiClient::of(&https, &reader, Some(&pki.path("ca.pem"))).expect("an https client");
    let runs = rt.block_on(api.get("/api/runs")).expect("the runs list over TLS");
    assert!(runs.contains("\"total\":0") && runs.contains("\"runs\":[]"), "{runs}");
    let other = web::client::ApiClient::of(&https, &reader, Some(&pki.path("other-ca.pem"))).expect("a client");
    let err = rt.block_on(other.get("/api/runs")).expect_err("a certificate another CA signed").to_string();
    assert!(err.contains("TLS with localhost") && err.contains("certificate"), "{err}");

    let started = Instant::now();
    let http = format!("http://127.0.0.1:{port}");
    let (code, _, err) = xqfarm(&["run", "list", "--coordinator", &http, "--token", &reader]);
    assert_eq!(code, Some(2));
    assert!(err.contains("speaks TLS"), "{err}");
    assert!(started.elapsed() < PROMPT, "{:?}", started.elapsed());
    drop(serve);

    // Bad files are refused at start, named, before anything is served.
    std::fs::write(&tokens, format!("{stored}user plain-text-token\n")).expect("write");
    let db = pki.path("farm.db");
    let db = db.to_str().expect("path");
    let (code, _, err) = xqfarm(&["serve", "--listen", "127.0.0.1:0", "--db", db, "--token-file", tokens_arg]);
    assert_eq!(code, Some(2));
    let line = stored.lines().count() + 1;
    assert!(err.contains(&format!("tokens.txt line {line}")) && err.contains("not a hash"), "{err}");
    let stray = pki.path("stray.key");
    let stray = stray.to_str().expect("path");
    let (code, _, err) = xqfarm(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--db",
        db,
        "--token",
        "t",
        "--tls-cert",
        cert,
        "--tls-key",
        stray,
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("stray.key"), "{err}");
}

/// What TLS costs a small unary call (printed, not asserted):
/// `cargo test --release -p xqfarm --test it -- --ignored --nocapture tls_cost`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, not a test"]
async fn tls_cost() {
    let pki = Pki::new();
    let tls =
        Served::in_memory_with(Security { access: Access::single_token("secret"), tls: Some(pki.server_tls()) }).await;
    let plain = Served::in_memory_with(Security::single_token("secret")).await;
    let ca = pki.path("ca.pem");
    let calls_each = 2_000;
    let clients = 8;
    for (name, url, ca) in [
        ("plaintext", format!("http://127.0.0.1:{}", plain.addr.port()), None),
        ("TLS", format!("https://localhost:{}", tls.addr.port()), Some(ca.as_path())),
    ] {
        let c = client(&url, ca, "secret").await;
        let started = Instant::now();
        let tasks: Vec<_> = (0..clients)
            .map(|_| {
                let mut c = c.clone();
                tokio::spawn(async move {
                    for _ in 0..calls_each {
                        c.list_runs(list()).await.expect("list");
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.expect("task");
        }
        let secs = started.elapsed().as_secs_f64();
        println!(
            "{name}: {:.0} ListRuns calls/s ({clients} clients on one channel)",
            (clients * calls_each) as f64 / secs
        );
    }
    tls.stop().await;
    plain.stop().await;
}
