//! Where `xqfarm sprt` and `xqfarm spsa` play: the embedded default (a coordinator and a
//! local worker in this process, over loopback gRPC) or a remote coordinator.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use tokio::task::JoinHandle;

use web::embedded::Embedded;

use crate::args::{ENGINE_VERSION, rand_token};
use crate::remote;

#[derive(Args, Debug, Clone, Default)]
pub struct FarmTarget {
    /// Games played at once by the local worker (default: all cores).
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Run on an embedded coordinator with a local worker (the default without --coordinator).
    #[arg(long, conflicts_with = "coordinator")]
    pub local: bool,
    /// Directory for the embedded coordinator's database and Parquet data (a temporary
    /// directory when absent).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// A remote coordinator to run on instead of the embedded one, e.g. http://farm:7878.
    #[arg(long)]
    pub coordinator: Option<String>,
    /// Token for the remote coordinator (or XQFARM_TOKEN).
    #[arg(long)]
    pub token: Option<String>,
    /// CA certificate (PEM) that signed an https:// remote coordinator's certificate.
    #[arg(long, conflicts_with = "local")]
    pub ca_cert: Option<PathBuf>,
}

/// An opened farm: its URL and token, and the embedded coordinator and worker if local.
pub struct Target {
    pub url: String,
    pub token: String,
    local: Option<(Embedded, JoinHandle<worker::Result<()>>, PathBuf)>,
}

impl FarmTarget {
    /// Names the remote coordinator (`--coordinator`), or starts the embedded farm (in `--dir`,
    /// or a temporary directory named `prefix...`) with a local worker given `engines`.
    pub async fn open(&self, prefix: &str, engines: worker::engines::EngineSet) -> Result<Target> {
        if let Some(url) = &self.coordinator {
            return Ok(Target { url: url.clone(), token: remote::token(self.token.clone())?, local: None });
        }
        let dir = match &self.dir {
            Some(d) => d.clone(),
            None => tempfile::Builder::new().prefix(prefix).tempdir()?.keep(),
        };
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let token = format!("local-{:x}", rand_token());
        let emb = Embedded::start(&dir.join("xqfarm.db"), &dir.join("data"), &token).await?;
        let concurrency =
            self.concurrency.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        eprintln!("embedded coordinator at {} (data in {}), {concurrency} local games at once", emb.url, dir.display());
        eprintln!("web pages (signed in): {}", emb.page_url);
        let bench = tokio::task::spawn_blocking(move || worker::identity::measure_bench(concurrency)).await??;
        eprintln!("local worker: bench signature {}, {}", bench.signature, bench.speeds());
        let worker = emb.spawn_worker(concurrency, dir.join("spool"), bench, engines, ENGINE_VERSION);
        Ok(Target { url: emb.url.clone(), token, local: Some((emb, worker, dir)) })
    }
}

impl Target {
    /// A client of the farm.
    pub async fn client(&self, ca_cert: Option<&Path>) -> Result<proto::client::FarmClient> {
        remote::connect(&self.url, &self.token, ca_cert).await
    }

    /// The embedded farm's directory; `None` for a remote coordinator.
    pub fn dir(&self) -> Option<&Path> {
        self.local.as_ref().map(|(_, _, dir)| dir.as_path())
    }

    /// Stops the embedded coordinator and worker (nothing for a remote one).
    pub async fn close(self) {
        if let Some((emb, worker, _)) = self.local {
            worker.abort();
            emb.stop().await;
        }
    }
}
