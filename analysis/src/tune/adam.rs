//! Minimising the loss over the weights: full-batch Adam on the exact gradient, each weight
//! kept within its declared range, frozen parameters left alone, and early stopping on the
//! validation loss.
//!
//! One epoch evaluates the loss and gradient over every training position at the current
//! weights (and the validation loss), then takes one Adam step. Epoch 0 reports the starting
//! weights; `epochs` steps give `epochs + 1` reports. The result holds the weights with the
//! lowest validation loss seen (the training loss when there is no validation set), so
//! overfitting after the best epoch costs nothing.
//!
//! The learning rate is in centipawns: Adam's step is about `learning_rate` per parameter per
//! epoch whatever the gradient's scale, which makes one default fit weights of 10 and of 1000.
//!
//! # Regularisation
//!
//! With `l2 > 0` the objective is `MSE + l2 * sum(((w - start) / 100)^2)` over the trainable
//! weights: ridge regression towards the starting set, `l2` being the loss a weight pays for
//! moving 100 cp. A weight the data hardly sees feels almost no MSE gradient, and Adam, which
//! normalises every step, would otherwise walk it to its range limit on noise; the pull keeps it
//! near the start unless the data pays for the move. The reported losses are the plain MSE, so
//! they compare with or without it.

use engine::eval::{NUM_PARAMS, Params};

use super::dataset::TuningSet;
use super::loss::{mse, mse_and_gradient, weights_of};
use super::select::Selection;
use crate::error::{Error, Result};

/// The optimiser's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct AdamConfig {
    /// The sigmoid's scale, usually from [`fit_k`](super::k_fit::fit_k).
    pub k: f64,
    /// The most Adam steps to take.
    pub epochs: usize,
    /// About how far a weight moves per step, in centipawns.
    pub learning_rate: f64,
    /// Multiplies the learning rate after every step (1 = constant).
    pub learning_rate_decay: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub epsilon: f64,
    /// Stop after this many epochs without a lower validation loss (0: never stop early).
    pub patience: usize,
    /// Ridge pull towards the starting weights: the loss added per weight moved 100 cp.
    pub l2: f64,
    /// Which parameters move.
    pub selection: Selection,
}

impl Default for AdamConfig {
    fn default() -> AdamConfig {
        AdamConfig {
            k: 1.0,
            epochs: 1000,
            learning_rate: 1.0,
            learning_rate_decay: 1.0,
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
            patience: 50,
            l2: 0.0,
            selection: Selection::all(),
        }
    }
}

impl AdamConfig {
    fn check(&self) -> Result<()> {
        let bad = |name, value: f64, reason: &str| {
            Err(Error::TuneSetting { name, value: value.to_string(), reason: reason.to_owned() })
        };
        if !(self.k.is_finite() && self.k > 0.0) {
            return bad("K", self.k, "must be positive");
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return bad("learning rate", self.learning_rate, "must be positive");
        }
        if !(self.learning_rate_decay.is_finite() && self.learning_rate_decay > 0.0 && self.learning_rate_decay <= 1.0)
        {
            return bad("learning rate decay", self.learning_rate_decay, "must be within (0, 1]");
        }
        for (name, beta) in [("beta1", self.beta1), ("beta2", self.beta2)] {
            if !(0.0..1.0).contains(&beta) {
                return bad(name, beta, "must be within [0, 1)");
            }
        }
        if !(self.epsilon.is_finite() && self.epsilon > 0.0) {
            return bad("epsilon", self.epsilon, "must be positive");
        }
        if !(self.l2.is_finite() && self.l2 >= 0.0) {
            return bad("l2", self.l2, "must be zero or positive");
        }
        Ok(())
    }
}

/// The losses at one epoch's weights (before its step).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    pub epoch: usize,
    pub train_loss: f64,
    /// The validation loss, or the training loss when there is no validation set.
    pub validation_loss: f64,
}

/// What tuning produced.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneOutcome {
    /// The real weights of the best epoch.
    pub weights: Vec<f64>,
    /// Those weights rounded to integers and clamped to their ranges.
    pub params: Params,
    /// The epoch whose weights were kept.
    pub best_epoch: usize,
    /// One report per epoch evaluated, the start included.
    pub history: Vec<EpochReport>,
    /// Whether the validation loss stopped improving before the last epoch.
    pub stopped_early: bool,
}

