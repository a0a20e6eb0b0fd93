//! `xqfarm sprt`: an SPRT between two sides — engine binaries (`--engine new=PATH`, as
//! fastchess and cutechess-cli take them), parameter sets or networks of our engine — on the
//! embedded farm (coordinator and a local worker in this process, over loopback gRPC) or on
//! `--coordinator URL`, with a live progress line, a final summary, and what a CI job reads:
//! an exit code (0 H1, 1 H0, 2 error, 3 no verdict within the caps), `--json`, `--markdown`
//! (and `$GITHUB_STEP_SUMMARY`) and `--pgn`.
//!
//! ```text
//! xqfarm sprt --engine new=./new/xqengine --engine base=./base/xqengine --tc 8+0.08 \
//!     --openings book.epd --elo0 0 --elo1 5 --json sprt.json --pgn games.pgn
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use campaign::failures::{FailureStop, FailureTally};
use campaign::sprt_result::{Ending, ResultInput, Side, SprtResult};
use campaign::{Farm as _, RemoteFarm};
use clap::Args;
use engine::notation::Notation;
use engine::{EvalSpec, ParamSet};
use proto::client::{FarmClient, RetryPolicy};
use proto::domain::{
    Adjudication, EloModel, EngineProtocol, RunId, RunSpec, RunState, RunStatus, SprtSettings, TimeControl, VariantId,
};
use web::client::ApiClient;
use worker::engines::{EngineDef, EngineSet, detect_protocol, sha256_of};
use worker::external::ExternalConfig;
use worker::opening_files::{OpeningFormat, shuffle};

pub use campaign::sprt_spec;
pub use campaign::text::{progress_line, summary};

use crate::args::{ENGINE_VERSION, name_of};
use crate::farm_target::FarmTarget;
use crate::match_side::SideSpec;
use crate::progress::Progress;

#[derive(Args, Debug, Clone)]
pub struct SprtArgs {
    /// The candidate: `engine:NAME` (an --engine), a parameter file, `default`,
    /// `material-only` or `nnue:FILE` (a network with default search parameters). Without it:
    /// the first --engine.
    #[arg(long)]
    pub candidate: Option<String>,
    /// The base, named as --candidate. Without it: the second --engine.
    #[arg(long)]
    pub base: Option<String>,
    /// An engine binary a side may name as `engine:NAME`: NAME=PATH (repeatable). It must be
    /// executable and complete its handshake.
    #[arg(long = "engine", value_name = "NAME=PATH")]
    pub engines: Vec<String>,
    /// An option of one engine, NAME:OPTION=VALUE (repeatable), e.g. `new:Hash=16`; one the
    /// engine does not advertise, or a value outside its range, is refused before any game.
    #[arg(long = "option", value_name = "NAME:OPTION=VALUE")]
    pub options: Vec<String>,
    /// The protocol of one engine, NAME:uci or NAME:ucci (repeatable). Without it the protocol
    /// is detected: UCI, else UCCI (a UCCI-only engine first costs the UCI handshake's 10 s).
    #[arg(long = "protocol", value_name = "NAME:PROTOCOL")]
    pub protocols: Vec<String>,
    /// Check an engine's build before playing, as OpenBench does: NAME:SIGNATURE runs
    /// `PATH bench` and refuses to start unless it prints this node count (repeatable).
    #[arg(long = "bench", value_name = "NAME:SIGNATURE")]
    pub benches: Vec<String>,
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
    /// Openings: a suite file, an EPD/FEN file (`.epd`, `.fen`) or a PGN file (`.pgn`: its
    /// games' first --opening-plies plies). The shipped default suite when absent.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// The format of --openings when its extension does not say it: suite, epd or pgn.
    #[arg(long, value_parser = clap::builder::ValueParser::new(|s: &str| s.parse::<OpeningFormat>()))]
    pub openings_format: Option<OpeningFormat>,
    /// Plies of each PGN game that make its opening.
    #[arg(long, default_value_t = 8)]
    pub opening_plies: usize,
    /// Shuffle the openings by this seed (the file's order when absent); the same seed plays
    /// the same openings in the same order.
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub adjudication: AdjudicationArgs,
    /// Stop without a verdict (exit 3) once this many games are played.
    #[arg(long)]
    pub max_games: Option<u64>,
    /// Stop without a verdict (exit 3) after this many minutes.
    #[arg(long)]
    pub max_minutes: Option<f64>,
    /// Write the result as JSON (schema: docs/ci/sprt.schema.json).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write a markdown summary (it also goes to $GITHUB_STEP_SUMMARY when that is set).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Write every game as PGN, players by name.
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<PathBuf>,
    /// The PGN's move notation: wxf, chinese or iccs.
    #[arg(long, default_value = "wxf")]
    pub pgn_notation: String,
    #[command(flatten)]
    pub farm: FarmTarget,
}

