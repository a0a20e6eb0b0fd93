//! The farm's speed figures, measured against an embedded farm ([`crate::embedded`]) on
//! loopback with simulated workers ([`worker::loadgen`]) that submit legal 120-ply games the
//! coordinator's referee replays:
//! - [`rpc`]: lease + submit round trips per second, and the referee's own cost per game
//!   (`xqfarm bench rpc`);
//! - [`api`]: the Run page's API latency with a large run, and the CPU cost of many open event
//!   streams (`xqfarm bench web`).
//!
//! Each returns its figures; printing them is the caller's.

pub mod api;
pub mod cpu;
pub mod http;
pub mod rpc;

use proto::client::{ClientConfig, FarmClient};
use proto::domain::{OpeningSuiteSpec, RunId, RunKind, RunSpec, VariantKind, VariantSpec};

use crate::Result;

/// The token of a bench's embedded farm.
const TOKEN: &str = "bench";

/// A client of the bench's farm at `url`.
async fn connect(url: &str) -> Result<FarmClient> {
    Ok(FarmClient::connect(url, None, TOKEN, ClientConfig::default()).await?)
}

/// Creates the bench's run, `name`, of `kind`: two variants with the default parameters
/// (`a`, `b`) from the start position at the simulated workers' time control.
async fn create_run(client: &FarmClient, name: &str, kind: RunKind) -> Result<RunId> {
    let toml = engine::eval::Params::default().to_toml();
    let mut ids = Vec::new();
    for name in ["a", "b"] {
        let spec = VariantSpec { name: name.into(), kind: VariantKind::Params { toml: toml.clone() } };
        ids.push(client.add_variant(spec).await?.id);
    }
    let suite = client.add_openings(OpeningSuiteSpec { name: "s".into(), openings: vec!["startpos".into()] }).await?;
    let spec = RunSpec {
        name: name.into(),
        kind,
        variants: ids,
        tc: worker::loadgen::bench_tc(),
        openings: suite.id,
        adjudication: proto::domain::Adjudication::default(),
        bench_signature: None,
        sample_every: 0,
    };
    Ok(client.create_run(spec).await?.id)
}

/// A simulated worker's task that panicked or was cancelled.
fn joined<T>(what: &str, r: std::result::Result<Result<T>, tokio::task::JoinError>) -> Result<T> {
    r.map_err(|e| crate::Error::Bench(format!("{what}: {e}")))?
}