impl TuneOutcome {
    /// The report of the kept epoch.
    pub fn best(&self) -> Option<&EpochReport> {
        self.history.iter().find(|r| r.epoch == self.best_epoch)
    }
}

/// `l2 * sum(((w - start) / 100)^2)` over the trainable weights.
pub fn ridge_penalty(l2: f64, weights: &[f64], start: &[f64], trainable: &[bool]) -> f64 {
    let sum: f64 = weights
        .iter()
        .zip(start)
        .zip(trainable)
        .filter(|(_, t)| **t)
        .map(|((w, s), _)| ((w - s) / 100.0).powi(2))
        .sum();
    l2 * sum
}

/// Tunes the weights from `start` on `train`, stopping early on `validation`'s loss.
/// `on_epoch` sees every report as it is made (for a progress bar).
pub fn tune(
    train: &TuningSet,
    validation: &TuningSet,
    start: &Params,
    config: &AdamConfig,
    mut on_epoch: impl FnMut(&EpochReport),
) -> Result<TuneOutcome> {
    config.check()?;
    if train.is_empty() {
        return Err(Error::TuneSetting {
            name: "training positions",
            value: "0".into(),
            reason: "nothing to tune on".into(),
        });
    }
    let ranges: Vec<(f64, f64)> = (0..NUM_PARAMS)
        .map(|i| {
            let spec = Params::spec(i);
            (f64::from(spec.min), f64::from(spec.max))
        })
        .collect();
    let trainable = config.selection.flags();

    let start_weights = weights_of(start);
    let mut weights = start_weights.clone();
    // d/dw of l2 * ((w - start) / 100)^2.
    let pull = 2.0 * config.l2 / 1e4;
    let (mut m, mut v) = (vec![0.0; NUM_PARAMS], vec![0.0; NUM_PARAMS]);
    let (mut beta1_t, mut beta2_t) = (1.0, 1.0);
    let mut learning_rate = config.learning_rate;

    let mut best = (f64::INFINITY, weights.clone(), 0);
    let mut history = Vec::with_capacity(config.epochs.min(100_000) + 1);
    let mut stopped_early = false;
    for epoch in 0..=config.epochs {
        let step = mse_and_gradient(train, &weights, config.k)?;
        let validation_loss = if validation.is_empty() { step.loss } else { mse(validation, &weights, config.k)? };
        let report = EpochReport { epoch, train_loss: step.loss, validation_loss };
        on_epoch(&report);
        history.push(report);
        // Without a validation set the kept epoch is the one of the lowest objective, the
        // ridge penalty included (the plain training loss would undo the regularisation).
        let criterion = if validation.is_empty() {
            step.loss + ridge_penalty(config.l2, &weights, &start_weights, trainable)
        } else {
            validation_loss
        };
        if criterion < best.0 {
            best = (criterion, weights.clone(), epoch);
        } else if config.patience > 0 && epoch - best.2 >= config.patience {
            stopped_early = epoch < config.epochs;
            break;
        }
        if epoch == config.epochs {
            break;
        }

        beta1_t *= config.beta1;
        beta2_t *= config.beta2;
        for i in 0..NUM_PARAMS {
            if !trainable[i] {
                continue;
            }
            let g = step.gradient[i] + pull * (weights[i] - start_weights[i]);
            m[i] = config.beta1 * m[i] + (1.0 - config.beta1) * g;
            v[i] = config.beta2 * v[i] + (1.0 - config.beta2) * g * g;
            let m_hat = m[i] / (1.0 - beta1_t);
            let v_hat = v[i] / (1.0 - beta2_t);
            let (min, max) = ranges[i];
            weights[i] = (weights[i] - learning_rate * m_hat / (v_hat.sqrt() + config.epsilon)).clamp(min, max);
        }
        learning_rate *= config.learning_rate_decay;
    }

    let (_, weights, best_epoch) = best;
    let mut params = start.clone();
    for (i, &w) in weights.iter().enumerate() {
        if trainable[i] {
            params.set_clamped(i, w.round() as i64);
        }
    }
    Ok(TuneOutcome { weights, params, best_epoch, history, stopped_early })
}