/// Resign and draw adjudication, as cutechess-cli's `-resign` and `-draw` (both engines must
/// agree); the defaults are the farm's.
#[derive(Args, Debug, Clone)]
pub struct AdjudicationArgs {
    /// Resign: both engines score the game at least this many centipawns for one side...
    #[arg(long, default_value_t = Adjudication::default().resign_score)]
    pub resign_score: i32,
    /// ...for this many moves in a row each.
    #[arg(long, default_value_t = Adjudication::default().resign_moves)]
    pub resign_moves: u32,
    /// Draw: both engines score the game within this many centipawns of zero...
    #[arg(long, default_value_t = Adjudication::default().draw_score)]
    pub draw_score: i32,
    /// ...for this many moves in a row each...
    #[arg(long, default_value_t = Adjudication::default().draw_moves)]
    pub draw_moves: u32,
    /// ...from this move number on.
    #[arg(long, default_value_t = Adjudication::default().draw_after_move)]
    pub draw_after_move: u32,
    /// No adjudication: games end by the rules (and the farm's ply cap) only.
    #[arg(long)]
    pub no_adjudication: bool,
}

impl AdjudicationArgs {
    fn settings(&self) -> Adjudication {
        if self.no_adjudication {
            return proto::domain::NO_ADJUDICATION;
        }
        Adjudication {
            resign_score: self.resign_score,
            resign_moves: self.resign_moves,
            draw_score: self.draw_score,
            draw_moves: self.draw_moves,
            draw_after_move: self.draw_after_move,
        }
    }
}

/// How the command ended: the ending (and its exit code), the run's last status and the
/// result it wrote.
pub struct Outcome {
    pub ending: Ending,
    pub status: RunStatus,
    pub result: SprtResult,
}

/// `NAME:REST` flags (`--option`, `--protocol`, `--bench`) by engine name; a name that is not
/// an --engine is refused.
fn per_engine<'a>(flag: &str, values: &'a [String], engines: &[EngineDef]) -> Result<Vec<(&'a str, &'a str)>> {
    values
        .iter()
        .map(|value| {
            let (name, rest) = value
                .split_once(':')
                .ok_or_else(|| anyhow!("--{flag} `{value}`: expected ENGINE:..., e.g. new:..."))?;
            if !engines.iter().any(|e| e.name == name) {
                bail!("--{flag} `{value}`: no --engine {name} (give it as --engine {name}=PATH)");
            }
            Ok((name, rest))
        })
        .collect()
}

/// One side as given, with what the result says of it.
struct SideSetup {
    spec: SideSpec,
    side: Side,
}

