//! What the campaign needs of a farm, and the real one over the typed client.

use std::sync::Arc;

use engine::ParamSet;
use engine::nnue::NetworkId;
use proto::client::{FarmClient, retry};
use proto::domain::{
    OpeningSuiteSpec, RunFilter, RunId, RunSpec, RunState, RunStatus, SuiteId, VariantId, VariantKind, VariantSpec,
};

use crate::error::{Error, Result};

/// A farm as the campaign drives it. The campaign awaits these one at a time on the caller's
/// task, so the futures need not be `Send`.
#[allow(async_fn_in_trait)]
pub trait Farm {
    /// Adds (or finds: variants are named by content) the in-process engine with `params`.
    async fn add_params_variant(&self, name: &str, params: &ParamSet) -> Result<VariantId>;
    async fn add_suite(&self, name: &str, openings: Vec<String>) -> Result<SuiteId>;
    /// Stores a network file (or finds it: networks are named by their SHA-256): its id.
    async fn add_network(&self, bytes: Vec<u8>) -> Result<NetworkId>;
    async fn create_run(&self, spec: RunSpec) -> Result<RunId>;
    /// The newest run of exactly `spec`, if the farm has one (how a campaign resumes).
    async fn find_run(&self, spec: &RunSpec) -> Result<Option<RunId>>;
    /// Waits until the run is over, stopping it once it has `max_games` games (when given):
    /// its final status.
    async fn wait_finished(&self, run: RunId, max_games: Option<u64>) -> Result<RunStatus>;
    /// Waits until at least `games` of the run's games are in the farm's Parquet data.
    async fn wait_exported(&self, run: RunId, games: u64) -> Result<()>;
}

/// Called with every status a wait sees (a progress line, say).
pub type StatusObserver = Arc<dyn Fn(&RunStatus) + Send + Sync>;

/// The farm behind a coordinator, over [`FarmClient`]: the waits follow the run's WatchRun
/// stream (woken by the coordinator's statistics and its "exported up to game N" progress),
/// never polling, and a stream that breaks for a transient reason is opened again.
#[derive(Clone)]
pub struct RemoteFarm {
    client: FarmClient,
    observer: Option<StatusObserver>,
}

impl std::fmt::Debug for RemoteFarm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteFarm").field("url", &self.client.url()).finish_non_exhaustive()
    }
}

impl RemoteFarm {
    pub fn new(client: FarmClient) -> RemoteFarm {
        RemoteFarm { client, observer: None }
    }

    /// Shows every status the waits see to `observer`.
    pub fn observed(self, observer: StatusObserver) -> RemoteFarm {
        RemoteFarm { observer: Some(observer), ..self }
    }

    pub fn client(&self) -> &FarmClient {
        &self.client
    }

    fn observe(&self, status: &RunStatus) {
        if let Some(observer) = &self.observer {
            observer(status);
        }
    }
}

/// The games a run has played (its first pairing's: the campaign's runs have one).
pub fn games(status: &RunStatus) -> u64 {
    status.live.first().map_or(0, |l| l.counts.games())
}

impl Farm for RemoteFarm {
    async fn add_params_variant(&self, name: &str, params: &ParamSet) -> Result<VariantId> {
        let spec = VariantSpec { name: name.to_owned(), kind: VariantKind::Params { toml: params.to_toml() } };
        Ok(self.client.add_variant(spec).await?.id)
    }

    async fn add_suite(&self, name: &str, openings: Vec<String>) -> Result<SuiteId> {
        Ok(self.client.add_openings(OpeningSuiteSpec { name: name.to_owned(), openings }).await?.id)
    }

    async fn add_network(&self, bytes: Vec<u8>) -> Result<NetworkId> {
        Ok(self.client.add_network(&bytes).await?)
    }

    async fn create_run(&self, spec: RunSpec) -> Result<RunId> {
        Ok(self.client.create_run(spec).await?.id)
    }

    async fn find_run(&self, spec: &RunSpec) -> Result<Option<RunId>> {
        let runs = self.client.list_runs(RunFilter { active_only: false, limit: 0 }).await?;
        Ok(runs.iter().filter(|s| s.run.spec == *spec).map(|s| s.run.id).max())
    }

    async fn wait_finished(&self, run: RunId, max_games: Option<u64>) -> Result<RunStatus> {
        let mut stopping = false;
        let mut failures = 0;
        loop {
            let mut watch = self.client.watch_run(run).await?;
            while let Some(next) = watch.next().await {
                let status = match next {
                    Ok(status) => status,
                    Err(error) => {
                        failures += 1;
                        let code = error.code().unwrap_or(tonic_unknown());
                        let Some(wait) = self.client.config().retry.next_delay(failures, code, retry::jitter()) else {
                            return Err(error.into());
                        };
                        tracing::warn!(run = %run, %error, retry_in = ?wait, "the run's watch broke; watching again");
                        tokio::time::sleep(wait).await;
                        break;
                    }
                };
                failures = 0;
                self.observe(&status);
                if status.run.state != RunState::Active {
                    return Ok(status);
                }
                if !stopping && max_games.is_some_and(|most| games(&status) >= most) {
                    stopping = true;
                    self.client.stop_run(run).await?;
                }
            }
            if failures == 0 {
                return Err(Error::Run { run, reason: "the coordinator ended the watch before the run ended".into() });
            }
        }
    }

    async fn wait_exported(&self, run: RunId, games: u64) -> Result<()> {
        self.client.wait_exported(run, games).await?;
        Ok(())
    }
}

fn tonic_unknown() -> proto::client::Code {
    proto::client::Code::Unknown
}
