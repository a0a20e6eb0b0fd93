//! `xqfarm loop`: tune and verify on this machine, repeatedly. Each iteration plays self-play
//! games with the current best parameters (positions sampled into Parquet), tunes on every
//! self-play position so far, runs an SPRT of the tuned set against the current best, and
//! promotes the tuned set on H1. Everything runs on the embedded coordinator; a summary table
//! (`loop.md`), an Elo-progress chart and a report over all games land in the directory.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use analysis::charts::{self, ProgressPoint};
use analysis::data::{self, PositionFilter};
use analysis::report::{self, ReportOptions};
use analysis::texel::{TexelConfig, TexelRun};
use analysis::tune::{AdamConfig, Selection, parse_groups};
use anyhow::{Context, Result, bail};
use clap::Args;
use engine::eval::Params;
use proto::domain::{Adjudication, EloModel, LiveStats, RunId, RunKind, RunSpec, RunState, SprtSettings, TimeControl};

use crate::embedded::{self, Embedded};
use crate::local_match::load_params;
use crate::remote;
use crate::sprt::{add_params_variant, add_suite, create_run, opening_lines, rand_token, sprt_spec, watch_up_to};
use crate::tune_cmd;

#[derive(Args, Debug)]
pub struct LoopArgs {
    /// Where the database, the Parquet data, each iteration's files and the summary go.
    #[arg(long, default_value = "xqfarm-loop")]
    pub dir: PathBuf,
    /// Tune-and-verify iterations.
    #[arg(long, default_value_t = 1)]
    pub iterations: usize,
    /// Parameters to start from: a TOML file, or `default` / `material-only`.
    #[arg(long, default_value = "default")]
    pub start: String,
    /// Self-play game pairs per iteration.
    #[arg(long, default_value_t = 2500)]
    pub pairs: u64,
    /// Nodes per move, in self-play and in the SPRT.
    #[arg(long, default_value_t = 3000)]
    pub nodes: u64,
    /// Sample one position in this many plies of the self-play games.
    #[arg(long, default_value_t = 2)]
    pub sample_every: u32,
    /// Most Adam epochs per tuning.
    #[arg(long, default_value_t = 400)]
    pub epochs: usize,
    /// Adam's step size (centipawns per epoch).
    #[arg(long, default_value_t = 1.0)]
    pub learning_rate: f64,
    /// Tune only these groups (comma-separated).
    #[arg(long)]
    pub only: Option<String>,
    /// Weight of the search score in the label.
    #[arg(long, default_value_t = 0.0)]
    pub lambda: f64,
    /// Ridge pull towards the current best: the loss a weight pays for moving 100 cp.
    #[arg(long, allow_hyphen_values = true, default_value_t = tune_cmd::DEFAULT_L2)]
    pub l2: f64,
    /// Keep weights seen in fewer training positions than this at their current value.
    #[arg(long, default_value_t = tune_cmd::DEFAULT_MIN_POSITIONS)]
    pub min_positions: u32,
    /// SPRT bounds (normalized Elo) of tuned against best.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub elo0: f64,
    #[arg(long, default_value_t = 10.0, allow_hyphen_values = true)]
    pub elo1: f64,
    /// Stop an SPRT without a verdict after this many games (no promotion).
    #[arg(long, default_value_t = 6000)]
    pub max_games: u64,
    /// Opening suite (default: a suite of --suite-size openings generated once into the
    /// directory, so games at fixed nodes do not repeat).
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Openings in the generated suite.
    #[arg(long, default_value_t = 3000)]
    pub suite_size: usize,
    /// Games played at once (default: all cores).
    #[arg(long)]
    pub concurrency: Option<usize>,
}

/// One iteration's outcome.
#[derive(Clone, Debug)]
struct Iteration {
    index: usize,
    selfplay_games: u64,
    tuning: TexelRun,
    sprt: LiveStats,
    sprt_games: u64,
    verdict: &'static str,
    promoted: bool,
    minutes: f64,
}

