//! `xqfarm nnue train` as a library call: a data directory in, an XQNN v1 file and its
//! manifest out.
//!
//! 1. Read, filter and split the positions ([`load_dataset`]).
//! 2. Fit K on the training positions' scores and results ([`fit_score_k`]).
//! 3. Start fresh, from a network file (`warm_start`, dequantised) or from the checkpoint
//!    (`resume`, which must belong to the same settings and data).
//! 4. Train, saving a checkpoint after every epoch when asked.
//! 5. Snap the weights to the quantisation grid, write the network (`Network::save`), check
//!    the engine's integer evaluation against the float model on held-out positions, and
//!    write the manifest (`<out>` with the extension `.json`): the data, the filters' counts,
//!    the settings, the command line, the losses, K, the check and the file's SHA-256.

use std::path::{Path, PathBuf};
use std::time::Instant;

use engine::nnue::Network;
use serde_json::json;
use sha2::{Digest, Sha256};

use super::checkpoint::{Checkpoint, RunIdentity, checkpoint_path};
use super::data::{DataFilter, Dataset, Filter, FilterCounts, load_dataset};
use super::kernel::LabelScale;
use super::quant_check::{QuantCheck, quantisation_check};
use super::scale::fit_score_k;
use super::train::{BatchProgress, EpochReport, TrainConfig, TrainState, Trainer, mean_loss};
use crate::error::{Error, Result};

/// Default positions of the quantisation check.
pub const DEFAULT_CHECK_POSITIONS: usize = 10_000;

/// Everything `xqfarm nnue train` was asked.
#[derive(Clone, Debug, PartialEq)]
pub struct RunConfig {
    pub data: PathBuf,
    pub filter: DataFilter,
    pub train: TrainConfig,
    /// The network file to write.
    pub out: PathBuf,
    /// Where to save a checkpoint after every epoch.
    pub checkpoint: Option<PathBuf>,
    /// Continue from the checkpoint.
    pub resume: bool,
    /// Start from this network file.
    pub warm_start: Option<PathBuf>,
    /// Train at most this many epochs in this call (a time slice: with a checkpoint, a later
    /// call with `resume` goes on); the network of the epochs done is written all the same.
    pub stop_after: Option<usize>,
    /// Held-out positions of the quantisation check (fewer when validation has fewer).
    pub check_positions: usize,
    /// For the manifest.
    pub command_line: String,
    /// For the manifest (the result does not depend on it).
    pub threads: usize,
}

/// What the run reports as it goes.
#[derive(Debug)]
pub enum Event<'a> {
    /// The positions are read and K fitted; training starts after `start_epoch` epochs.
    Loaded {
        dataset: &'a Dataset,
        k: f64,
        k_mse: f64,
        start_epoch: usize,
        seconds: f64,
    },
    Batch(&'a BatchProgress),
    Epoch(&'a EpochReport),
}

/// What the run did.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome {
    pub counts: FilterCounts,
    pub train_positions: usize,
    pub validation_positions: usize,
    pub k: f64,
    pub history: Vec<EpochReport>,
    /// Epochs the checkpoint had done when resumed.
    pub resumed_from: Option<usize>,
    /// The (train, validation) loss of the starting weights (fresh or the warm start's).
    pub start_loss: (f64, f64),
    /// The validation loss of the float weights, and of the network as written.
    pub validation_loss: f64,
    pub network_validation_loss: f64,
    /// The written network against the float model it was snapped from (the contract), and
    /// against the trained weights before snapping (for information).
    pub check: QuantCheck,
    pub raw_check: QuantCheck,
    pub network: PathBuf,
    pub manifest: PathBuf,
    pub sha256: String,
    pub network_bytes: usize,
    pub load_seconds: f64,
    pub train_seconds: f64,
}

/// Where the manifest of network file `out` goes.
pub fn manifest_path(out: &Path) -> PathBuf {
    out.with_extension("json")
}

fn network_error(path: &Path, reason: impl ToString) -> Error {
    Error::Network { path: path.display().to_string(), reason: reason.to_string() }
}

