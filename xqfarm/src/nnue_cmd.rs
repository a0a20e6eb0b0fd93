//! `xqfarm nnue train`: trains the engine's network on a data directory's sampled positions
//! (`analysis::nnue`), with a progress bar, and writes the XQNN file and its manifest.
//! `--bench` times real epochs instead, on the data directory or on synthetic positions.

use std::path::PathBuf;
use std::time::Instant;

use analysis::nnue::bench::{bench_epochs, split_by_game};
use analysis::nnue::data::{DEFAULT_MAX_SCORE, DEFAULT_MIN_PLY, DEFAULT_MIN_POSITIONS, DataFilter, load_dataset};
use analysis::nnue::run::{DEFAULT_CHECK_POSITIONS, Event, RunConfig, RunOutcome, train_network};
use analysis::nnue::train::{
    DEFAULT_BATCH, DEFAULT_EPOCHS, DEFAULT_LAMBDA, DEFAULT_LEARNING_RATE, DEFAULT_WEIGHT_DECAY,
};
use analysis::nnue::{BatchProgress, CONTRACT_CP, EpochReport, TrainConfig, check_lambda, fit_score_k, synthetic};
use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};

use crate::progress::Progress;

#[derive(Subcommand, Debug)]
pub enum NnueCommand {
    /// Train the engine's network (architecture 1 of engine/NNUE.md) on the sampled positions
    /// of a data directory; writes an XQNN v1 file and a JSON manifest beside it.
    Train(TrainArgs),
}

#[derive(Args, Debug, Clone)]
pub struct TrainArgs {
    /// Data directory of a coordinator (its `positions/` table is read).
    #[arg(long, default_value = "xqfarm-data")]
    pub data: PathBuf,
    /// Only positions of these runs (comma-separated; all runs when absent).
    #[arg(long, value_delimiter = ',')]
    pub runs: Vec<u64>,
    /// The network file to write (the manifest goes beside it, as .json).
    #[arg(long, default_value = "nnue.xqnn")]
    pub out: PathBuf,
    /// Hidden size H (a multiple of 16 in 16..=1024; default 128, or the warm start's).
    #[arg(long)]
    pub hidden: Option<usize>,
    /// Epochs: full passes over the training positions (default 10; 3 with --bench).
    #[arg(long)]
    pub epochs: Option<usize>,
    /// Positions per optimiser step.
    #[arg(long, default_value_t = DEFAULT_BATCH)]
    pub batch_size: usize,
    /// AdamW's base learning rate (warm-up over 2% of the steps, then cosine decay to 5%).
    #[arg(long, default_value_t = DEFAULT_LEARNING_RATE)]
    pub lr: f64,
    /// AdamW's decoupled weight decay (on the weights, not the biases).
    #[arg(long, default_value_t = DEFAULT_WEIGHT_DECAY)]
    pub weight_decay: f64,
    /// Weight of the search score in the label (0: the game result alone), as in `xqfarm tune`.
    #[arg(long, default_value_t = DEFAULT_LAMBDA)]
    pub lambda: f64,
    /// Seed of the initial weights and of the shuffles.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: every core). The network does not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Skip positions before this ply.
    #[arg(long, default_value_t = DEFAULT_MIN_PLY)]
    pub min_ply: u32,
    /// Skip positions whose search score is beyond this many centipawns.
    #[arg(long, default_value_t = DEFAULT_MAX_SCORE)]
    pub max_score: u32,
    /// Share of games held out for validation.
    #[arg(long, default_value_t = 0.05)]
    pub validation: f64,
    /// Refuse to train on fewer positions than this after the filters.
    #[arg(long, default_value_t = DEFAULT_MIN_POSITIONS)]
    pub min_positions: u64,
    /// Save a checkpoint (weights, Adam's state, epochs done) here after every epoch.
    #[arg(long, value_name = "DIR")]
    pub checkpoint: Option<PathBuf>,
    /// Continue the run saved in --checkpoint (same settings and data).
    #[arg(long, requires = "checkpoint")]
    pub resume: bool,
    /// Start from this network file (dequantised) instead of random weights.
    #[arg(long, value_name = "NET")]
    pub warm_start: Option<PathBuf>,
    /// Train at most this many epochs now (with --checkpoint, --resume goes on later); the
    /// network of the epochs done is written.
    #[arg(long, value_name = "EPOCHS")]
    pub stop_after: Option<usize>,
    /// Held-out positions of the quantisation check.
    #[arg(long, default_value_t = DEFAULT_CHECK_POSITIONS)]
    pub check_positions: usize,
    /// Time real epochs (loading and optimiser steps included) instead of training; writes
    /// nothing.
    #[arg(long)]
    pub bench: bool,
    /// With --bench: this many positions from random playouts instead of --data.
    #[arg(long, value_name = "N", requires = "bench")]
    pub synthetic: Option<usize>,
}