pub async fn run(args: &LoopArgs) -> Result<()> {
    if args.iterations == 0 {
        bail!("--iterations 0: nothing to do");
    }
    let tc = TimeControl::Nodes(args.nodes);
    let selection = match &args.only {
        Some(groups) => Selection::only(&parse_groups(groups)?),
        None => Selection::all(),
    };
    let mut best = load_params(&args.start)?;
    std::fs::create_dir_all(&args.dir).with_context(|| format!("creating {}", args.dir.display()))?;
    let data_dir = args.dir.join("data");
    let token = format!("loop-{:x}", rand_token());
    let emb = Embedded::start(&args.dir.join("xqfarm.db"), &data_dir, &token).await?;
    let concurrency = args.concurrency.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let worker =
        embedded::spawn_worker(&emb.url, &token, concurrency, args.dir.join("spool"), embedded::bench_signature());
    eprintln!(
        "xqfarm loop: embedded coordinator at {}, {concurrency} games at once, data in {}",
        emb.url,
        data_dir.display()
    );

    let result = async {
        let mut client = remote::connect(&emb.url, &token).await?;
        let lines = match &args.openings {
            Some(path) => opening_lines(Some(path))?,
            None => generated_suite(&args.dir, args.suite_size).await?,
        };
        let suite = add_suite(&mut client, "loop-openings", lines).await?;
        let mut selfplay_runs = Vec::new();
        let mut done: Vec<Iteration> = Vec::new();
        // The current best is a variant of its own name (`start`, then the promoted
        // `tuned-N`), so every SPRT links to the last and the rating list spans the loop.
        let mut best_name = "start".to_owned();
        for index in 1..=args.iterations {
            let started = Instant::now();
            // 1. Self-play with the current best parameters.
            let a = add_params_variant(&mut client, &best_name, &best.to_toml()).await?;
            // At fixed nodes two identical engines play the colour-swapped game of a pair as
            // the mirror image of the first: the twin's tempo differs by 1 cp so it does not.
            let b = add_params_variant(&mut client, &format!("{best_name}-twin"), &twin(&best)?.to_toml()).await?;
            let spec = RunSpec {
                name: format!("self-play {index}"),
                kind: RunKind::Games { pairs: args.pairs },
                variants: vec![a.id.clone(), b.id],
                tc,
                openings: suite.id,
                adjudication: Adjudication::default(),
                bench_signature: None,
                sample_every: args.sample_every,
            };
            let run = create_run(&mut client, spec).await?;
            eprintln!("iteration {index}: self-play run {run}, {} pairs at {tc}", args.pairs);
            let status = watch_up_to(&mut client, run, None).await?;
            let games = status.live.first().map_or(0, |l| l.counts.games());
            wait_for_export(&data_dir, run, games).await?;
            selfplay_runs.push(run);

            // 2. Tune on every self-play position so far.
            let iter_dir = args.dir.join(format!("iteration-{index}"));
            let out = iter_dir.join("tuned.toml");
            let config = TexelConfig {
                filter: PositionFilter { runs: selfplay_runs.iter().map(|r: &RunId| r.get()).collect(), min_ply: 10 },
                lambda: args.lambda,
                min_positions: args.min_positions,
                adam: AdamConfig {
                    epochs: args.epochs,
                    learning_rate: args.learning_rate,
                    l2: args.l2,
                    selection: selection.clone(),
                    ..AdamConfig::default()
                },
                ..TexelConfig::default()
            };
            let data_for_tuning = data_dir.clone();
            let base_for_tuning = best.clone();
            let out_for_tuning = out.clone();
            let tuning = tokio::task::spawn_blocking(move || {
                tune_cmd::tune_to_files(&data_for_tuning, &base_for_tuning, &out_for_tuning, &config)
            })
            .await
            .context("the tuning task failed")??;
            eprint!("{}", tune_cmd::summary(&tuning));

            // 3. SPRT of the tuned set against the current best.
            let tuned_v =
                add_params_variant(&mut client, &format!("tuned-{index}"), &tuning.outcome.params.to_toml()).await?;
            let sprt =
                SprtSettings { elo0: args.elo0, elo1: args.elo1, alpha: 0.05, beta: 0.05, model: EloModel::Normalized };
            let spec = sprt_spec(format!("tuned-{index} vs {best_name}"), sprt, tuned_v.id, a.id.clone(), tc, suite.id);
            let run = create_run(&mut client, spec).await?;
            eprintln!(
                "iteration {index}: SPRT[{}, {}] run {run} of tuned-{index} against {best_name}",
                args.elo0, args.elo1
            );
            let status = watch_up_to(&mut client, run, Some(args.max_games)).await?;
            let verdict = match status.run.state {
                RunState::SprtDone { h1: true } => "H1",
                RunState::SprtDone { h1: false } => "H0",
                _ => "no verdict (cap)",
            };
            let live = status.live.first().copied().context("the SPRT has no statistics")?;
            let promoted = verdict == "H1";
            if promoted {
                best = tuning.outcome.params.clone();
                best_name = format!("tuned-{index}");
            }
            std::fs::write(iter_dir.join("sprt.txt"), crate::sprt::summary(&status)).context("writing sprt.txt")?;
            done.push(Iteration {
                index,
                selfplay_games: games,
                sprt_games: live.counts.games(),
                sprt: live,
                tuning,
                verdict,
                promoted,
                minutes: started.elapsed().as_secs_f64() / 60.0,
            });
            write_summary(&args.dir, &done, &best)?;
            eprintln!(
                "iteration {index}: {verdict}, tuned vs best {:+.1} ± {:.1} Elo over {} games{}",
                live.elo,
                (live.elo_upper - live.elo_lower) / 2.0,
                live.counts.games(),
                if promoted { " — promoted" } else { "" }
            );
        }
        Ok::<_, anyhow::Error>(done)
    }
    .await;

    worker.abort();
    emb.stop().await;
    let done = result?;
    let report = report::build(&data_dir, &ReportOptions { run: None, base: Some("start".into()) })?;
    let files = report::write(&report, &args.dir.join("report"))?;
    println!("{}", std::fs::read_to_string(args.dir.join("loop.md")).unwrap_or_default());
    println!(
        "{} iterations, {} promoted; best parameters: {}; report: {}",
        done.len(),
        done.iter().filter(|i| i.promoted).count(),
        args.dir.join("best.toml").display(),
        files.first().map_or_else(String::new, |f| f.display().to_string())
    );
    Ok(())
}

