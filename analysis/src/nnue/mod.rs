//! The NNUE trainer: a CPU trainer for the engine's network (architecture 1 of
//! `engine/NNUE.md`), from the farm's sampled positions to an XQNN v1 file.
//!
//! ```
//! use analysis::nnue::{LabelScale, TrainConfig, TrainState, Trainer, fit_score_k, mean_loss, synthetic};
//!
//! let positions = synthetic::synthetic_positions(4000, 1);
//! let (train, validation) = analysis::nnue::bench::split_by_game(positions, 0.2);
//! let k = fit_score_k(&train)?.k;
//! let config = TrainConfig { hidden: 16, epochs: 4, batch_size: 256, learning_rate: 0.01, ..TrainConfig::default() };
//! let start = TrainState::fresh(&config)?;
//! let before = mean_loss(&start.model, &validation, LabelScale::new(k, config.lambda));
//! let mut trainer = Trainer::new(config, k, &train, &validation, start)?;
//! while !trainer.is_done() {
//!     trainer.run_epoch(|_batch| {});
//! }
//! let state = trainer.into_state();
//! assert!(state.history[3].validation_loss < before, "{before} -> {:?}", state.history);
//! let net = state.model.snapped().quantise()?;                // the engine's network
//! assert_eq!(net.hidden(), 16);
//! # Ok::<(), analysis::Error>(())
//! ```
//!
//! One file per concept: `packed.rs` (a position in 32 bytes and its inputs), `model.rs`
//! (the float network, quantisation and clipping), `kernel.rs` (the forward and backward
//! loops), `optim.rs` (AdamW and the schedule), `train.rs` (epochs, batches, determinism),
//! `scale.rs` (K), `checkpoint.rs`, `quant_check.rs`, `synthetic.rs` and `bench.rs`; with
//! `reports`, `data.rs` (Parquet to positions, the filters) and `run.rs` (the whole command:
//! data directory to network file and manifest).

pub mod bench;
pub mod checkpoint;
#[cfg(feature = "reports")]
pub mod data;
pub mod kernel;
pub mod model;
pub mod optim;
pub mod packed;
pub mod quant_check;
#[cfg(feature = "reports")]
pub mod run;
pub mod scale;
pub mod synthetic;
pub mod train;

pub use checkpoint::{Checkpoint, RunIdentity};
pub use kernel::LabelScale;
pub use model::FloatNetwork;
pub use packed::PackedPosition;
pub use quant_check::{CONTRACT_CP, QuantCheck, quantisation_check};
pub use scale::fit_score_k;
pub use train::{BatchProgress, EpochReport, TrainConfig, TrainState, Trainer, check_lambda, mean_loss};

#[cfg(test)]
pub(crate) mod testing {
    use super::PackedPosition;

    /// Positions of random playouts (see `synthetic.rs`).
    pub fn sample_positions(n: usize, seed: u64) -> Vec<PackedPosition> {
        super::synthetic::synthetic_positions(n, seed).into_iter().map(|(p, _)| p).collect()
    }
}
