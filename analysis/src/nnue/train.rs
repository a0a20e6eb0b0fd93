//! The training loop: epochs of shuffled mini-batches, each batch cut into fixed chunks whose
//! gradients rayon computes in parallel, summed in chunk order and applied by AdamW; the
//! validation loss after every epoch.
//!
//! # Determinism
//!
//! The same positions, configuration and start give the same bytes on any number of threads:
//! an epoch's order is a Fisher-Yates shuffle by a generator seeded from (seed, epoch) alone;
//! a batch is cut into chunks of [`CHUNK`] positions whatever the thread count; each chunk
//! sums into its own buffer, and the optimiser adds the buffers in chunk order; losses are
//! summed per chunk and then in chunk order. A resumed run needs only the weights, Adam's
//! moments and step, and the number of epochs done ([`TrainState`]).

use std::time::Instant;

use engine::nnue::Network;
use rayon::prelude::*;

use super::kernel::{LabelScale, chunk_gradient, chunk_loss};
use super::model::{FloatNetwork, check_hidden};
use super::optim::{AdamState, Schedule};
use super::packed::PackedPosition;
use crate::error::{Error, Result};
use crate::tune::playout::XorShift64;

/// Positions per parallel work item (and per gradient buffer).
pub const CHUNK: usize = 1024;

/// Default hidden size (the engine's).
pub const DEFAULT_HIDDEN: usize = engine::nnue::DEFAULT_HIDDEN;
/// Default positions per optimiser step.
pub const DEFAULT_BATCH: usize = 16384;
/// Default base learning rate (AdamW's usual 1e-3).
pub const DEFAULT_LEARNING_RATE: f64 = 1e-3;
/// Default decoupled weight decay.
pub const DEFAULT_WEIGHT_DECAY: f64 = 0.01;
/// Default weight of the search score in the label.
pub const DEFAULT_LAMBDA: f64 = 0.75;
/// Default epochs.
pub const DEFAULT_EPOCHS: usize = 10;

/// How to train.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainConfig {
    pub hidden: usize,
    pub epochs: usize,
    pub batch_size: usize,
    pub learning_rate: f64,
    pub weight_decay: f64,
    /// The search score's weight in the label, `0..=1` (0: the game result alone).
    pub lambda: f64,
    pub seed: u64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            hidden: DEFAULT_HIDDEN,
            epochs: DEFAULT_EPOCHS,
            batch_size: DEFAULT_BATCH,
            learning_rate: DEFAULT_LEARNING_RATE,
            weight_decay: DEFAULT_WEIGHT_DECAY,
            lambda: DEFAULT_LAMBDA,
            seed: 1,
        }
    }
}

fn setting(name: &'static str, value: impl ToString, reason: &str) -> Error {
    Error::NnueSetting { name, value: value.to_string(), reason: reason.into() }
}

impl TrainConfig {
    /// Refuses settings outside their domain, naming the first.
    pub fn validate(&self) -> Result<()> {
        check_lambda(self.lambda)?;
        check_hidden(self.hidden)?;
        if self.epochs == 0 {
            return Err(setting("epochs", 0, "must be at least 1"));
        }
        if self.batch_size == 0 {
            return Err(setting("batch size", 0, "must be at least 1"));
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return Err(setting("learning rate", self.learning_rate, "must be positive"));
        }
        if !(self.weight_decay.is_finite() && self.weight_decay >= 0.0) {
            return Err(setting("weight decay", self.weight_decay, "must be 0 or more"));
        }
        Ok(())
    }

    /// Optimiser steps in an epoch of `positions`.
    pub fn batches_per_epoch(&self, positions: usize) -> usize {
        positions.div_ceil(self.batch_size.max(1))
    }
}

/// `--lambda` within `0..=1`.
pub fn check_lambda(lambda: f64) -> Result<()> {
    if (0.0..=1.0).contains(&lambda) { Ok(()) } else { Err(setting("lambda", lambda, "must be within 0..=1")) }
}

/// What one epoch did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    /// 1-based.
    pub epoch: usize,
    /// The mean loss of the epoch's batches, each at the weights it was computed with.
    pub train_loss: f64,
    /// The validation loss after the epoch.
    pub validation_loss: f64,
    /// The learning rate of the epoch's last step.
    pub learning_rate: f64,
    /// Seconds of the epoch: its batches, steps and the validation pass.
    pub seconds: f64,
    /// Training positions per second of the epoch (steps and validation included).
    pub positions_per_second: f64,
}

