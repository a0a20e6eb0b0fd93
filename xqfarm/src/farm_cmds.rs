//! The farm's service commands: `serve`, `worker`, and the user commands against a
//! coordinator (`run`, `variant`, `openings add`).

use std::num::NonZeroU64;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use coordinator::SystemClock;
use coordinator::farm::Farm;
use proto::client::FarmClient;
use proto::domain::{
    EloModel, EngineProtocol, OpeningSuiteSpec, RunFilter, RunId, RunKindName, RunRequest, SuiteId, VariantId,
    VariantKind, VariantSpec,
};
use worker::client::{WorkerConfig, run_worker_until};
use worker::identity;

use crate::args::ENGINE_VERSION;
use crate::remote;
use crate::sprt::{progress_line, summary, watch};

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:7878")]
    listen: String,
    /// The coordinator's state: a SQLite database file (created if missing), or a PostgreSQL
    /// database `postgres://USER:PASSWORD@HOST:PORT/DBNAME` (an empty database, or one an xqfarm
    /// coordinator created; several coordinators may share it). Or XQFARM_DB, which keeps the
    /// password out of the process list.
    #[arg(long, env = "XQFARM_DB", default_value = "xqfarm.db", hide_env_values = true)]
    db: String,
    /// Directory of the Parquet data.
    #[arg(long, default_value = "xqfarm-data")]
    data: PathBuf,
    /// The one token every call must carry, holding every role (or XQFARM_TOKEN).
    #[arg(long, conflicts_with = "token_file")]
    token: Option<String>,
    /// Token file of `<role> sha256:<hash> [label]` lines (roles: worker, user, read-only);
    /// replaces --token and XQFARM_TOKEN. Add tokens with `xqfarm token new`.
    #[arg(long)]
    token_file: Option<PathBuf>,
    /// Serve TLS with this certificate chain (PEM); needs --tls-key.
    #[arg(long, requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// Private key (PEM) of --tls-cert.
    #[arg(long, requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// The web pages' read-only views need no token (writes still need the user role).
    #[arg(long)]
    public: bool,
    /// An external engine the play page may start, NAME=PATH (repeatable; the same allow-list
    /// as the workers': checked at start). In-process variants are always playable.
    #[arg(long = "engine", value_name = "NAME=PATH")]
    engines: Vec<String>,
    /// An engine file (TOML) as the worker's `--engine-file`.
    #[arg(long, value_name = "FILE")]
    engine_file: Option<PathBuf>,
    /// Play sessions open at once on the play page; more get 503.
    #[arg(long, default_value_t = web::play::PlayConfig::default().max_sessions)]
    play_sessions: usize,
    /// Engine searches of the play page running at once.
    #[arg(long, default_value_t = web::play::PlayConfig::default().search_threads)]
    play_threads: usize,
    /// All play-page engines' hash tables together, MiB.
    #[arg(long, default_value_t = web::play::PlayConfig::default().total_hash_mib)]
    play_hash_mib: usize,
    /// Scale time controls to each worker's speed: the bench speed (nodes per second, as
    /// `xqfarm worker` measures it) the runs' move times and clocks are meant for. A worker
    /// measured at another speed gets them multiplied by this / its speed, within 0.25..4
    /// (beyond, the bound, with a warning); nodes and depth are never scaled, nor workers that
    /// did not measure. Without it, every worker plays the runs' time controls as they are.
    #[arg(long, value_name = "NPS", value_parser = positive_nps)]
    reference_nps: Option<NonZeroU64>,
    /// Scale the time controls of runs that play a network (a variant whose parameters say
    /// `eval = "nnue:..."`) to each worker's speed with a network: the speed with a network
    /// (nodes per second, as `xqfarm worker` measures it at start) their move times and clocks
    /// are meant for, used as --reference-nps is. Without it, or for a worker that did not
    /// measure one, such runs are not scaled (never by the HCE's speed, which is not the
    /// network's).
    #[arg(long, value_name = "NPS", value_parser = positive_nps)]
    reference_nnue_nps: Option<NonZeroU64>,
    /// Endgame tables (`xqfarm tb generate`) the referee checks `tablebase` endings against;
    /// give workers the same tables. Without it such an ending is refused.
    #[arg(long, value_name = "DIR")]
    tablebases: Option<PathBuf>,
    /// An opening book (`xqfarm book build`) whose moves the play page shows.
    #[arg(long, value_name = "BOOK")]
    book: Option<PathBuf>,
    /// Also serve the Prometheus metrics (`/metrics`) on this address, without a token (on the
    /// farm's port they need a token with the read-only role).
    #[arg(long, value_name = "ADDR")]
    metrics_listen: Option<String>,
}

