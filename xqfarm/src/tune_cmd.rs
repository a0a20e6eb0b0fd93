//! `xqfarm tune`: Texel tuning of the evaluation weights from the farm's sampled positions;
//! writes the tuned parameter file, a loss-curve PNG and a table of the weights that changed
//! most; with `--submit`, starts an SPRT of the tuned set against the base on a coordinator.
//! `xqfarm tune --bench` measures the tuner alone.

use std::path::{Path, PathBuf};

use analysis::data::PositionFilter;
use analysis::texel::{self, TexelConfig, TexelRun};
use analysis::tune::{AdamConfig, EpochReport, Selection, parse_groups};
use anyhow::{Context, Result, bail};
use campaign::tuner::changes_table;
use campaign::{Farm as _, RemoteFarm};
use clap::Args;
use engine::ParamSet;
use proto::domain::{EloModel, SprtSettings, TimeControl};

use crate::args::{load_params, name_of, opening_lines};
use crate::progress::Progress;
use crate::remote;
use crate::sprt::sprt_spec;

/// Default ridge pull (`--l2`) of `xqfarm tune` and `xqfarm loop`.
pub const DEFAULT_L2: f64 = 1e-4;
/// Default `--min-positions` of `xqfarm tune` and `xqfarm loop`.
pub const DEFAULT_MIN_POSITIONS: u32 = 0;

#[derive(Args, Debug, Clone)]
pub struct TuneArgs {
    /// Data directory of a coordinator (its `positions/` table is read).
    #[arg(long, required_unless_present = "bench")]
    pub data: Option<PathBuf>,
    /// Parameters to start from: a TOML file, or `default` / `material-only`.
    #[arg(long, default_value = "default")]
    pub base: String,
    /// Where the tuned parameter file goes (the loss curve and the change table go beside it).
    #[arg(long, required_unless_present = "bench")]
    pub out: Option<PathBuf>,
    /// Most Adam epochs (full passes over the training positions).
    #[arg(long, default_value_t = 400)]
    pub epochs: usize,
    /// Stop after this many epochs without a better validation loss.
    #[arg(long, default_value_t = 40)]
    pub patience: usize,
    /// Adam's step size, about how far a weight moves per epoch (centipawns).
    #[arg(long, default_value_t = 1.0)]
    pub learning_rate: f64,
    /// Tune only these groups (comma-separated: material, position, mobility, relations, misc).
    #[arg(long)]
    pub only: Option<String>,
    /// Keep these groups fixed.
    #[arg(long)]
    pub freeze: Option<String>,
    /// Weight of the search score in the label (0: the game result alone).
    #[arg(long, default_value_t = 0.0)]
    pub lambda: f64,
    /// Ridge pull towards the base: the loss a weight pays for moving 100 cp (0: none).
    #[arg(long, allow_hyphen_values = true, default_value_t = DEFAULT_L2)]
    pub l2: f64,
    /// Keep weights seen in fewer training positions than this at their base value.
    #[arg(long, default_value_t = DEFAULT_MIN_POSITIONS)]
    pub min_positions: u32,
    /// Share of games held out for validation.
    #[arg(long, default_value_t = 0.05)]
    pub validation: f64,
    /// Skip positions before this ply.
    #[arg(long, default_value_t = 10)]
    pub min_ply: u32,
    /// Only positions of these runs (repeatable; all runs when absent).
    #[arg(long = "run")]
    pub runs: Vec<u64>,
    /// Register the tuned variant on this coordinator and start an SPRT against the base.
    #[arg(long)]
    pub submit: Option<String>,
    /// Token for --submit (or XQFARM_TOKEN).
    #[arg(long)]
    pub token: Option<String>,
    /// CA certificate (PEM) that signed an https:// --submit coordinator's certificate.
    #[arg(long)]
    pub ca_cert: Option<PathBuf>,
    /// Time control of the submitted SPRT.
    #[arg(long, default_value = "nodes=20000")]
    pub tc: String,
    /// SPRT bounds of the submitted run (normalized Elo).
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub elo0: f64,
    #[arg(long, default_value_t = 5.0, allow_hyphen_values = true)]
    pub elo1: f64,
    /// Measure the tuner on synthetic positions instead of tuning.
    #[arg(long)]
    pub bench: bool,
    /// Positions for --bench.
    #[arg(long, default_value_t = 1_000_000)]
    pub positions: usize,
}