impl TrainArgs {
    fn filter(&self) -> DataFilter {
        DataFilter {
            runs: self.runs.clone(),
            min_ply: self.min_ply,
            max_score: self.max_score,
            validation_fraction: self.validation,
            min_positions: self.min_positions,
        }
    }

    fn train_config(&self, hidden: usize) -> TrainConfig {
        let default_epochs = if self.bench { 3 } else { DEFAULT_EPOCHS };
        TrainConfig {
            hidden,
            epochs: self.epochs.unwrap_or(default_epochs),
            batch_size: self.batch_size,
            learning_rate: self.lr,
            weight_decay: self.weight_decay,
            lambda: self.lambda,
            seed: self.seed,
        }
    }

    /// The hidden size: --hidden, else the warm start's, else the engine's default.
    fn hidden(&self) -> Result<usize> {
        if let Some(h) = self.hidden {
            return Ok(h);
        }
        match &self.warm_start {
            Some(path) => Ok(engine::nnue::Network::load(path)?.hidden()),
            None => Ok(engine::nnue::DEFAULT_HIDDEN),
        }
    }
}

pub fn run(cmd: &NnueCommand) -> Result<()> {
    match cmd {
        NnueCommand::Train(args) => train(args),
    }
}

fn train(args: &TrainArgs) -> Result<()> {
    check_lambda(args.lambda)?;
    if let Some(threads) = args.threads {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build_global().context("starting the worker threads")?;
    }
    let config = args.train_config(args.hidden()?);
    config.validate()?;
    if args.bench {
        return bench(args, &config);
    }
    let run = RunConfig {
        data: args.data.clone(),
        filter: args.filter(),
        train: config.clone(),
        out: args.out.clone(),
        checkpoint: args.checkpoint.clone(),
        resume: args.resume,
        warm_start: args.warm_start.clone(),
        stop_after: args.stop_after,
        check_positions: args.check_positions,
        command_line: std::env::args().collect::<Vec<_>>().join(" "),
        threads: rayon::current_num_threads(),
    };
    let progress = Progress::stderr();
    let outcome = train_network(&run, |event| match event {
        Event::Loaded { dataset, k, k_mse, start_epoch, seconds } => {
            progress.note(&format!(
                "positions: {}\n{} training positions ({} games), {} validation ({} games); loaded in {seconds:.1} s\n\
                 K = {k:.4} (mean squared error of the scores against the results {k_mse:.5}){}",
                dataset.counts.summary(),
                dataset.train.len(),
                dataset.train_games,
                dataset.validation.len(),
                dataset.validation_games,
                if start_epoch > 0 { format!("; resuming after epoch {start_epoch}") } else { String::new() },
            ));
        }
        Event::Batch(b) => progress.update(&batch_line(b)),
        Event::Epoch(r) => {
            progress.clear();
            progress.note(&epoch_line(config.epochs, r));
        }
    })
    .with_context(|| format!("training on {}", args.data.display()));
    progress.end();
    let outcome = outcome?;
    print!("{}", summary(&outcome));
    if !outcome.check.within_contract() {
        bail!(
            "quantisation check: the engine's evaluation differs from the float model's by up to {:.2} cp (contract: \
             {CONTRACT_CP} cp)",
            outcome.check.max_abs_cp
        );
    }
    Ok(())
}

/// The live line of a batch.
pub fn batch_line(b: &BatchProgress) -> String {
    let width = 30;
    let done = (b.batch * width / b.batches.max(1)).min(width);
    format!(
        "epoch {}/{} [{}{}] batch {}/{}  train {:.6}",
        b.epoch,
        b.epochs,
        "#".repeat(done),
        " ".repeat(width - done),
        b.batch,
        b.batches,
        b.train_loss
    )
}

/// The line of a finished epoch.
pub fn epoch_line(epochs: usize, r: &EpochReport) -> String {
    format!(
        "epoch {:>3}/{epochs}  train {:.6}  validation {:.6}  lr {:.2e}  {:.1} s  {:.0} positions/s",
        r.epoch, r.train_loss, r.validation_loss, r.learning_rate, r.seconds, r.positions_per_second
    )
}