/// A speed in nodes per second given on the command line: a positive whole number (0 is what a
/// worker that did not measure reports, never a speed).
fn positive_nps(text: &str) -> std::result::Result<NonZeroU64, String> {
    let nps: u64 = text.trim().parse().map_err(|_| format!("`{text}` is not a whole number of nodes per second"))?;
    NonZeroU64::new(nps).ok_or_else(|| "must be positive: 0 nodes per second is no speed".to_owned())
}

/// The tokens and TLS of `serve`, every file checked before the port is bound.
fn security(args: &ServeArgs) -> Result<coordinator::server::Security> {
    let access = match &args.token_file {
        Some(path) => proto::auth::Access::from_token_file(path)?,
        None => proto::auth::Access::single_token(&remote::token(args.token.clone())?),
    };
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(proto::tls::server_config(cert, key)?),
        _ => None,
    };
    Ok(coordinator::server::Security { access, tls })
}

pub async fn serve(args: ServeArgs) -> Result<()> {
    // SIGTERM (Kubernetes, systemd) or SIGINT: stop serving, export what was recorded, exit.
    let stop = stop_signal()?;
    let security = security(&args)?;
    let storage = coordinator::storage::open(&args.db).context("opening the coordinator's database (--db)")?;
    let farm = Arc::new(
        Farm::new(storage, Arc::new(SystemClock), Some(args.data.clone()))?
            .with_reference_nps(args.reference_nps)
            .with_reference_nnue_nps(args.reference_nnue_nps)
            .with_tablebases(tablebases(args.tablebases.as_deref())?),
    );
    let listener =
        tokio::net::TcpListener::bind(&args.listen).await.with_context(|| format!("binding {}", args.listen))?;
    eprintln!(
        "xqfarm coordinator on {} ({}, db {}, data {}, {} token{})",
        listener.local_addr()?,
        if security.tls.is_some() { "TLS: https://" } else { "plaintext: http://" },
        coordinator::storage::describe(&args.db),
        args.data.display(),
        security.access.len(),
        if security.access.len() == 1 { "" } else { "s" }
    );
    match args.reference_nps {
        Some(nps) => eprintln!("time controls scaled to each worker's speed against {nps} nps (0.25..4 times)"),
        None => eprintln!("time controls not scaled (no --reference-nps)"),
    }
    match args.reference_nnue_nps {
        Some(nps) => eprintln!("runs that play a network scaled to each worker's speed with one against {nps} nps"),
        None => eprintln!("runs that play a network not scaled (no --reference-nnue-nps)"),
    }
    let engines = checked_engines(&args.engines, args.engine_file.as_deref()).await?;
    let play = web::play::PlayConfig {
        max_sessions: args.play_sessions,
        search_threads: args.play_threads.max(1),
        total_hash_mib: args.play_hash_mib,
        book: match &args.book {
            Some(path) => Some(Arc::new(engine::book::Book::open(path).context("--book")?)),
            None => None,
        },
        ..web::play::PlayConfig::default()
    };
    let config =
        web::WebConfig { access: security.access.clone(), public: args.public, login_key: None, engines, play };
    let web = web::router(web::AppState::new(Arc::clone(&farm), config));
    eprintln!(
        "web pages: {}{}/{}",
        if security.tls.is_some() { "https://" } else { "http://" },
        listener.local_addr()?,
        if args.public { " (public read-only)" } else { " (sign in with a token)" }
    );
    let (stopped_tx, stopped) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        stop.await;
        let _ = stopped_tx.send(true);
    });
    let until_stopped = move || {
        let mut stopped = stopped.clone();
        async move {
            let _ = stopped.wait_for(|s| *s).await;
        }
    };
    let metrics = match &args.metrics_listen {
        Some(addr) => {
            let metrics_listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("--metrics-listen: binding {addr}"))?;
            eprintln!("metrics: http://{}/metrics (no token)", metrics_listener.local_addr()?);
            let farm = Arc::clone(&farm);
            Some(tokio::spawn(web::metrics::serve_open(metrics_listener, farm, until_stopped())))
        }
        None => None,
    };
    coordinator::server::serve_routes(listener, farm, security, web, until_stopped()).await.context("serving")?;
    if let Some(task) = metrics {
        task.await.context("the metrics server task")?.context("serving the metrics")?;
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct WorkerArgs {
    /// Coordinator address, e.g. http://farm:7878 (https:// with --ca-cert).
    #[arg(long)]
    coordinator: String,
    /// Token (or XQFARM_TOKEN).
    #[arg(long)]
    token: Option<String>,
    /// CA certificate (PEM) that signed an https:// coordinator's certificate.
    #[arg(long)]
    ca_cert: Option<PathBuf>,
    /// Games played at once (default: all cores).
    #[arg(long)]
    concurrency: Option<usize>,
    /// Where results wait until the coordinator acknowledges them.
    #[arg(long, default_value = "xqfarm-spool")]
    spool: PathBuf,
    /// Worker name shown in the data (default: host and process id).
    #[arg(long)]
    name: Option<String>,
    /// Stop after this many leases.
    #[arg(long)]
    max_leases: Option<usize>,
    /// Exit (0) after delivering everything once there was no work for this long: 30s, 5m, 1h.
    #[arg(long, value_parser = worker::client::parse_duration)]
    idle_exit: Option<std::time::Duration>,
    /// An external engine this worker may start, NAME=PATH (repeatable); checked at start (an
    /// executable that completes its UCI handshake). Variants name engines by NAME.
    #[arg(long = "engine", value_name = "NAME=PATH")]
    engines: Vec<String>,
    /// An engine file (TOML): `[engines] NAME = "PATH"` and/or `[[engine]]` tables with name,
    /// path, args and protocol; added to the --engine ones.
    #[arg(long, value_name = "FILE")]
    engine_file: Option<PathBuf>,
    /// This machine's bench speed in nodes per second, instead of measuring it at start (for
    /// tests, and for clusters of identical nodes measured once); positive. Without it the worker
    /// runs one bench per game slot at once and reports the mean speed.
    #[arg(long, value_name = "NPS", value_parser = positive_nps)]
    bench_nps: Option<NonZeroU64>,
    /// With --bench-nps: this machine's speed with a network (nodes per second, as a worker
    /// measures it at start); positive. Without it a worker given --bench-nps reports none, and
    /// runs that play a network are not scaled on it.
    #[arg(long, value_name = "NPS", value_parser = positive_nps, requires = "bench_nps")]
    nnue_bench_nps: Option<NonZeroU64>,
    /// Endgame tables (`xqfarm tb generate`): a game that enters one ends with its verdict
    /// (termination `tablebase`). The coordinator needs the same tables (`serve --tablebases`).
    #[arg(long, value_name = "DIR")]
    tablebases: Option<PathBuf>,
}

/// The tables of `--tablebases`, the directory checked at start.
fn tablebases(dir: Option<&std::path::Path>) -> Result<Option<Arc<engine::tablebase::Tablebases>>> {
    let Some(dir) = dir else { return Ok(None) };
    let tables = engine::tablebase::Tablebases::open(dir).context("--tablebases")?;
    Ok(Some(Arc::new(tables)))
}

/// The worker's engines from `--engine` and `--engine-file`, each checked (refused at start,
/// naming the engine and its path).
async fn checked_engines(flags: &[String], file: Option<&std::path::Path>) -> Result<worker::engines::EngineSet> {
    let mut defs = Vec::new();
    if let Some(file) = file {
        defs.extend(worker::engines::read_engine_file(file)?);
    }
    for flag in flags {
        defs.push(flag.parse::<worker::engines::EngineDef>()?);
    }
    if defs.is_empty() {
        return Ok(worker::engines::EngineSet::empty());
    }
    let set = tokio::task::spawn_blocking(move || {
        worker::engines::EngineSet::check(defs, worker::external::ExternalConfig::default())
    })
    .await??;
    for engine in set.infos() {
        eprintln!("engine {}: {} (sha256 {})", engine.name, engine.id_name, engine.sha256);
    }
    Ok(set)
}

pub async fn worker(args: WorkerArgs) -> Result<()> {
    // Before anything slow: a SIGTERM during start-up stops the worker cleanly too.
    let shutdown = stop_signal()?;
    let token = remote::token(args.token)?;
    let concurrency = args.concurrency.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let name = args.name.unwrap_or_else(|| format!("{}-{}", identity::hostname(), std::process::id()));
    let engines = checked_engines(&args.engines, args.engine_file.as_deref()).await?;
    let bench = match args.bench_nps {
        Some(nps) => {
            eprintln!("measuring the bench signature ({nps} nps given)...");
            identity::Bench {
                signature: tokio::task::spawn_blocking(identity::bench_signature).await?,
                nps: nps.get(),
                simd: engine::nnue::SimdLevel::detect(),
                nnue_nps: args.nnue_bench_nps.map_or(0, NonZeroU64::get),
            }
        }
        None => {
            eprintln!(
                "measuring the bench signature and speed, with the HCE and with a network ({concurrency} at once)..."
            );
            tokio::task::spawn_blocking(move || identity::measure_bench(concurrency)).await??
        }
    };
    let cfg = WorkerConfig {
        coordinator: args.coordinator,
        ca_cert: args.ca_cert,
        token,
        name: name.clone(),
        concurrency,
        spool_dir: args.spool,
        bench_signature: bench.signature,
        max_leases: args.max_leases,
        idle_exit: args.idle_exit,
        engines,
        tablebases: tablebases(args.tablebases.as_deref())?,
    };
    eprintln!("worker {name}: {concurrency} games at once, bench signature {}, {}", bench.signature, bench.speeds());
    run_worker_until(cfg, identity::local_worker_info(&name, concurrency, bench, ENGINE_VERSION), shutdown).await?;
    Ok(())
}

/// Resolves on SIGTERM (a cluster preempting the job) or SIGINT.
fn stop_signal() -> Result<impl std::future::Future<Output = ()> + Send + 'static> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).context("listening for SIGTERM")?;
        let mut int = signal(SignalKind::interrupt()).context("listening for SIGINT")?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

#[derive(Args, Debug)]
pub struct Remote {
    /// Coordinator address (https:// with --ca-cert).
    #[arg(long, default_value = "http://127.0.0.1:7878")]
    coordinator: String,
    /// Token (or XQFARM_TOKEN).
    #[arg(long)]
    token: Option<String>,
    /// CA certificate (PEM) that signed an https:// coordinator's certificate.
    #[arg(long)]
    ca_cert: Option<PathBuf>,
}

impl Remote {
    async fn client(&self) -> Result<FarmClient> {
        remote::connect(&self.coordinator, &remote::token(self.token.clone())?, self.ca_cert.as_deref()).await
    }
}

#[derive(Subcommand, Debug)]
pub enum TokenCommand {
    /// Mint a token: appends its hash to the token file and prints the token, once.
    New(TokenNewArgs),
}

#[derive(Args, Debug)]
pub struct TokenNewArgs {
    /// What the token may do: worker, user or read-only.
    #[arg(long)]
    role: proto::auth::Role,
    /// Who holds it (shown in logs and refusals).
    #[arg(long, default_value = "")]
    label: String,
    /// Token file to append to (created, private to its owner, when missing).
    #[arg(long)]
    file: PathBuf,
}

pub fn token_command(cmd: TokenCommand) -> Result<()> {
    let TokenCommand::New(args) = cmd;
    let minted = proto::auth::token_file::mint(args.role, &args.label)?;
    proto::auth::token_file::append(&args.file, &minted.entry)?;
    eprintln!("added a {} token to {}; it is shown only now:", args.role, args.file.display());
    println!("{}", minted.token);
    Ok(())
}

#[derive(Subcommand, Debug)]
pub enum RunCommand {
    /// Create a run.
    Create(CreateArgs),
    /// List runs, newest first.
    List {
        #[command(flatten)]
        remote: Remote,
        /// Only active runs.
        #[arg(long)]
        active: bool,
    },
    /// Show a run's statistics.
    Show {
        #[command(flatten)]
        remote: Remote,
        id: RunId,
        /// Follow the run until it ends.
        #[arg(long)]
        watch: bool,
    },
    /// Stop a run.
    Stop {
        #[command(flatten)]
        remote: Remote,
        id: RunId,
    },
}

#[derive(Args, Debug)]
pub struct CreateArgs {
    #[command(flatten)]
    remote: Remote,
    /// Run name.
    #[arg(long, default_value = "run")]
    name: String,
    /// What the run plays.
    #[arg(long, value_enum, default_value_t = RunKindName::Sprt)]
    kind: RunKindName,
    /// Variant ids (SPRT: candidate then base; gauntlet: candidate then opponents; SPSA and
    /// datagen: the one variant, `--variant ID`).
    #[arg(long, alias = "variant", num_args = 1.., required = true)]
    variants: Vec<VariantId>,
    /// Opening suite id (from `openings add`).
    #[arg(long)]
    suite: SuiteId,
    /// Time control: nodes=N, depth=N, movetime=MS or BASE+INC seconds [default: nodes=20000;
    /// datagen: nodes=5000].
    #[arg(long)]
    tc: Option<String>,
    /// Pairs (games, datagen), per opponent (gauntlet) or per pairing (round robin).
    #[arg(long, default_value_t = 100)]
    pairs: u64,
    /// SPRT bounds and error rates.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    elo0: f64,
    #[arg(long, default_value_t = 5.0, allow_hyphen_values = true)]
    elo1: f64,
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    /// Elo model of the SPRT bounds.
    #[arg(long, value_enum, default_value_t = EloModel::Normalized)]
    model: EloModel,
    /// Only workers with this engine bench signature play the run.
    #[arg(long)]
    bench_signature: Option<u64>,
    /// Sample one position every N plies into the positions table (0 = none) [default: 8;
    /// datagen records every position: 1, and refuses another value].
    #[arg(long)]
    sample_every: Option<u32>,
    /// Datagen (`--kind datagen`): uniformly random legal moves after each suite opening,
    /// drawn by the coordinator per pair, 0 to 40 [default: 8].
    #[arg(long)]
    random_plies: Option<u32>,
    /// SPSA (`--kind spsa`, one variant; `--pairs` iterations): the parameters, one
    /// `name,start,min,max,c_end,r_end` a line (as `xqengine params --spsa` prints them).
    #[arg(long)]
    spsa_params: Option<PathBuf>,
}

pub async fn run_command(cmd: RunCommand) -> Result<()> {
    match cmd {
        RunCommand::Create(a) => {
            let request = RunRequest {
                name: a.name,
                kind: a.kind,
                variants: a.variants,
                suite: a.suite,
                tc: a.tc,
                pairs: a.pairs,
                elo0: a.elo0,
                elo1: a.elo1,
                alpha: a.alpha,
                beta: a.beta,
                model: a.model,
                bench_signature: a.bench_signature,
                sample_every: a.sample_every,
                random_plies: a.random_plies,
                spsa_params: match &a.spsa_params {
                    Some(path) => crate::spsa_cmd::read_spsa_file(path)?,
                    None => Vec::new(),
                },
                // `xqfarm tournament create` designs tournaments.
                tournament: None,
            };
            let spec = request.to_spec().map_err(anyhow::Error::msg)?;
            // The coordinator checks the same; a bad combination (a datagen run of two variants,
            // no pairs, too many random plies) is named here before any connection.
            spec.validate().context("run create")?;
            let client = a.remote.client().await?;
            println!("{}", client.create_run(spec).await?.id);
        }
        RunCommand::List { remote, active } => {
            let client = remote.client().await?;
            for s in client.list_runs(RunFilter { active_only: active, limit: 0 }).await? {
                println!(
                    "{:>5}  {:<14} {:<30} {}",
                    s.run.id,
                    s.run.state.name().as_str(),
                    s.run.spec.name,
                    progress_line(&s)
                );
            }
        }
        RunCommand::Show { remote, id, watch: follow } => {
            let client = remote.client().await?;
            let status = if follow { watch(&client, id).await? } else { client.get_run(id).await? };
            print!("{}", summary(&status));
            let names = status.tournament.as_ref().map(|d| d.names.clone()).unwrap_or_default();
            if let Some(text) = crate::tournament_cmd::tournament_text(&status, &names) {
                print!("{text}");
            }
        }
        RunCommand::Stop { remote, id } => {
            let client = remote.client().await?;
            print!("{}", summary(&client.stop_run(id).await?));
        }
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct VariantAddArgs {
    #[command(flatten)]
    remote: Remote,
    /// Parameter file (TOML) of an in-process variant.
    file: Option<PathBuf>,
    /// Name (default: the file's stem, or the engine's name).
    #[arg(long)]
    name: Option<String>,
    /// An external engine instead of a parameter file: the NAME workers were given it under
    /// (`xqfarm worker --engine NAME=PATH`); never a command or a path.
    #[arg(long, conflicts_with = "file", value_name = "NAME")]
    engine: Option<String>,
    /// Protocol of an external engine.
    #[arg(long, value_enum, default_value_t = EngineProtocol::Uci)]
    protocol: EngineProtocol,
    /// Engine options NAME=VALUE (external engines).
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = proto::domain::parse_engine_option)]
    options: Vec<(String, String)>,
}

pub async fn variant_add(a: VariantAddArgs) -> Result<()> {
    let spec = match (&a.file, &a.engine) {
        (Some(file), None) => {
            let toml = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
            engine::ParamSet::from_toml_str(&toml).with_context(|| format!("checking {}", file.display()))?;
            let name = a
                .name
                .clone()
                .unwrap_or_else(|| file.file_stem().map_or("params".into(), |s| s.to_string_lossy().into()));
            VariantSpec { name, kind: VariantKind::Params { toml } }
        }
        (None, Some(engine)) => {
            proto::domain::check_engine_name(engine).map_err(|reason| anyhow::anyhow!("--engine: {reason}"))?;
            let options = a.options.clone();
            VariantSpec {
                name: a.name.clone().unwrap_or_else(|| engine.clone()),
                kind: VariantKind::External { engine: engine.clone(), protocol: a.protocol, options },
            }
        }
        _ => bail!("pass a parameter file or --engine NAME"),
    };
    let client = a.remote.client().await?;
    let v = client.add_variant(spec).await?;
    println!("{}  {}", v.id, v.spec.name);
    Ok(())
}

#[derive(Args, Debug)]
pub struct NetworkAddArgs {
    #[command(flatten)]
    remote: Remote,
    /// Network file (`.xqnn`, engine/NNUE.md); the engine's reader must accept it.
    file: PathBuf,
}

/// Stores a network file on the coordinator and prints its id, what a parameter file names
/// as `eval = "nnue:<sha256>"`.
pub async fn network_add(a: NetworkAddArgs) -> Result<()> {
    let bytes = std::fs::read(&a.file).with_context(|| format!("reading {}", a.file.display()))?;
    engine::nnue::Network::from_bytes(&bytes).map_err(|e| anyhow::anyhow!("network file {}: {e}", a.file.display()))?;
    let client = a.remote.client().await?;
    let id = client.add_network(&bytes).await?;
    println!("{id}  {}", a.file.display());
    Ok(())
}

#[derive(Args, Debug)]
pub struct OpeningsAddArgs {
    #[command(flatten)]
    remote: Remote,
    /// Suite file: one FEN or `startpos moves ...` a line.
    file: PathBuf,
    /// Suite name (default: the file's stem).
    #[arg(long)]
    name: Option<String>,
}

pub async fn openings_add(a: OpeningsAddArgs) -> Result<()> {
    let text = std::fs::read_to_string(&a.file).with_context(|| format!("reading {}", a.file.display()))?;
    let lines: Vec<String> =
        text.lines().map(|l| l.split('#').next().unwrap_or("").trim().to_owned()).filter(|l| !l.is_empty()).collect();
    let name = a.name.unwrap_or_else(|| a.file.file_stem().map_or("suite".into(), |s| s.to_string_lossy().into()));
    let client = a.remote.client().await?;
    let s = client.add_openings(OpeningSuiteSpec { name, openings: lines }).await?;
    println!("{}  {} ({} openings)", s.id, s.name, s.openings);
    Ok(())
}