/// The engines, checked and with their protocols; the sides; refused before anything plays.
fn setup_sides(args: &SprtArgs) -> Result<(EngineSet, SideSetup, SideSetup)> {
    let mut defs = args.engines.iter().map(|flag| flag.parse::<EngineDef>()).collect::<worker::Result<Vec<_>>>()?;
    let protocols = per_engine("protocol", &args.protocols, &defs)?;
    let options = per_engine("option", &args.options, &defs)?;
    let benches = per_engine("bench", &args.benches, &defs)?;
    let config = ExternalConfig::default();
    for def in &mut defs {
        def.protocol = match protocols.iter().rev().find(|(name, _)| *name == def.name) {
            Some((_, p)) => p.parse().map_err(|e| anyhow!("--protocol {}:{p}: {e}", def.name))?,
            None => detect_protocol(def, config)?,
        };
    }
    for (name, signature) in &benches {
        let expected: u64 =
            signature.parse().map_err(|_| anyhow!("--bench {name}:{signature}: the signature is a node count"))?;
        let def = defs.iter().find(|d| d.name == *name).context("checked above")?;
        eprintln!("bench of {name}: running {} bench...", def.path.display());
        let got = worker::engine_bench::bench_signature(def, worker::engine_bench::BENCH_TIMEOUT)?;
        if got != expected {
            bail!("--bench {name}:{expected}: `{} bench` gives {got}: not the build expected", def.path.display());
        }
        eprintln!("bench of {name}: {got}, as expected");
    }
    let engines = EngineSet::check(defs.clone(), config)?;
    let default_side = |index: usize, flag: &str| -> Result<String> {
        defs.get(index).map(|d| format!("engine:{}", d.name)).ok_or_else(|| {
            anyhow!(
                "give --{flag} (engine:NAME, a parameter file, default or nnue:FILE), or a {} --engine",
                ["first", "second"][index]
            )
        })
    };
    let candidate = match &args.candidate {
        Some(spec) => spec.clone(),
        None => default_side(0, "candidate")?,
    };
    let base = match &args.base {
        Some(spec) => spec.clone(),
        None => default_side(1, "base")?,
    };
    let infos = engines.infos();
    let side = |flag: &str, spec: &str| -> Result<SideSetup> {
        let engine = spec.strip_prefix("engine:");
        let protocol =
            defs.iter().find(|d| Some(d.name.as_str()) == engine).map_or(EngineProtocol::Uci, |d| d.protocol);
        let opts: Vec<(String, String)> = options
            .iter()
            .filter(|(name, _)| Some(*name) == engine)
            .map(|(name, rest)| {
                proto::domain::parse_engine_option(rest).map_err(|e| anyhow!("--option {name}:{rest}: {e}"))
            })
            .collect::<Result<_>>()?;
        let parsed = SideSpec::parse(spec, protocol, &opts).with_context(|| format!("--{flag}"))?;
        parsed.check(flag, &engines, 16)?;
        let (name, id_name, sha256) = match engine {
            Some(name) => {
                let info = infos.iter().find(|i| i.name == name);
                (
                    name.to_owned(),
                    info.map(|i| i.id_name.clone()).unwrap_or_default(),
                    info.map(|i| i.sha256.clone()).unwrap_or_default(),
                )
            }
            None => {
                let file = spec.strip_prefix("nnue:").unwrap_or(spec);
                let sha = if Path::new(file).is_file() {
                    sha256_of(Path::new(file)).unwrap_or_default()
                } else {
                    String::new()
                };
                (name_of(spec), String::new(), sha)
            }
        };
        Ok(SideSetup { spec: parsed, side: Side { name, spec: spec.to_owned(), id_name, sha256 } })
    };
    let (candidate, base) = (side("candidate", &candidate)?, side("base", &base)?);
    if candidate.side.name == base.side.name {
        bail!("the candidate and the base are both named `{}`: the games could not tell them apart", base.side.name);
    }
    for (name, _) in &options {
        if ![&candidate.side.spec, &base.side.spec].iter().any(|s| s.strip_prefix("engine:") == Some(*name)) {
            bail!("--option {name}:...: engine {name} plays neither side");
        }
    }
    Ok((engines, candidate, base))
}

/// The variant of a side on the farm.
async fn add_side(farm: &RemoteFarm, setup: &SideSetup) -> Result<VariantId> {
    let name = &setup.side.name;
    Ok(match &setup.spec {
        SideSpec::External(variant) => farm.client().add_variant(variant.spec.clone()).await?.id,
        SideSpec::InProcess { params, network: None, .. } => farm.add_params_variant(name, params).await?,
        SideSpec::InProcess { params, network: Some(_), .. } => {
            let file = setup.side.spec.strip_prefix("nnue:").unwrap_or(&setup.side.spec);
            let bytes = std::fs::read(file).with_context(|| format!("reading {file}"))?;
            let id = farm.add_network(bytes).await?;
            let params = ParamSet { eval_spec: EvalSpec::Nnue(id), ..(**params).clone() };
            farm.add_params_variant(name, &params).await?
        }
    })
}

