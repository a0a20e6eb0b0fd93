//! `xqfarm sprt` and `xqfarm local`: an SPRT between two parameter sets, on the embedded
//! default (coordinator and workers in this process, over loopback gRPC) or on a remote
//! coordinator, with a live progress line and a final summary.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args;
use proto::domain::{
    Adjudication, EloModel, OpeningSuiteSpec, OpeningSuiteSummary, RunId, RunKind, RunSpec, RunState, RunStatus,
    SprtSettings, SuiteId, TimeControl, Variant, VariantId, VariantKind, VariantSpec,
};
use proto::pb;
use tokio_stream::StreamExt;

use crate::embedded::{self, Embedded};
use crate::local_match::{DEFAULT_OPENINGS, load_params};
use crate::remote::{self, Client};

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
    /// Games played at once by the local worker (default: all cores).
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Opening suite (the shipped default suite when absent).
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Run on an embedded coordinator with local workers.
    #[arg(long)]
    pub local: bool,
    /// Directory for the embedded coordinator's database and Parquet data (a temporary
    /// directory when absent).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Remote coordinator (without --local), e.g. http://farm:7878.
    #[arg(long)]
    pub coordinator: Option<String>,
    /// Token for the remote coordinator (or XQFARM_TOKEN).
    #[arg(long)]
    pub token: Option<String>,
    /// CA certificate (PEM) that signed an https:// remote coordinator's certificate.
    #[arg(long, conflicts_with = "local")]
    pub ca_cert: Option<PathBuf>,
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

    let mut local = None;
    let (url, token) = if args.local {
        let dir = match &args.dir {
            Some(d) => d.clone(),
            None => tempfile::Builder::new().prefix("xqfarm-sprt-").tempdir()?.keep(),
        };
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let token = format!("local-{:x}", rand_token());
        let emb = Embedded::start(&dir.join("xqfarm.db"), &dir.join("data"), &token).await?;
        let concurrency =
            args.concurrency.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        eprintln!("embedded coordinator at {} (data in {}), {concurrency} local games at once", emb.url, dir.display());
        let signature = embedded::bench_signature();
        let worker = embedded::spawn_worker(&emb.url, &token, concurrency, dir.join("spool"), signature);
        let url = emb.url.clone();
        local = Some((emb, worker, dir));
        (url, token)
    } else {
        let url = args.coordinator.clone().context("without --local, pass --coordinator URL")?;
        (url, remote::token(args.token.clone())?)
    };

    let result = async {
        let mut client = remote::connect_with(&url, &token, args.ca_cert.as_deref()).await?;
        let base_v = add_params_variant(&mut client, &name_of(&args.base), &base.to_toml()).await?;
        let cand_v = add_params_variant(&mut client, &name_of(&args.candidate), &candidate.to_toml()).await?;
        let suite = add_suite(&mut client, "sprt-openings", openings).await?;
        let name = format!("{} vs {}", name_of(&args.candidate), name_of(&args.base));
        let spec = sprt_spec(name, sprt, cand_v.id, base_v.id, tc, suite.id);
        let run = create_run(&mut client, spec).await?;
        eprintln!(
            "run {} created: SPRT[{}, {}] alpha {} beta {} ({:?}) at {tc}",
            run, args.elo0, args.elo1, args.alpha, args.beta, model
        );
        let status = watch(&mut client, run).await?;
        let verdict = match status.run.state {
            RunState::SprtDone { h1: true } => Verdict::H1,
            RunState::SprtDone { h1: false } => Verdict::H0,
            ref other => bail!("run {run} ended without a verdict ({other:?})"),
        };
        Ok((verdict, status))
    }
    .await;

    if let Some((emb, worker, dir)) = local {
        worker.abort();
        emb.stop().await;
        if let Ok((_, status)) = &result {
            write_summary(&dir, status)?;
        }
    }
    result
}

/// The lines of an opening suite file (the shipped default suite when absent), comments and
/// blank lines dropped.
pub fn opening_lines(path: Option<&Path>) -> Result<Vec<String>> {
    let text = match path {
        Some(p) => std::fs::read_to_string(p).with_context(|| format!("reading openings {}", p.display()))?,
        None => DEFAULT_OPENINGS.to_owned(),
    };
    Ok(text.lines().map(|l| l.split('#').next().unwrap_or("").trim().to_owned()).filter(|l| !l.is_empty()).collect())
}

pub fn rand_token() -> u64 {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    t ^ u64::from(std::process::id()).rotate_left(32)
}

pub fn name_of(spec: &str) -> String {
    Path::new(spec).file_stem().map_or_else(|| spec.to_owned(), |s| s.to_string_lossy().into_owned())
}

pub async fn add_params_variant(client: &mut Client, name: &str, toml: &str) -> Result<Variant> {
    let spec = VariantSpec { name: name.to_owned(), kind: VariantKind::Params { toml: toml.to_owned() } };
    let resp =
        client.add_variant(pb::AddVariantRequest::from(spec)).await.map_err(remote::status("adding a variant"))?;
    Variant::try_from(resp.into_inner()).context("reading the added variant")
}

