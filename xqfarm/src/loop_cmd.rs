//! `xqfarm loop`: tune and verify on this machine, repeatedly (the `campaign` library: each
//! iteration plays self-play with the current best, tunes the evaluation on every self-play
//! position so far, runs an SPRT of the tuned set against the best and, once the best is no
//! longer the start, an anchor SPRT of it against the start; it promotes the tuned set when
//! both accept H1). This file only
//! wires: flags → [`CampaignConfig`], the embedded coordinator and a local worker, the
//! library's farm over the typed client and its Texel tuner; then the report over all games.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use analysis::data::PositionFilter;
use analysis::report::{self, ReportOptions};
use analysis::texel::TexelConfig;
use analysis::tune::{AdamConfig, Selection, parse_groups};
use anyhow::{Context, Result};
use campaign::{CampaignConfig, DEFAULT_ANCHOR, DEFAULT_ANCHOR_MAX_GAMES, TexelTuner};
use clap::Args;
use proto::domain::{EloModel, SprtSettings, TimeControl};
use web::embedded::Embedded;
use worker::engines::EngineSet;

use crate::args::{ENGINE_VERSION, load_params, opening_lines, rand_token};
use crate::progress::Progress;
use crate::remote;
use crate::tune_cmd;

#[derive(Args, Debug)]
pub struct LoopArgs {
    /// Where the database, the Parquet data, each iteration's files and the summary go.
    #[arg(long, default_value = "xqfarm-loop")]
    pub dir: PathBuf,
    /// Tune-and-verify iterations.
    #[arg(long, default_value_t = 1)]
    pub iterations: usize,
    /// Parameters to start from: a TOML file (its `[search]` table, if any, is kept by every
    /// tuned set), or `default` / `material-only`.
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
    /// Bounds (normalized Elo) of the anchor: the non-regression SPRT of a tuned set that beat
    /// a best other than the start, against the start; promoted only on its H1 too.
    #[arg(long, default_value_t = DEFAULT_ANCHOR.elo0, allow_hyphen_values = true)]
    pub anchor_elo0: f64,
    #[arg(long, default_value_t = DEFAULT_ANCHOR.elo1, allow_hyphen_values = true)]
    pub anchor_elo1: f64,
    /// Stop the anchor SPRT without a verdict after this many games (no promotion).
    #[arg(long, default_value_t = DEFAULT_ANCHOR_MAX_GAMES)]
    pub anchor_max_games: u64,
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

impl LoopArgs {
    /// The campaign these flags describe.
    fn campaign(&self) -> CampaignConfig {
        CampaignConfig {
            dir: self.dir.clone(),
            iterations: self.iterations,
            pairs: self.pairs,
            tc: TimeControl::Nodes(self.nodes),
            sample_every: self.sample_every,
            sprt: SprtSettings {
                elo0: self.elo0,
                elo1: self.elo1,
                alpha: 0.05,
                beta: 0.05,
                model: EloModel::Normalized,
            },
            max_games: self.max_games,
            anchor: SprtSettings { elo0: self.anchor_elo0, elo1: self.anchor_elo1, ..DEFAULT_ANCHOR },
            anchor_max_games: self.anchor_max_games,
        }
    }

