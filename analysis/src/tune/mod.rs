//! The Texel tuner's core: labelled positions as compact sparse traces, the mean squared error
//! of the predicted result and its exact gradient, the fit of the sigmoid's K, and Adam with
//! ranges, frozen groups and early stopping. Pure library code: reading games is elsewhere.
//!
//! ```
//! use analysis::tune::{AdamConfig, Selection, TuningSetBuilder, fit_k, tune, weights_of};
//! use engine::eval::{Group, Params};
//!
//! let mut builder = TuningSetBuilder::new();
//! let games = [
//!     ("2bakab2/6r2/2n1c1nc1/p1p2rp1p/4p4/2PN2PC1/P3P3P/6N2/3CA4/1RBAK1B1R w - - 0 1", 1.0),
//!     ("3akab2/3r5/8n/8p/2P1C1b2/8P/cR2N2r1/2n1B1N2/4A4/2B1KR3 w - - 0 1", 0.0),
//!     ("4k4/9/9/9/9/9/5p3/4B4/3N5/4K4 w - - 0 1", 0.5),
//! ];
//! for (game, (fen, result_red)) in games.iter().enumerate() {
//!     builder.push_fen(fen, *result_red, None, game as u64)?;
//! }
//! let (train, validation) = builder.build().split_by_game(0.05)?;
//!
//! let start = Params::default();
//! let k = fit_k(&train, &weights_of(&start))?.k;
//! let config = AdamConfig { k, epochs: 20, selection: Selection::only(&[Group::Material]), ..AdamConfig::default() };
//! let outcome = tune(&train, &validation, &start, &config, |_epoch| {})?;
//! assert!(outcome.best().is_some_and(|b| b.train_loss <= outcome.history[0].train_loss));
//! # Ok::<(), analysis::Error>(())
//! ```

mod adam;
pub mod bench;
mod dataset;
mod k_fit;
mod loss;
pub mod playout;
mod select;

pub use adam::{AdamConfig, EpochReport, TuneOutcome, ridge_penalty, tune};
pub use dataset::{DEFAULT_VALIDATION_FRACTION, PositionView, TuningSet, TuningSetBuilder, is_validation_game};
pub use k_fit::{DEFAULT_K_BRACKET, KFit, fit_k, fit_k_by, fit_k_in};
pub use loss::{CHUNK, LossAndGradient, eval, evals, mse, mse_and_gradient, mse_of_evals, sigmoid, weights_of};
pub use select::{Selection, groups, parse_groups};