impl TuneArgs {
    /// The tuner settings these flags describe.
    pub fn config(&self) -> Result<TexelConfig> {
        let mut selection = match &self.only {
            Some(groups) => Selection::only(&parse_groups(groups)?),
            None => Selection::all(),
        };
        if let Some(groups) = &self.freeze {
            selection = selection.freeze(&parse_groups(groups)?);
        }
        Ok(TexelConfig {
            filter: PositionFilter { runs: self.runs.clone(), min_ply: self.min_ply },
            lambda: self.lambda,
            validation_fraction: self.validation,
            min_positions: self.min_positions,
            adam: AdamConfig {
                epochs: self.epochs,
                patience: self.patience,
                learning_rate: self.learning_rate,
                l2: self.l2,
                selection,
                ..AdamConfig::default()
            },
        })
    }
}

/// The progress line of epoch `r` of `total`.
pub fn epoch_line(total: usize, r: &EpochReport) -> String {
    let width = 30;
    let done = (r.epoch * width / total.max(1)).min(width);
    format!(
        "[{}{}] epoch {:>4}/{total}  train {:.6}  validation {:.6}",
        "#".repeat(done),
        " ".repeat(width - done),
        r.epoch,
        r.train_loss,
        r.validation_loss
    )
}

pub use campaign::tuner::{side_files, summary};

/// Tunes `base`'s evaluation and writes the parameter file (the tuned evaluation with `base`'s
/// `[search]` table), the loss curve and the change table, with a progress bar.
pub fn tune_to_files(data: &Path, base: &ParamSet, out: &Path, config: &TexelConfig) -> Result<TexelRun> {
    let progress = Progress::stderr();
    let total = config.adam.epochs;
    let run = campaign::tuner::tune_set_to_files(data, base, out, config, |r| progress.update(&epoch_line(total, r)))
        .with_context(|| format!("tuning on {}", data.display()));
    progress.end();
    run
}

pub async fn run(args: &TuneArgs) -> Result<()> {
    if args.bench {
        let report = analysis::tune::bench::bench(args.positions)?;
        println!("{report}");
        return Ok(());
    }
    let (Some(data), Some(out)) = (&args.data, &args.out) else { bail!("--data and --out are required") };
    let config = args.config()?;
    let base = load_params(&args.base)?;
    let run = tune_to_files(data, &base, out, &config)?;
    print!("{}", summary(&run));
    let (loss_png, changes_md) = side_files(out);
    let changes = texel::biggest_changes(&base.eval, &run.outcome.params, 15);
    println!("weights that changed most (all in {}):\n{}", changes_md.display(), changes_table(&changes));
    println!("wrote {}, {}, {}", out.display(), loss_png.display(), changes_md.display());

    if let Some(url) = &args.submit {
        let token = remote::token(args.token.clone())?;
        let farm = RemoteFarm::new(remote::connect(url, &token, args.ca_cert.as_deref()).await?);
        let tc: TimeControl = args.tc.parse().map_err(anyhow::Error::msg)?;
        let (base_name, tuned_name) = (name_of(&args.base), name_of(&out.display().to_string()));
        let base_v = farm.add_params_variant(&base_name, &base).await?;
        let tuned_v = farm
            .add_params_variant(&tuned_name, &engine::ParamSet::new(run.outcome.params.clone(), base.search.clone()))
            .await?;
        let suite = farm.add_suite("tune-openings", opening_lines(None)?).await?;
        let sprt =
            SprtSettings { elo0: args.elo0, elo1: args.elo1, alpha: 0.05, beta: 0.05, model: EloModel::Normalized };
        let name = format!("{tuned_name} vs {base_name} (tuned)");
        let id = farm.create_run(sprt_spec(name, sprt, tuned_v, base_v, tc, suite)).await?;
        println!(
            "submitted: run {id} on {url}, SPRT[{}, {}] of the tuned parameters against the base at {tc}",
            args.elo0, args.elo1
        );
    }
    Ok(())
}