/// `params` with the tempo weight one centipawn higher.
fn twin(params: &Params) -> Result<Params> {
    let mut twin = params.clone();
    let i = Params::index_of("tempo.mg").context("no tempo.mg parameter")?;
    twin.set_clamped(i, i64::from(params.get(i)) + 1);
    Ok(twin)
}

/// `count` balanced openings (common systems plus up to 4 random plies, each within 80 cp at
/// depth 6), generated once and kept in `<dir>/openings.txt`.
async fn generated_suite(dir: &Path, count: usize) -> Result<Vec<String>> {
    let path = dir.join("openings.txt");
    if !path.exists() {
        eprintln!("generating {count} openings into {}", path.display());
        let settings =
            worker::openings::GenerateSettings { count, extra_plies: 4, margin_cp: 80, depth: 6, seed: 0x100b };
        let lines = tokio::task::spawn_blocking(move || worker::openings::generate(&settings))
            .await
            .context("the opening generator failed")?;
        std::fs::write(&path, lines.join("\n") + "\n").with_context(|| format!("writing {}", path.display()))?;
    }
    opening_lines(Some(&path))
}

/// Waits until the Parquet export holds `games` games of `run` (the export runs every second).
async fn wait_for_export(data: &Path, run: RunId, games: u64) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let have = data::game_totals(data, Some(run.get()))?.games;
        if have >= games {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("run {run}: only {have} of {games} games reached Parquet after 60 s");
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

fn write_summary(dir: &Path, done: &[Iteration], best: &Params) -> Result<()> {
    let mut md = String::from(
        "# xqfarm loop\n\n| iteration | self-play games | positions (train/val) | K | train loss | validation loss | SPRT games | tuned vs best Elo | LLR | verdict | promoted | minutes |\n\
         |---:|---:|---|---:|---|---|---:|---|---:|---|---|---:|\n",
    );
    let mut cumulative = 0.0;
    let mut points = vec![ProgressPoint { iteration: 0, elo: 0.0, lower: 0.0, upper: 0.0, promoted: true }];
    for it in done {
        let t = &it.tuning;
        let end = t.end();
        let half = (it.sprt.elo_upper - it.sprt.elo_lower) / 2.0;
        md.push_str(&format!(
            "| {} | {} | {} / {} | {:.5} | {:.5} → {:.5} | {:.5} → {:.5} | {} | {:+.1} ± {:.1} | {:.2} | {} | {} | {:.1} |\n",
            it.index,
            it.selfplay_games,
            t.train_positions,
            t.validation_positions,
            t.k,
            t.start.train_loss,
            end.train_loss,
            t.start.validation_loss,
            end.validation_loss,
            it.sprt_games,
            it.sprt.elo,
            half,
            it.sprt.sprt.map_or(f64::NAN, |s| s.llr),
            it.verdict,
            if it.promoted { "yes" } else { "no" },
            it.minutes
        ));
        // The tuned set's Elo over the start: the current best's plus the SPRT's estimate.
        let elo = cumulative + it.sprt.elo;
        points.push(ProgressPoint {
            iteration: it.index,
            elo,
            lower: elo - half,
            upper: elo + half,
            promoted: it.promoted,
        });
        if it.promoted {
            cumulative = elo;
        }
    }
    md.push_str(&format!(
        "\nCumulative Elo of the promoted parameters over the start (sum of the promoting SPRTs' estimates): {cumulative:+.1}\n\n![Elo progress](elo-progress.png)\n"
    ));
    let path = dir.join("loop.md");
    std::fs::write(&path, md).with_context(|| format!("writing {}", path.display()))?;
    let path = dir.join("best.toml");
    std::fs::write(&path, best.to_toml()).with_context(|| format!("writing {}", path.display()))?;
    charts::elo_progress(
        &dir.join("elo-progress.png"),
        "Elo of each tuned set over the start (promoted: filled)",
        &points,
    )?;
    Ok(())
}