/// The openings of --openings (or the default suite), shuffled by --seed.
fn openings(args: &SprtArgs) -> Result<Vec<String>> {
    let mut lines = crate::args::opening_file(args.openings.as_deref(), args.openings_format, args.opening_plies)?;
    if let Some(seed) = args.seed {
        shuffle(&mut lines, seed);
    }
    Ok(lines)
}

pub async fn run(args: &SprtArgs) -> Result<Outcome> {
    let started = Instant::now();
    let tc: TimeControl = args.tc.parse().map_err(anyhow::Error::msg)?;
    let sprt = SprtSettings { elo0: args.elo0, elo1: args.elo1, alpha: args.alpha, beta: args.beta, model: args.model };
    let notation: Notation = args.pgn_notation.parse().map_err(|e| anyhow!("--pgn-notation: {e}"))?;
    if notation == Notation::Uci {
        bail!("--pgn-notation: use wxf, chinese or iccs (PGN readers do not know UCI)");
    }
    if let Some(minutes) = args.max_minutes
        && !(minutes > 0.0 && minutes.is_finite())
    {
        bail!("--max-minutes {minutes}: give a positive number of minutes");
    }
    let concurrency =
        args.farm.concurrency.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if args.farm.coordinator.is_none()
        && concurrency > cores
        && matches!(tc, TimeControl::MoveTimeMs(_) | TimeControl::Clock { .. })
    {
        eprintln!(
            "warning: --concurrency {concurrency} on {cores} cores at {tc}: the games share the cores, so each engine \
             gets less time than the time control says and the result is not that of {tc}"
        );
    }
    let (engines, candidate, base) = setup_sides(args)?;
    let lines = openings(args)?;
    for info in engines.infos() {
        eprintln!("engine {}: {} (sha256 {})", info.name, info.id_name, &info.sha256[..info.sha256.len().min(16)]);
    }

    let target = args.farm.open("xqfarm-sprt-", engines).await?;
    let followed = async {
        let client = target.client(args.farm.ca_cert.as_deref()).await?.with_retry(RetryPolicy::FOREVER);
        let farm = RemoteFarm::new(client.clone());
        let cand_v = add_side(&farm, &candidate).await?;
        let base_v = add_side(&farm, &base).await?;
        let suite = farm.add_suite("sprt-openings", lines).await?;
        let name = format!("{} vs {}", candidate.side.name, base.side.name);
        let spec =
            RunSpec { adjudication: args.adjudication.settings(), ..sprt_spec(name, sprt, cand_v, base_v, tc, suite) };
        let run = farm.create_run(spec).await?;
        eprintln!(
            "run {run} created: SPRT[{}, {}] alpha {} beta {} ({}) at {tc}",
            args.elo0,
            args.elo1,
            args.alpha,
            args.beta,
            args.model.as_str()
        );
        let web = ApiClient::of(&target.url, &target.token, args.farm.ca_cert.as_deref())?;
        let deadline = args.max_minutes.map(|m| tokio::time::Instant::now() + Duration::from_secs_f64(m * 60.0));
        let followed = follow(&client, &web, run, args.max_games, deadline).await?;
        if let Some(path) = &args.pgn {
            let text = web.run_pgn(run, notation).await?;
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
        }
        Ok::<_, anyhow::Error>(followed)
    }
    .await;
    let dir = target.dir().map(Path::to_path_buf);
    target.close().await;
    let (ending, status, tally, stop) = followed?;
    if let Some(dir) = &dir {
        let path = dir.join("summary.txt");
        std::fs::write(&path, summary(&status)).with_context(|| format!("writing {}", path.display()))?;
    }
    let result = SprtResult::new(
        &status,
        ResultInput {
            ending,
            failure_stop: stop,
            candidate: candidate.side,
            base: base.side,
            tc,
            sprt,
            failures: &tally,
            minutes: started.elapsed().as_secs_f64() / 60.0,
            xqfarm_version: ENGINE_VERSION.trim_start_matches("xqengine "),
        },
    );
    write_results(args, &result)?;
    Ok(Outcome { ending, status, result })
}

