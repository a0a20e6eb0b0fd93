//! The trainer's throughput: real epochs (shuffle, batches, gradients, AdamW steps and the
//! validation pass) timed over a training set, as position-epochs per second, and the bytes
//! each position takes in memory. `xqfarm nnue train --bench` runs it on a data directory or
//! on synthetic positions ([`super::synthetic`]).

use std::time::Instant;

use super::packed::PackedPosition;
use super::train::{TrainConfig, TrainState, Trainer};
use crate::error::Result;
use crate::tune::is_validation_game;

/// What [`bench_epochs`] measured.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchReport {
    /// Where the positions came from.
    pub source: String,
    pub train_positions: usize,
    pub validation_positions: usize,
    pub hidden: usize,
    pub batch_size: usize,
    pub threads: usize,
    /// Memory per training position: the packed position and its index in the epoch's order.
    pub bytes_per_position: f64,
    /// Seconds spent making the positions (reading Parquet, or the playouts).
    pub load_seconds: f64,
    pub epochs: usize,
    /// Seconds of the epochs alone.
    pub train_seconds: f64,
    /// Training positions times epochs per second of the epochs.
    pub position_epochs_per_second: f64,
    /// The same with the loading counted in.
    pub overall_position_epochs_per_second: f64,
}

impl std::fmt::Display for BenchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} training + {} validation positions ({:.0} bytes each; loaded in {:.2} s), H = {}, batch {}, \
             {} epochs in {:.2} s on {} threads: {:.0} position-epochs/s ({:.0} with the loading)",
            self.source,
            self.train_positions,
            self.validation_positions,
            self.bytes_per_position,
            self.load_seconds,
            self.hidden,
            self.batch_size,
            self.epochs,
            self.train_seconds,
            self.threads,
            self.position_epochs_per_second,
            self.overall_position_epochs_per_second,
        )
    }
}

/// Splits positions with their games by [`is_validation_game`].
pub fn split_by_game(
    positions: Vec<(PackedPosition, u64)>,
    validation_fraction: f64,
) -> (Vec<PackedPosition>, Vec<PackedPosition>) {
    let (validation, train): (Vec<_>, Vec<_>) =
        positions.into_iter().partition(|&(_, game)| is_validation_game(game, validation_fraction));
    (train.into_iter().map(|(p, _)| p).collect(), validation.into_iter().map(|(p, _)| p).collect())
}

/// Times `config.epochs` epochs of a fresh network over `train`, with K = `k`.
pub fn bench_epochs(
    source: &str,
    train: &[PackedPosition],
    validation: &[PackedPosition],
    load_seconds: f64,
    config: &TrainConfig,
    k: f64,
) -> Result<BenchReport> {
    let mut trainer = Trainer::new(config.clone(), k, train, validation, TrainState::fresh(config)?)?;
    let started = Instant::now();
    while !trainer.is_done() {
        std::hint::black_box(trainer.run_epoch(|_| {}));
    }
    let train_seconds = started.elapsed().as_secs_f64();
    let work = (train.len() * config.epochs) as f64;
    Ok(BenchReport {
        source: source.to_owned(),
        train_positions: train.len(),
        validation_positions: validation.len(),
        hidden: config.hidden,
        batch_size: config.batch_size,
        threads: rayon::current_num_threads(),
        bytes_per_position: (std::mem::size_of::<PackedPosition>() + std::mem::size_of::<u32>()) as f64,
        load_seconds,
        epochs: config.epochs,
        train_seconds,
        position_epochs_per_second: work / train_seconds.max(1e-9),
        overall_position_epochs_per_second: work / (train_seconds + load_seconds).max(1e-9),
    })
}
