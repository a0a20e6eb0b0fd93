//! The embedded default: a coordinator on loopback (SQLite file, Parquet directory) inside
//! this process, and local workers that reach it through the same gRPC path as remote ones.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use coordinator::farm::Farm;
use coordinator::{SqliteStorage, Storage, SystemClock};
use tokio::task::JoinHandle;
use worker::client::{WorkerConfig, run_worker};
use worker::identity::{Bench, local_worker_info};

/// A running in-process coordinator.
pub struct Embedded {
    pub url: String,
    /// The web pages, already signed in (`/login?key=...`: a random key of this process,
    /// valid on this server only, so the farm's own token is never printed).
    pub page_url: String,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    server: JoinHandle<()>,
}

impl Embedded {
    /// Serves a farm over `db` and `data` on 127.0.0.1 (a free port).
    pub async fn start(db: &Path, data: &Path, token: &str) -> Result<Embedded> {
        let storage = SqliteStorage::open(db).with_context(|| format!("opening the database {}", db.display()))?;
        Embedded::start_on(Arc::new(storage), data, token).await
    }

    /// Serves a farm over an opened store (SQLite or PostgreSQL) and `data` on 127.0.0.1.
    pub async fn start_on(storage: Arc<dyn Storage>, data: &Path, token: &str) -> Result<Embedded> {
        let farm = Arc::new(
            Farm::new(storage, Arc::new(SystemClock), Some(data.to_owned())).context("starting the coordinator")?,
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.context("binding 127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let (tx, rx) = tokio::sync::oneshot::channel();
        let key = web::auth::random_hex().map_err(|e| anyhow::anyhow!("{}", e.message))?;
        let config = web::WebConfig {
            access: proto::auth::Access::single_token(token),
            public: false,
            login_key: Some(key.clone()),
            engines: worker::engines::EngineSet::empty(),
            play: web::play::PlayConfig::default(),
        };
        let pages = web::router(web::AppState::new(Arc::clone(&farm), config));
        let security = coordinator::server::Security::single_token(token);
        let server = tokio::spawn(async move {
            let shutdown = async {
                let _ = rx.await;
            };
            if let Err(e) = coordinator::server::serve_routes(listener, farm, security, pages, shutdown).await {
                tracing::error!(error = %e, "coordinator stopped");
            }
        });
        Ok(Embedded {
            url: format!("http://{addr}"),
            page_url: format!("http://{addr}/login?key={key}"),
            shutdown: Some(tx),
            server,
        })
    }

    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let _ = (&mut self.server).await;
    }
}

/// The engine version a worker registers: the engine's name and version, and this build's commit.
pub const ENGINE_VERSION: &str = concat!("xqengine ", env!("CARGO_PKG_VERSION"), " ", env!("XQ_GIT_HASH"));

/// Starts a local worker task playing `concurrency` games at once against `url`.
pub fn spawn_worker(
    url: &str,
    token: &str,
    concurrency: usize,
    spool: PathBuf,
    bench: Bench,
) -> JoinHandle<worker::Result<()>> {
    spawn_worker_with(url, token, concurrency, spool, bench, worker::engines::EngineSet::empty())
}

/// [`spawn_worker`] with external engines.
pub fn spawn_worker_with(
    url: &str,
    token: &str,
    concurrency: usize,
    spool: PathBuf,
    bench: Bench,
    engines: worker::engines::EngineSet,
) -> JoinHandle<worker::Result<()>> {
    let cfg = WorkerConfig {
        coordinator: url.to_owned(),
        ca_cert: None,
        token: token.to_owned(),
        name: format!("local-{}", std::process::id()),
        concurrency,
        spool_dir: spool,
        bench_signature: bench.signature,
        max_leases: None,
        idle_exit: None,
        engines,
        tablebases: None,
    };
    let mut info = local_worker_info(&cfg.name, concurrency, bench, ENGINE_VERSION);
    info.engines = cfg.engines.infos();
    tokio::spawn(run_worker(cfg, info))
}