/// Where a batch stands, for a progress bar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchProgress {
    pub epoch: usize,
    pub epochs: usize,
    pub batch: usize,
    pub batches: usize,
    /// The mean loss of the epoch's batches so far.
    pub train_loss: f64,
}

/// Everything a run carries from one epoch to the next.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainState {
    pub model: FloatNetwork,
    pub adam: AdamState,
    /// Epochs done.
    pub epoch: usize,
    pub history: Vec<EpochReport>,
}

impl TrainState {
    /// A fresh network of `config.hidden`, seeded by `config.seed`.
    pub fn fresh(config: &TrainConfig) -> Result<TrainState> {
        Ok(TrainState::from_model(FloatNetwork::random(config.hidden, config.seed)?))
    }

    /// Starts from an engine network (dequantised).
    pub fn warm(net: &Network) -> TrainState {
        TrainState::from_model(FloatNetwork::from_network(net))
    }

    fn from_model(mut model: FloatNetwork) -> TrainState {
        model.clip();
        let adam = AdamState::new(model.params().len());
        TrainState { model, adam, epoch: 0, history: Vec::new() }
    }
}

/// The order of epoch `epoch`'s positions: a Fisher-Yates shuffle seeded by (seed, epoch).
pub fn epoch_order(positions: usize, seed: u64, epoch: usize) -> Vec<u32> {
    let mut order: Vec<u32> = (0..positions as u32).collect();
    let mut z = seed ^ (epoch as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    let mut rng = XorShift64::new(z ^ (z >> 31));
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    order
}

/// The mean loss of `positions` under `model`: chunks in parallel, summed in chunk order.
pub fn mean_loss(model: &FloatNetwork, positions: &[PackedPosition], scale: LabelScale) -> f64 {
    if positions.is_empty() {
        return 0.0;
    }
    let sums: Vec<f64> =
        positions.par_chunks(CHUNK).map(|chunk| chunk_loss(model.params(), model.layout(), chunk, scale)).collect();
    sums.iter().sum::<f64>() / positions.len() as f64
}

/// A training run over fixed training and validation positions.
#[derive(Debug)]
pub struct Trainer<'a> {
    config: TrainConfig,
    scale: LabelScale,
    train: &'a [PackedPosition],
    validation: &'a [PackedPosition],
    state: TrainState,
    schedule: Schedule,
    /// One gradient buffer per chunk of a full batch.
    buffers: Vec<Vec<f32>>,
}