pub async fn add_suite(client: &mut Client, name: &str, openings: Vec<String>) -> Result<OpeningSuiteSummary> {
    let spec = OpeningSuiteSpec { name: name.to_owned(), openings };
    let resp =
        client.add_openings(pb::AddOpeningsRequest::from(spec)).await.map_err(remote::status("adding openings"))?;
    OpeningSuiteSummary::try_from(resp.into_inner()).context("reading the added suite")
}

pub async fn create_run(client: &mut Client, spec: RunSpec) -> Result<RunId> {
    let resp = client.create_run(pb::CreateRunRequest::from(spec)).await.map_err(remote::status("creating the run"))?;
    let run = proto::domain::Run::try_from(resp.into_inner()).context("reading the created run")?;
    Ok(run.id)
}

/// Follows a run until it ends, drawing a progress line; returns its last status.
pub async fn watch(client: &mut Client, run: RunId) -> Result<RunStatus> {
    watch_up_to(client, run, None).await
}

/// [`watch`], stopping the run once it has `max_games` games (when given).
pub async fn watch_up_to(client: &mut Client, run: RunId, max_games: Option<u64>) -> Result<RunStatus> {
    let mut stream = client
        .watch_run(pb::WatchRunRequest::from(run))
        .await
        .map_err(remote::status("watching the run"))?
        .into_inner();
    let mut stopping = false;
    while let Some(item) = stream.next().await {
        let status =
            RunStatus::try_from(item.map_err(remote::status("watching the run"))?).context("reading run status")?;
        eprint!("\r{}   ", progress_line(&status));
        let _ = std::io::stderr().flush();
        if status.run.state != RunState::Active {
            eprintln!();
            return Ok(status);
        }
        let games = status.live.first().map_or(0, |l| l.counts.games());
        if !stopping && max_games.is_some_and(|m| games >= m) {
            stopping = true;
            client.stop_run(pb::StopRunRequest::from(run)).await.map_err(remote::status("stopping the run"))?;
        }
    }
    eprintln!();
    bail!("run {run}: the coordinator closed the stream before the run ended")
}

/// An SPRT of `candidate` against `base` on the suite `openings`, positions sampled every 8 plies.
pub fn sprt_spec(
    name: String,
    sprt: SprtSettings,
    candidate: VariantId,
    base: VariantId,
    tc: TimeControl,
    openings: SuiteId,
) -> RunSpec {
    RunSpec {
        name,
        kind: RunKind::Sprt(sprt),
        variants: vec![candidate, base],
        tc,
        openings,
        adjudication: Adjudication::default(),
        bench_signature: None,
        sample_every: 8,
    }
}

pub fn progress_line(status: &RunStatus) -> String {
    let Some(l) = status.live.first() else {
        return format!("run {}: no statistics", status.run.id);
    };
    let c = &l.counts;
    let mut line = format!(
        "games {} W {} D {} L {} ptnml {:?} Elo {:+.1} +- {:.1} nElo {:+.1}",
        c.games(),
        c.wins,
        c.draws,
        c.losses,
        c.pentanomial,
        l.elo,
        (l.elo_upper - l.elo_lower) / 2.0,
        l.nelo
    );
    if let Some(s) = &l.sprt {
        line.push_str(&format!(" LLR {:.2} ({:.2}, {:.2})", s.llr, s.lower_bound, s.upper_bound));
    }
    line
}

pub fn summary(status: &RunStatus) -> String {
    let mut out = String::new();
    out.push_str(&format!("run {}: {}\n", status.run.id, status.run.spec.name));
    out.push_str(&format!("state: {:?}\n", status.run.state));
    for engine in &status.missing_engines {
        out.push_str(&format!(
            "waiting: no connected worker has engine `{engine}` (with the binary the run pinned, if any)\n"
        ));
    }
    if let Some(l) = status.live.first() {
        let c = &l.counts;
        out.push_str(&format!(
            "games: {}  W {}  D {}  L {} (candidate's view)\n",
            c.games(),
            c.wins,
            c.draws,
            c.losses
        ));
        out.push_str(&format!("pentanomial: {:?}\n", c.pentanomial));
        out.push_str(&format!("elo: {:+.2} [{:+.2}, {:+.2}]\n", l.elo, l.elo_lower, l.elo_upper));
        out.push_str(&format!("nelo: {:+.2} [{:+.2}, {:+.2}]\n", l.nelo, l.nelo_lower, l.nelo_upper));
        out.push_str(&format!("los: {:.2}%\n", 100.0 * l.los));
        if let Some(s) = &l.sprt {
            out.push_str(&format!("llr: {:.3} ({:.3}, {:.3})\n", s.llr, s.lower_bound, s.upper_bound));
        }
    }
    out
}

fn write_summary(dir: &Path, status: &RunStatus) -> Result<()> {
    let path = dir.join("summary.txt");
    std::fs::write(&path, summary(status)).with_context(|| format!("writing {}", path.display()))
}