/// Runs the whole command (see the module documentation).
pub fn train_network(config: &RunConfig, mut on_event: impl FnMut(Event<'_>)) -> Result<RunOutcome> {
    config.train.validate()?;
    if config.resume && config.checkpoint.is_none() {
        return Err(Error::NnueSetting {
            name: "resume",
            value: "true".into(),
            reason: "needs a checkpoint directory (--checkpoint DIR)".into(),
        });
    }
    let started = Instant::now();
    let dataset = load_dataset(&config.data, &config.filter)?;
    let fit = fit_score_k(&dataset.train)?;
    let identity = RunIdentity { config: config.train.clone(), k: fit.k, data: dataset.fingerprint() };

    // Where training starts (and, on resumption, started): fresh or the warm start.
    let initial = match &config.warm_start {
        Some(path) => {
            let net = Network::load(path).map_err(|e| network_error(path, e))?;
            if net.hidden() != config.train.hidden {
                return Err(Error::NnueSetting {
                    name: "hidden",
                    value: config.train.hidden.to_string(),
                    reason: format!("the warm start {} has hidden size {}", path.display(), net.hidden()),
                });
            }
            TrainState::warm(&net)
        }
        None => TrainState::fresh(&config.train)?,
    };
    let start_scale = LabelScale::new(fit.k, config.train.lambda);
    let start_loss = (
        mean_loss(&initial.model, &dataset.train, start_scale),
        mean_loss(&initial.model, &dataset.validation, start_scale),
    );
    let (state, resumed_from) = match (&config.checkpoint, config.resume) {
        (Some(dir), true) => {
            let state = Checkpoint::load(dir)?.resume(&identity, &checkpoint_path(dir))?;
            let done = state.epoch;
            (state, Some(done))
        }
        _ => (initial, None),
    };
    let load_seconds = started.elapsed().as_secs_f64();
    on_event(Event::Loaded {
        dataset: &dataset,
        k: fit.k,
        k_mse: fit.mse,
        start_epoch: state.epoch,
        seconds: load_seconds,
    });

    let started = Instant::now();
    let mut trainer = Trainer::new(config.train.clone(), fit.k, &dataset.train, &dataset.validation, state)?;
    let mut this_call = 0;
    while !trainer.is_done() && config.stop_after.is_none_or(|n| this_call < n) {
        this_call += 1;
        let report = trainer.run_epoch(|b| on_event(Event::Batch(b)));
        on_event(Event::Epoch(&report));
        if let Some(dir) = &config.checkpoint {
            Checkpoint { run: identity.clone(), state: trainer.state().clone() }.save(dir)?;
        }
    }
    let scale: LabelScale = trainer.scale();
    let state = trainer.into_state();
    let train_seconds = started.elapsed().as_secs_f64();

    let snapped = state.model.snapped();
    let net = snapped.quantise()?;
    if let Some(parent) = config.out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| network_error(&config.out, e))?;
    }
    net.save(&config.out).map_err(|e| network_error(&config.out, e))?;
    let bytes = std::fs::read(&config.out).map_err(|e| network_error(&config.out, e))?;
    let sha256: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();

    let held_out = &dataset.validation[..config.check_positions.min(dataset.validation.len())];
    let check = quantisation_check(&snapped, &net, held_out)?;
    let raw_check = quantisation_check(&state.model, &net, held_out)?;
    let validation_loss = mean_loss(&state.model, &dataset.validation, scale);
    let network_validation_loss = mean_loss(&snapped, &dataset.validation, scale);

    let outcome = RunOutcome {
        counts: dataset.counts.clone(),
        train_positions: dataset.train.len(),
        validation_positions: dataset.validation.len(),
        k: fit.k,
        history: state.history.clone(),
        resumed_from,
        start_loss,
        validation_loss,
        network_validation_loss,
        check,
        raw_check,
        network: config.out.clone(),
        manifest: manifest_path(&config.out),
        sha256,
        network_bytes: bytes.len(),
        load_seconds,
        train_seconds,
    };
    let text = manifest(config, &dataset, &outcome);
    std::fs::write(&outcome.manifest, text).map_err(|e| network_error(&outcome.manifest, e))?;
    Ok(outcome)
}

/// The manifest's JSON text.
pub fn manifest(config: &RunConfig, dataset: &Dataset, outcome: &RunOutcome) -> String {
    let filters: Vec<_> =
        Filter::ALL.iter().map(|f| json!({ "filter": f.as_str(), "dropped": dataset.counts.dropped_by(*f) })).collect();
    let epochs: Vec<_> = outcome
        .history
        .iter()
        .map(|r| {
            json!({
                "epoch": r.epoch,
                "train_loss": r.train_loss,
                "validation_loss": r.validation_loss,
                "learning_rate": r.learning_rate,
                "seconds": r.seconds,
                "positions_per_second": r.positions_per_second,
            })
        })
        .collect();
    let last = outcome.history.last();
    let t = &config.train;
    let check =
        |c: &QuantCheck| json!({ "positions": c.positions, "max_abs_cp": c.max_abs_cp, "mean_abs_cp": c.mean_abs_cp });
    let value = json!({
        "network": outcome.network.display().to_string(),
        "sha256": outcome.sha256,
        "bytes": outcome.network_bytes,
        "format": { "version": engine::nnue::FORMAT_VERSION, "architecture": engine::nnue::ARCHITECTURE, "hidden": t.hidden },
        "command_line": config.command_line,
        "data": {
            "dir": config.data.display().to_string(),
            "runs": if config.filter.runs.is_empty() { json!("all") } else { json!(config.filter.runs) },
            "min_ply": config.filter.min_ply,
            "max_score": config.filter.max_score,
            "validation_fraction": config.filter.validation_fraction,
            "rows": dataset.counts.rows,
            "filters": filters,
            "positions": dataset.counts.kept,
            "train_positions": dataset.train.len(),
            "validation_positions": dataset.validation.len(),
            "train_games": dataset.train_games,
            "validation_games": dataset.validation_games,
            "fingerprint": format!("{:016x}", dataset.fingerprint()),
        },
        "training": {
            "seed": t.seed,
            "threads": config.threads,
            "epochs": t.epochs,
            "batch_size": t.batch_size,
            "learning_rate": t.learning_rate,
            "weight_decay": t.weight_decay,
            "lambda": t.lambda,
            "k": outcome.k,
            "warm_start": config.warm_start.as_ref().map(|p| p.display().to_string()),
            "resumed_from_epoch": outcome.resumed_from,
            "start_train_loss": outcome.start_loss.0,
            "start_validation_loss": outcome.start_loss.1,
            "load_seconds": outcome.load_seconds,
            "train_seconds": outcome.train_seconds,
        },
        "epochs": epochs,
        "final": {
            "train_loss": last.map(|r| r.train_loss),
            "validation_loss": outcome.validation_loss,
            "network_validation_loss": outcome.network_validation_loss,
        },
        "quantisation_check": {
            "contract_cp": super::quant_check::CONTRACT_CP,
            "snapped": check(&outcome.check),
            "unsnapped": check(&outcome.raw_check),
        },
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    text.push('\n');
    text
}
