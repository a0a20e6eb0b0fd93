//! `xqfarm spsa`: tunes a variant's parameters with Fishtest's SPSA on the embedded default
//! (coordinator and a local worker in this process) or on a remote coordinator, with a live
//! progress line; then the tuned values become a new variant, and `--verify` runs an SPRT of
//! it against the base.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use campaign::spsa::{SpsaBase, check_in_process};
use campaign::{Farm as _, RemoteFarm};
use clap::Args;
use proto::client::FarmClient;
use proto::domain::{
    Adjudication, EloModel, EngineProtocol, RunKind, RunSpec, RunState, RunStatus, SprtSettings, SpsaParam,
    SpsaSettings, TimeControl, VariantId, parse_spsa_lines,
};

use crate::args::{load_params, name_of, opening_lines};
use crate::farm_target::FarmTarget;
use crate::progress::Progress;
use crate::sprt::{sprt_spec, summary};

#[derive(Args, Debug, Clone)]
pub struct SpsaArgs {
    /// The variant to tune: a parameter file, `default`, or `engine:NAME` (an external engine
    /// the workers were given as NAME; locally, give it with `--engine NAME=PATH`).
    #[arg(long)]
    pub base: String,
    /// The parameters, one `name,start,min,max,c_end,r_end` a line (`xqengine params --spsa`
    /// prints the search parameters so).
    #[arg(long)]
    pub params: PathBuf,
    /// Games to play (two per SPSA iteration).
    #[arg(long)]
    pub games: u64,
    /// Time control: nodes=N, depth=N, movetime=MS or BASE+INC seconds.
    #[arg(long, default_value = "nodes=2000")]
    pub tc: String,
    /// Run name.
    #[arg(long)]
    pub name: Option<String>,
    /// Protocol of an `engine:NAME` base.
    #[arg(long, value_enum, default_value_t = EngineProtocol::Uci)]
    pub protocol: EngineProtocol,
    /// Options NAME=VALUE of an `engine:NAME` base, set before the tuned ones.
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = proto::domain::parse_engine_option)]
    pub options: Vec<(String, String)>,
    /// Local external engines NAME=PATH (with --local).
    #[arg(long = "engine")]
    pub engines: Vec<String>,
    /// Where to write the tuned parameter file (in-process bases; default: `<dir>/tuned.toml`
    /// locally, nothing remotely).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// After the tune, an SPRT of the tuned variant against the base.
    #[arg(long)]
    pub verify: bool,
    /// SPRT bounds of `--verify` (normalized Elo), alpha = beta = 0.05.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub verify_elo0: f64,
    #[arg(long, default_value_t = 5.0, allow_hyphen_values = true)]
    pub verify_elo1: f64,
    /// Stop `--verify` after this many games without a verdict (not verified).
    #[arg(long, default_value_t = 20_000)]
    pub verify_max_games: u64,
    /// Openings: a suite file, an EPD/FEN file (`.epd`, `.fen`) or a PGN file (`.pgn`, its
    /// games' first 8 plies); the shipped default suite when absent.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    #[command(flatten)]
    pub farm: FarmTarget,
}

/// Reads an SPSA input file; a bad line is an error naming the file and the line.
pub fn read_spsa_file(path: &Path) -> Result<Vec<SpsaParam>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    parse_spsa_lines(&text).with_context(|| format!("{}", path.display()))
}