/// What the run wrote and measured.
pub fn summary(o: &RunOutcome) -> String {
    let last = o.history.last();
    format!(
        "K = {:.4}; {} epochs{}: train loss {:.6}, validation loss {:.6} (float) / {:.6} (network as written)\n\
         quantisation check on {} held-out positions: engine vs float model max {:.2} cp, mean {:.3} cp \
         (contract {CONTRACT_CP} cp); before snapping to the grid: max {:.2} cp, mean {:.3} cp\n\
         wrote {} ({} bytes, sha256 {}) and {}\n",
        o.k,
        o.history.len(),
        o.resumed_from.map(|e| format!(" (resumed after {e})")).unwrap_or_default(),
        last.map_or(f64::NAN, |r| r.train_loss),
        o.validation_loss,
        o.network_validation_loss,
        o.check.positions,
        o.check.max_abs_cp,
        o.check.mean_abs_cp,
        o.raw_check.max_abs_cp,
        o.raw_check.mean_abs_cp,
        o.network.display(),
        o.network_bytes,
        o.sha256,
        o.manifest.display(),
    )
}

fn bench(args: &TrainArgs, config: &TrainConfig) -> Result<()> {
    let started = Instant::now();
    let (source, train, validation) = match args.synthetic {
        Some(n) => {
            let positions = synthetic::synthetic_positions(n, args.seed);
            let (train, validation) = split_by_game(positions, args.validation);
            (format!("{n} synthetic positions (random playouts)"), train, validation)
        }
        None => {
            let dataset =
                load_dataset(&args.data, &args.filter()).with_context(|| format!("reading {}", args.data.display()))?;
            (format!("{} ({})", args.data.display(), dataset.counts.summary()), dataset.train, dataset.validation)
        }
    };
    let load_seconds = started.elapsed().as_secs_f64();
    let k = fit_score_k(&train)?.k;
    let report = bench_epochs(&source, &train, &validation, load_seconds, config, k)?;
    println!("{report}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(subcommand)]
        command: NnueCommand,
    }

    fn parse(args: &[&str]) -> Result<TrainArgs, clap::Error> {
        let cli = Cli::try_parse_from(["nnue", "train"].iter().chain(args))?;
        let NnueCommand::Train(args) = cli.command;
        Ok(args)
    }

    #[test]
    fn flags_become_the_trainers_settings() {
        let args = parse(&["--runs", "3,5", "--lambda", "0.5", "--epochs", "4", "--hidden", "256"]).expect("valid");
        assert_eq!(args.runs, [3, 5]);
        assert_eq!(args.filter().min_ply, DEFAULT_MIN_PLY);
        let config = args.train_config(256);
        assert_eq!((config.epochs, config.lambda, config.hidden, config.batch_size), (4, 0.5, 256, DEFAULT_BATCH));
        let defaults = parse(&[]).expect("valid");
        assert_eq!(defaults.data, PathBuf::from("xqfarm-data"));
        assert_eq!(defaults.train_config(128).epochs, DEFAULT_EPOCHS);
        assert!(defaults.runs.is_empty());
        let bench = parse(&["--bench", "--synthetic", "1000"]).expect("valid");
        assert_eq!(bench.train_config(128).epochs, 3);
    }

    #[test]
    fn resume_needs_a_checkpoint_and_synthetic_needs_bench() {
        assert!(parse(&["--resume"]).is_err());
        assert!(parse(&["--resume", "--checkpoint", "ck"]).is_ok());
        assert!(parse(&["--synthetic", "10"]).is_err());
    }

    #[test]
    fn progress_lines_show_where_the_run_stands() {
        let b = BatchProgress { epoch: 2, epochs: 10, batch: 15, batches: 30, train_loss: 0.0123 };
        assert_eq!(
            batch_line(&b),
            format!("epoch 2/10 [{}{}] batch 15/30  train 0.012300", "#".repeat(15), " ".repeat(15))
        );
        let r = EpochReport {
            epoch: 2,
            train_loss: 0.01,
            validation_loss: 0.02,
            learning_rate: 1e-3,
            seconds: 1.5,
            positions_per_second: 400_000.0,
        };
        assert_eq!(
            epoch_line(10, &r),
            "epoch   2/10  train 0.010000  validation 0.020000  lr 1.00e-3  1.5 s  400000 positions/s"
        );
    }
}