    /// The tuner's settings (the runs are the campaign's self-play runs, set per iteration).
    fn texel(&self) -> Result<TexelConfig> {
        let selection = match &self.only {
            Some(groups) => Selection::only(&parse_groups(groups)?),
            None => Selection::all(),
        };
        Ok(TexelConfig {
            filter: PositionFilter { runs: Vec::new(), min_ply: 10 },
            lambda: self.lambda,
            min_positions: self.min_positions,
            adam: AdamConfig {
                epochs: self.epochs,
                learning_rate: self.learning_rate,
                l2: self.l2,
                selection,
                ..AdamConfig::default()
            },
            ..TexelConfig::default()
        })
    }
}

pub async fn run(args: &LoopArgs) -> Result<()> {
    let config = args.campaign();
    config.validate()?;
    let texel = args.texel()?;
    let start = load_params(&args.start)?;
    std::fs::create_dir_all(&args.dir).with_context(|| format!("creating {}", args.dir.display()))?;
    let data_dir = args.dir.join("data");
    let token = format!("loop-{:x}", rand_token());
    let emb = Embedded::start(&args.dir.join("xqfarm.db"), &data_dir, &token).await?;
    let concurrency = args.concurrency.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let bench = tokio::task::spawn_blocking(move || worker::identity::measure_bench(concurrency)).await??;
    let worker = emb.spawn_worker(concurrency, args.dir.join("spool"), bench, EngineSet::empty(), ENGINE_VERSION);
    eprintln!("web pages (signed in): {}", emb.page_url);
    eprintln!(
        "xqfarm loop: embedded coordinator at {}, {concurrency} games at once, data in {}",
        emb.url,
        data_dir.display()
    );

    let result = async {
        let client = remote::connect(&emb.url, &token, None).await?;
        // The runs' progress, the tuner's epochs and the notes share one progress writer.
        let progress = Progress::stderr();
        let farm = crate::sprt::watching(&client, Arc::clone(&progress));
        let epochs = args.epochs;
        let bar = Arc::clone(&progress);
        let tuner = TexelTuner {
            data: data_dir.clone(),
            config: texel,
            on_epoch: Some(Arc::new(move |r| bar.update(&tune_cmd::epoch_line(epochs, r)))),
        };
        let lines = match &args.openings {
            Some(path) => opening_lines(Some(path))?,
            None => generated_suite(&args.dir, args.suite_size).await?,
        };
        let mut note = |line: &str| progress.note(line);
        Ok::<_, anyhow::Error>(campaign::run(&farm, &tuner, &config, start, lines, &mut note).await?)
    }
    .await;

    worker.abort();
    emb.stop().await;
    let outcome = result?;
    let report = report::build(&data_dir, &ReportOptions { run: None, base: Some("start".into()) })?;
    let files = report::write(&report, &args.dir.join("report"))?;
    println!("{}", std::fs::read_to_string(args.dir.join("loop.md")).unwrap_or_default());
    println!(
        "{} iterations, {} promoted; best parameters: {}; report: {}",
        outcome.iterations.len(),
        outcome.iterations.iter().filter(|i| i.promoted()).count(),
        args.dir.join("best.toml").display(),
        files.first().map_or_else(String::new, |f| f.display().to_string())
    );
    Ok(())
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

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: LoopArgs,
    }

    fn campaign_of(args: &[&str]) -> CampaignConfig {
        let cli = Cli::try_parse_from(std::iter::once("loop").chain(args.iter().copied())).expect("the flags parse");
        cli.args.campaign()
    }

    #[test]
    fn the_anchor_defaults_to_a_non_regression_test_capped_below_the_sprt() {
        let config = campaign_of(&[]);
        assert_eq!(config.anchor, DEFAULT_ANCHOR);
        assert_eq!((config.anchor.elo0, config.anchor.elo1), (-3.0, 1.0));
        assert_eq!(config.anchor_max_games, DEFAULT_ANCHOR_MAX_GAMES);
        assert!(config.anchor_max_games < config.max_games);
        config.validate().expect("the defaults are valid");
    }

    #[test]
    fn the_anchor_flags_reach_the_campaign_and_bad_ones_are_named() {
        let config = campaign_of(&["--anchor-elo0", "-5", "--anchor-elo1", "0.5", "--anchor-max-games", "800"]);
        assert_eq!((config.anchor.elo0, config.anchor.elo1, config.anchor_max_games), (-5.0, 0.5, 800));
        assert_eq!((config.anchor.alpha, config.anchor.beta), (0.05, 0.05));
        let error = campaign_of(&["--anchor-elo0", "2", "--anchor-elo1", "1"]).validate().expect_err("elo0 > elo1");
        assert!(error.to_string().contains("anchor_elo1"), "{error}");
        let error = campaign_of(&["--anchor-max-games", "0"]).validate().expect_err("no games");
        assert!(error.to_string().contains("anchor_max_games"), "{error}");
    }
}