pub async fn run(args: &SpsaArgs) -> Result<()> {
    let tc: TimeControl = args.tc.parse().map_err(anyhow::Error::msg)?;
    let params = read_spsa_file(&args.params)?;
    if args.games < 2 {
        bail!("--games {}: an SPSA run plays at least one pair (2 games)", args.games);
    }
    let base = match args.base.strip_prefix("engine:") {
        Some(engine) => {
            proto::domain::check_engine_name(engine).map_err(|e| anyhow::anyhow!("--base `{}`: {e}", args.base))?;
            SpsaBase::External { engine: engine.to_owned(), protocol: args.protocol, options: args.options.clone() }
        }
        None => {
            let set = load_params(&args.base)?;
            check_in_process(&params, &set).with_context(|| format!("checking {}", args.params.display()))?;
            SpsaBase::InProcess(Box::new(set))
        }
    };
    let settings = SpsaSettings { pairs: args.games / 2, params };
    settings.validate().map_err(|e| anyhow::anyhow!("{}: {e}", args.params.display()))?;
    let base_name = name_of(&args.base);
    let run_name = args.name.clone().unwrap_or_else(|| format!("spsa {base_name}"));
    let openings = opening_lines(args.openings.as_deref())?;

    let defs =
        args.engines.iter().map(|e| e.parse::<worker::engines::EngineDef>()).collect::<worker::Result<Vec<_>>>()?;
    let engines = if args.farm.local {
        tokio::task::spawn_blocking(move || {
            worker::engines::EngineSet::check(defs, worker::external::ExternalConfig::default())
        })
        .await??
    } else {
        worker::engines::EngineSet::empty()
    };
    if args.farm.local && matches!(base, SpsaBase::External { .. }) {
        // Every tuned parameter must be a spin option the engine advertises, its range inside
        // the option's: checked with a handshake now, not found out game by game.
        let variant = proto::domain::Variant { id: VariantId::new("spsa-base"), spec: base.spec(&base_name) };
        let ranges: Vec<(String, f64, f64)> = settings.params.iter().map(|p| (p.name.clone(), p.min, p.max)).collect();
        let engines = engines.clone();
        tokio::task::spawn_blocking(move || engines.check_spin_ranges(&variant, &ranges))
            .await?
            .with_context(|| format!("checking {} against --base {}", args.params.display(), args.base))?;
    }
    let target = args.farm.open("xqfarm-spsa-", engines).await?;
    let out = args.out.clone().or_else(|| target.dir().map(|dir| dir.join("tuned.toml")));

    let result = async {
        let client = target.client(args.farm.ca_cert.as_deref()).await?;
        let base_v = client.add_variant(base.spec(&base_name)).await?.id;
        let farm = watching(&client, settings.pairs * 2);
        let suite = farm.add_suite("spsa-openings", openings).await?;
        let spec = RunSpec {
            name: run_name.clone(),
            kind: RunKind::Spsa(settings.clone()),
            variants: vec![base_v.clone()],
            tc,
            openings: suite,
            adjudication: Adjudication::default(),
            bench_signature: None,
            sample_every: 0,
        };
        let run = farm.create_run(spec).await?;
        eprintln!(
            "run {run} created: SPSA of {} parameters over {} pairs at {tc}",
            settings.params.len(),
            settings.pairs
        );
        let status = farm.wait_finished(run, None).await?;
        println!("{}", summary(&status));
        let tuned = base.tuned(&status.spsa)?;
        let tuned_name = format!("{base_name}-spsa{run}");
        let tuned_v = client.add_variant(tuned.spec(&tuned_name)).await?.id;
        println!("tuned variant `{tuned_name}`: {tuned_v}");
        if let (SpsaBase::InProcess(set), Some(path)) = (&tuned, &out) {
            std::fs::write(path, set.to_toml()).with_context(|| format!("writing {}", path.display()))?;
            println!("tuned parameters written to {}", path.display());
        }
        if args.verify {
            verify(&client, &farm, args, tuned_v, base_v, tc, suite, &tuned_name, &base_name).await?;
        }
        Ok::<_, anyhow::Error>(())
    }
    .await;

    target.close().await;
    result
}

#[allow(clippy::too_many_arguments)]
async fn verify(
    client: &FarmClient,
    farm: &RemoteFarm,
    args: &SpsaArgs,
    tuned: VariantId,
    base: VariantId,
    tc: TimeControl,
    suite: proto::domain::SuiteId,
    tuned_name: &str,
    base_name: &str,
) -> Result<()> {
    let sprt = SprtSettings {
        elo0: args.verify_elo0,
        elo1: args.verify_elo1,
        alpha: 0.05,
        beta: 0.05,
        model: EloModel::Normalized,
    };
    let name = format!("{tuned_name} vs {base_name}");
    let run = farm.create_run(sprt_spec(name, sprt, tuned, base, tc, suite)).await?;
    eprintln!("verify: SPRT[{}, {}] run {run} of {tuned_name} against {base_name} at {tc}", sprt.elo0, sprt.elo1);
    let status =
        crate::sprt::watching(client, Progress::stderr()).wait_finished(run, Some(args.verify_max_games)).await?;
    println!("{}", summary(&status));
    match status.run.state {
        RunState::SprtDone { h1: true } => println!("verified: H1 accepted"),
        RunState::SprtDone { h1: false } => println!("not verified: H0 accepted"),
        _ => println!("not verified: no verdict within {} games", args.verify_max_games),
    }
    Ok(())
}

/// One progress line: games played of the total and the first parameters' values.
pub fn spsa_progress(status: &RunStatus, total_games: u64) -> String {
    let games = status.live.first().map_or(0, |l| l.counts.games());
    let mut line = format!("spsa {games}/{total_games} games");
    for v in status.spsa.iter().take(4) {
        line.push_str(&format!("  {}={:.2}", v.name, v.value));
    }
    if status.spsa.len() > 4 {
        line.push_str(&format!("  (+{} more)", status.spsa.len() - 4));
    }
    line
}

fn watching(client: &FarmClient, total_games: u64) -> RemoteFarm {
    crate::sprt::watching_with(client, Progress::stderr(), move |status| Some(spsa_progress(status, total_games)))
}
