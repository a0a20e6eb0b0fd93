//! `xqfarm sprt` and `xqfarm local`: an SPRT between two parameter sets, on the embedded
//! default (coordinator and workers in this process, over loopback gRPC) or on a remote
//! coordinator, with a live progress line and a final summary.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use campaign::{Farm as _, RemoteFarm};
use clap::Args;
use proto::client::{FarmClient, RetryPolicy};
use proto::domain::{EloModel, RunId, RunState, RunStatus, SprtSettings, TimeControl};

pub use campaign::sprt_spec;
pub use campaign::text::{progress_line, summary};

use crate::args::load_params;
use crate::args::{name_of, opening_lines};
use crate::farm_target::FarmTarget;
use crate::progress::Progress;

#[derive(Args, Debug, Clone)]
pub struct SprtArgs {
    /// Base parameters: a TOML file, or `default` / `material-only`.
    #[arg(long)]
    pub base: String,
    /// Candidate parameters: a TOML file, or `default` / `material-only`.
    #[arg(long)]
    pub candidate: String,
    /// H0: the candidate is this many Elo better (or worse, if negative).
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub elo0: f64,
    /// H1: the candidate is this many Elo better.
    #[arg(long, default_value_t = 5.0, allow_hyphen_values = true)]
    pub elo1: f64,
    /// False positive rate.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// False negative rate.
    #[arg(long, default_value_t = 0.05)]
    pub beta: f64,
    /// Elo model of the bounds: normalized (Fishtest's default) or logistic.
    #[arg(long, value_enum, default_value_t = EloModel::Normalized)]
    pub model: EloModel,
    /// Time control: nodes=N, depth=N, movetime=MS or BASE+INC seconds.
    #[arg(long, default_value = "nodes=20000")]
    pub tc: String,
    /// Opening suite (the shipped default suite when absent).
    #[arg(long)]
    pub openings: Option<PathBuf>,
    #[command(flatten)]
    pub farm: FarmTarget,
}

/// The verdict of a finished SPRT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    H1,
    H0,
}

pub async fn run(args: &SprtArgs) -> Result<(Verdict, RunStatus)> {
    let model = args.model;
    let tc: TimeControl = args.tc.parse().map_err(anyhow::Error::msg)?;
    let base = load_params(&args.base)?;
    let candidate = load_params(&args.candidate)?;
    let openings = opening_lines(args.openings.as_deref())?;
    let sprt = SprtSettings { elo0: args.elo0, elo1: args.elo1, alpha: args.alpha, beta: args.beta, model };

    let target = args.farm.open("xqfarm-sprt-", worker::engines::EngineSet::empty()).await?;
    let result = async {
        let client = target.client(args.farm.ca_cert.as_deref()).await?;
        let farm = watching(&client, Progress::stderr());
        let base_v = farm.add_params_variant(&name_of(&args.base), &base).await?;
        let cand_v = farm.add_params_variant(&name_of(&args.candidate), &candidate).await?;
        let suite = farm.add_suite("sprt-openings", openings).await?;
        let name = format!("{} vs {}", name_of(&args.candidate), name_of(&args.base));
        let run = farm.create_run(sprt_spec(name, sprt, cand_v, base_v, tc, suite)).await?;
        eprintln!(
            "run {} created: SPRT[{}, {}] alpha {} beta {} ({:?}) at {tc}",
            run, args.elo0, args.elo1, args.alpha, args.beta, model
        );
        let status = watch(&client, run).await?;
        let verdict = match status.run.state {
            RunState::SprtDone { h1: true } => Verdict::H1,
            RunState::SprtDone { h1: false } => Verdict::H0,
            ref other => bail!("run {run} ended without a verdict ({other:?})"),
        };
        Ok((verdict, status))
    }
    .await;

    let dir = target.dir().map(Path::to_path_buf);
    target.close().await;
    if let (Some(dir), Ok((_, status))) = (dir, &result) {
        write_summary(&dir, status)?;
    }
    result
}

/// The farm of the campaign library over `client`, drawing a progress line for every status
/// it waits through; a long wait outlives a restart of the coordinator.
pub fn watching(client: &FarmClient, progress: Arc<Progress>) -> RemoteFarm {
    watching_with(client, progress, |status| Some(progress_line(status)))
}

/// The farm over `client`, drawing `line(status)` (when it has one) for every status it waits
/// through; the line of a run that ended is the progress's last.
pub fn watching_with(
    client: &FarmClient,
    progress: Arc<Progress>,
    line: impl Fn(&RunStatus) -> Option<String> + Send + Sync + 'static,
) -> RemoteFarm {
    RemoteFarm::new(client.with_retry(RetryPolicy::FOREVER)).observed(Arc::new(move |status: &RunStatus| {
        match (line(status), status.run.state == RunState::Active) {
            (Some(text), true) => progress.update(&text),
            (Some(text), false) => progress.finish(&text),
            (None, true) => {}
            (None, false) => progress.end(),
        }
    }))
}

/// Follows a run until it ends, drawing a progress line; returns its last status.
pub async fn watch(client: &FarmClient, run: RunId) -> Result<RunStatus> {
    Ok(watching(client, Progress::stderr()).wait_finished(run, None).await?)
}

fn write_summary(dir: &Path, status: &RunStatus) -> Result<()> {
    let path = dir.join("summary.txt");
    std::fs::write(&path, summary(status)).with_context(|| format!("writing {}", path.display()))
}