impl<'a> Trainer<'a> {
    /// A run from `state` (fresh, warm or a checkpoint's) with the sigmoid's `k`.
    pub fn new(
        config: TrainConfig,
        k: f64,
        train: &'a [PackedPosition],
        validation: &'a [PackedPosition],
        state: TrainState,
    ) -> Result<Trainer<'a>> {
        config.validate()?;
        if !(k.is_finite() && k > 0.0) {
            return Err(setting("K", k, "must be positive"));
        }
        if train.is_empty() {
            return Err(setting("training positions", 0, "need at least one"));
        }
        if u32::try_from(train.len()).is_err() {
            return Err(setting("training positions", train.len(), "at most 2^32 - 1"));
        }
        if state.model.hidden() != config.hidden {
            return Err(setting(
                "hidden",
                config.hidden,
                &format!("the starting network has hidden size {}", state.model.hidden()),
            ));
        }
        let steps = (config.batches_per_epoch(train.len()) * config.epochs) as u64;
        let chunks = config.batch_size.div_ceil(CHUNK);
        let len = state.model.params().len();
        Ok(Trainer {
            scale: LabelScale::new(k, config.lambda),
            schedule: Schedule { base: config.learning_rate, steps },
            buffers: vec![vec![0f32; len]; chunks],
            config,
            train,
            validation,
            state,
        })
    }

    pub fn state(&self) -> &TrainState {
        &self.state
    }

    pub fn into_state(self) -> TrainState {
        self.state
    }

    pub fn scale(&self) -> LabelScale {
        self.scale
    }

    /// Whether every epoch is done.
    pub fn is_done(&self) -> bool {
        self.state.epoch >= self.config.epochs
    }

    /// Runs the next epoch; `on_batch` sees each batch's progress.
    pub fn run_epoch(&mut self, mut on_batch: impl FnMut(&BatchProgress)) -> EpochReport {
        let started = Instant::now();
        let epoch = self.state.epoch;
        let order = epoch_order(self.train.len(), self.config.seed, epoch);
        let batches = self.config.batches_per_epoch(self.train.len());
        let layout = self.state.model.layout();
        let mut loss_sum = 0f64;
        let mut rate = 0f64;
        for (b, batch) in order.chunks(self.config.batch_size).enumerate() {
            let chunks = batch.len().div_ceil(CHUNK);
            let params = self.state.model.params();
            let train = self.train;
            let scale = self.scale;
            let losses: Vec<f64> = self.buffers[..chunks]
                .par_iter_mut()
                .zip(batch.par_chunks(CHUNK))
                .map(|(buffer, indices)| {
                    buffer.fill(0.0);
                    chunk_gradient(params, layout, train, indices, scale, buffer)
                })
                .collect();
            loss_sum += losses.iter().sum::<f64>();
            rate = self.schedule.rate(self.state.adam.step);
            let (buffers, model) = (&self.buffers[..chunks], &mut self.state.model);
            self.state.adam.step(model.params_mut(), layout, buffers, batch.len(), rate, self.config.weight_decay);
            let seen = (b * self.config.batch_size + batch.len()) as f64;
            on_batch(&BatchProgress {
                epoch: epoch + 1,
                epochs: self.config.epochs,
                batch: b + 1,
                batches,
                train_loss: loss_sum / seen,
            });
        }
        let validation_loss = mean_loss(&self.state.model, self.validation, self.scale);
        let seconds = started.elapsed().as_secs_f64();
        let report = EpochReport {
            epoch: epoch + 1,
            train_loss: loss_sum / self.train.len() as f64,
            validation_loss,
            learning_rate: rate,
            seconds,
            positions_per_second: self.train.len() as f64 / seconds.max(1e-9),
        };
        self.state.epoch += 1;
        self.state.history.push(report);
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::testing::sample_positions;

    fn small_config() -> TrainConfig {
        TrainConfig { hidden: 16, epochs: 3, batch_size: 256, learning_rate: 0.01, ..TrainConfig::default() }
    }

    #[test]
    fn training_lowers_the_validation_loss_and_repeats_bit_for_bit() -> Result<()> {
        let positions = sample_positions(3000, 11);
        let (train, validation) = positions.split_at(2500);
        let config = small_config();
        let run = |threads: usize| -> Result<TrainState> {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| setting("threads", threads, &e.to_string()))?;
            pool.install(|| {
                let mut trainer = Trainer::new(config.clone(), 1.0, train, validation, TrainState::fresh(&config)?)?;
                while !trainer.is_done() {
                    trainer.run_epoch(|_| {});
                }
                Ok(trainer.into_state())
            })
        };
        let one = run(1)?;
        let start = mean_loss(&TrainState::fresh(&config)?.model, validation, LabelScale::new(1.0, config.lambda));
        let end = one.history.last().map(|r| r.validation_loss).unwrap_or(f64::NAN);
        assert!(end < start * 0.9, "validation loss {start} -> {end}");
        let two = run(2)?;
        assert_eq!(one.model, two.model, "the same weights on 1 and 2 threads");
        assert_eq!(one.adam, two.adam);
        Ok(())
    }

    #[test]
    fn epoch_orders_are_permutations_fixed_by_seed_and_epoch() {
        let a = epoch_order(1000, 5, 0);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1000).collect::<Vec<u32>>());
        assert_eq!(a, epoch_order(1000, 5, 0));
        assert_ne!(a, epoch_order(1000, 5, 1));
        assert_ne!(a, epoch_order(1000, 6, 0));
    }

    #[test]
    fn settings_out_of_their_domain_are_named() {
        let bad = TrainConfig { lambda: 1.5, ..TrainConfig::default() };
        let err = bad.validate().expect_err("lambda 1.5").to_string();
        assert!(err.contains("lambda") && err.contains("1.5"), "{err}");
        assert!(TrainConfig { hidden: 100, ..TrainConfig::default() }.validate().is_err());
        assert!(TrainConfig { learning_rate: 0.0, ..TrainConfig::default() }.validate().is_err());
    }
}