fn write_results(args: &SprtArgs, result: &SprtResult) -> Result<()> {
    if let Some(path) = &args.json {
        std::fs::write(path, result.to_json()).with_context(|| format!("writing {}", path.display()))?;
    }
    let markdown = result.to_markdown();
    if let Some(path) = &args.markdown {
        std::fs::write(path, &markdown).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) {
        use std::io::Write as _;
        let path = PathBuf::from(path);
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("opening $GITHUB_STEP_SUMMARY {}", path.display()))?;
        file.write_all(markdown.as_bytes()).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Counts the run's games from `offset` up to `upto` (the games a status counted) into `tally`;
/// the new offset.
async fn tally_games(api: &ApiClient, run: RunId, mut offset: u64, upto: u64, tally: &mut FailureTally) -> Result<u64> {
    while offset < upto {
        let games = api.run_games(run, offset).await?;
        // Games past `upto` landed after the status that counted `upto` (games in flight when a
        // verdict came among them): the status's statistics do not hold them, so neither does
        // the tally; ids follow commit order, so the first `upto` games are the counted ones.
        for g in games.iter().take(usize::try_from(upto - offset).unwrap_or(usize::MAX)) {
            tally.record(&g.red, &g.black, g.outcome, g.reason);
            offset += 1;
        }
        if (games.len() as u64) < web::client::GAMES_PAGE {
            break;
        }
    }
    Ok(offset)
}

/// Follows the run until a verdict, an engine's failures, the game cap or the deadline; the
/// ending, the last status, the failures counted and the failure that stopped it, if any.
async fn follow(
    client: &FarmClient,
    web: &ApiClient,
    run: RunId,
    max_games: Option<u64>,
    deadline: Option<tokio::time::Instant>,
) -> Result<(Ending, RunStatus, FailureTally, Option<FailureStop>)> {
    let progress = Progress::stderr();
    let mut tally = FailureTally::default();
    let mut counted = 0;
    let expired = async {
        match deadline {
            Some(at) => tokio::time::sleep_until(at).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(expired);
    loop {
        let mut watch = client.watch_run(run).await?;
        loop {
            let next = tokio::select! {
                next = watch.next() => next,
                () = &mut expired => {
                    let status = client.stop_run(run).await?;
                    progress.finish(&progress_line(&status));
                    return Ok((Ending::MaxMinutes, status, tally, None));
                }
            };
            let status = match next {
                Some(Ok(status)) => status,
                Some(Err(error)) => {
                    tracing::warn!(run = %run, %error, "the run's watch broke; watching again");
                    break;
                }
                None => break,
            };
            let games: u64 = status.run.stats.iter().map(|s| s.games()).sum();
            if games > counted {
                counted = tally_games(web, run, counted, games, &mut tally).await?;
            }
            let ending = match status.run.state {
                RunState::SprtDone { h1 } => Some(if h1 { Ending::H1 } else { Ending::H0 }),
                RunState::Active => None,
                ref other => {
                    bail!("run {run} ended without a verdict ({}): stopped from outside?", other.name().as_str())
                }
            };
            if let Some(ending) = ending {
                progress.finish(&progress_line(&status));
                return Ok((ending, status, tally, None));
            }
            if let Some(stop) = tally.stop() {
                let status = client.stop_run(run).await?;
                progress.finish(&progress_line(&status));
                return Ok((Ending::EngineFailures, status, tally, Some(stop)));
            }
            if max_games.is_some_and(|cap| games >= cap) {
                let status = client.stop_run(run).await?;
                progress.finish(&progress_line(&status));
                return Ok((Ending::MaxGames, status, tally, None));
            }
            progress.update(&progress_line(&status));
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Prints the summary and the ending's line; the exit code of the ending.
pub fn report(outcome: &Outcome) -> std::process::ExitCode {
    print!("{}", summary(&outcome.status));
    let failures: BTreeMap<_, _> = outcome.result.failures.iter().filter(|(_, f)| f.total() > 0).collect();
    for (name, f) in failures {
        println!("failures of {name}: {} of {} games ({})", f.total(), f.games, campaign::failures::kinds(f));
    }
    match (&outcome.result.failure_stop, outcome.ending) {
        (Some(stop), _) => eprintln!("error: engine `{}` kept failing: {}", stop.engine, stop.reason),
        (None, ending) => println!("verdict: {}", ending.text()),
    }
    std::process::ExitCode::from(outcome.ending.exit_code())
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
