//! The embedded farm: a coordinator with its web pages and gRPC on one loopback listener
//! inside the calling process (`xqfarm loop`, `xqfarm local`, `--local` runs, the benches), and
//! local workers that reach it through the same gRPC path as remote ones.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use coordinator::farm::Farm;
use coordinator::{SqliteStorage, Storage, SystemClock};
use tokio::task::JoinHandle;
use worker::client::{WorkerConfig, run_worker};
use worker::engines::EngineSet;
use worker::identity::{Bench, local_worker_info};

use crate::{Error, Result};

/// A running in-process coordinator.
pub struct Embedded {
    pub url: String,
    /// The web pages, already signed in (`/login?key=...`: a random key of this process,
    /// valid on this server only, so the farm's own token is never printed).
    pub page_url: String,
    token: String,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    server: JoinHandle<()>,
}

impl std::fmt::Debug for Embedded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The page URL carries the sign-in key and `token` the farm's token: neither is shown.
        f.debug_struct("Embedded").field("url", &self.url).finish_non_exhaustive()
    }
}

impl Embedded {
    /// Serves a farm over the SQLite file `db` and the Parquet directory `data` on 127.0.0.1
    /// (a free port), accepting `token`.
    pub async fn start(db: &Path, data: &Path, token: &str) -> Result<Embedded> {
        let storage =
            SqliteStorage::open(db).map_err(|source| Error::OpenDatabase { path: db.display().to_string(), source })?;
        Embedded::start_on(Arc::new(storage), data, token).await
    }

    /// Serves a farm over an opened store (SQLite or PostgreSQL) and `data` on 127.0.0.1.
    pub async fn start_on(storage: Arc<dyn Storage>, data: &Path, token: &str) -> Result<Embedded> {
        let farm = Arc::new(Farm::new(storage, Arc::new(SystemClock), Some(data.to_owned()))?);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|source| Error::Io { context: "binding 127.0.0.1:0".into(), source })?;
        let addr =
            listener.local_addr().map_err(|source| Error::Io { context: "the listener's address".into(), source })?;
        let (tx, rx) = tokio::sync::oneshot::channel();
        let key = crate::auth::random_hex().map_err(|e| Error::Invalid(e.message))?;
        let config = crate::WebConfig {
            access: proto::auth::Access::single_token(token),
            public: false,
            login_key: Some(key.clone()),
            engines: EngineSet::empty(),
            play: crate::play::PlayConfig::default(),
        };
        let pages = crate::router(crate::AppState::new(Arc::clone(&farm), config));
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
            token: token.to_owned(),
            shutdown: Some(tx),
            server,
        })
    }

    /// Starts a local worker task playing `concurrency` games at once on this farm, spooling
    /// in `spool`, given `engines` (external engines; [`EngineSet::empty`] for none), and
    /// registering `engine_version` (the engine's name, version and build).
    pub fn spawn_worker(
        &self,
        concurrency: usize,
        spool: PathBuf,
        bench: Bench,
        engines: EngineSet,
        engine_version: &str,
    ) -> JoinHandle<worker::Result<()>> {
        let cfg = WorkerConfig {
            coordinator: self.url.clone(),
            ca_cert: None,
            token: self.token.clone(),
            name: format!("local-{}", std::process::id()),
            concurrency,
            spool_dir: spool,
            bench_signature: bench.signature,
            max_leases: None,
            idle_exit: None,
            engines,
            tablebases: None,
        };
        let mut info = local_worker_info(&cfg.name, concurrency, bench, engine_version);
        info.engines = cfg.engines.infos();
        tokio::spawn(run_worker(cfg, info))
    }

    /// Stops serving and waits for the server to end.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let _ = (&mut self.server).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn serves_the_pages_and_grpc_on_one_loopback_port_until_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let emb = Embedded::start(&dir.path().join("farm.db"), &dir.path().join("data"), "t0k").await.unwrap();
        assert!(emb.url.starts_with("http://127.0.0.1:"), "{}", emb.url);
        assert!(emb.page_url.starts_with(&format!("{}/login?key=", emb.url)), "{}", emb.page_url);
        assert!(!format!("{emb:?}").contains("t0k"), "the token is not shown");
        let client = proto::client::FarmClient::connect(&emb.url, None, "t0k", Default::default()).await.unwrap();
        client.register(&worker::loadgen::sim_worker(0)).await.unwrap();
        let addr = emb.url.trim_start_matches("http://").to_owned();
        emb.stop().await;
        assert!(tokio::net::TcpStream::connect(&addr).await.is_err(), "the listener is closed");
    }
}
