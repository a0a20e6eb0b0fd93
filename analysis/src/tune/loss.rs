//! The tuner's objective: the mean squared error between the labels and the expected result
//! the evaluation predicts, with its exact gradient.
//!
//! ```text
//! eval_i(w)   = dot(trace_i, w) / PHASE_MAX          Red's view, centipawns
//!             = p_i * sum_f n_if w_f,mg + (1 - p_i) * sum_f n_if w_f,eg,   p_i = phase_i / PHASE_MAX
//! sigmoid(e)  = 1 / (1 + 10^(-K e / 400)) = 1 / (1 + exp(-c e)),           c = K ln(10) / 400
//! E(w)        = 1/N sum_i (sigmoid(eval_i) - y_i)^2
//! dE/dw_f,mg  = 2c/N sum_i (s_i - y_i) s_i (1 - s_i) p_i n_if               (s_i = sigmoid(eval_i))
//! dE/dw_f,eg  = 2c/N sum_i (s_i - y_i) s_i (1 - s_i) (1 - p_i) n_if
//! ```
//!
//! Weights are real numbers (`f64`, one per parameter, in `engine::eval::Params` order) so the
//! optimiser can move them by fractions of a centipawn.
//!
//! # Speed and determinism
//!
//! Positions are cut into fixed chunks of [`CHUNK`] positions; rayon handles the chunks in
//! parallel, each summing its loss and gradient in its own buffer, and the chunk sums are then
//! added in chunk order. The result is therefore the same bit for bit on any number of
//! threads. The arithmetic is `f64` throughout: on this machine the loop is bound by the
//! per-entry loads, conversions and the gradient scatter, not by the width of the floats
//! (measured: an `f32` table and accumulators were no faster), and `f64` keeps the
//! finite-difference check and the K fit exact. About 12M position-epochs per second per core
//! on real traces of 38 entries (`cargo bench -p analysis --bench tuner`).

use engine::eval::{NUM_FEATURES, NUM_PARAMS, PHASE_MAX};
use rayon::prelude::*;

use super::dataset::{Columns, TuningSet};
use crate::error::{Error, Result};

/// Positions per parallel work item.
pub const CHUNK: usize = 8192;

/// `ln(10) / 400`: turns `K * eval` (centipawns) into the logistic's natural argument.
const LN10_OVER_400: f64 = std::f64::consts::LN_10 / 400.0;

/// The expected result `1 / (1 + 10^(-k * eval_cp / 400))` of an evaluation in centipawns.
#[inline]
pub fn sigmoid(k: f64, eval_cp: f64) -> f64 {
    1.0 / (1.0 + (-k * LN10_OVER_400 * eval_cp).exp())
}

/// The loss and its gradient, one entry per parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct LossAndGradient {
    pub loss: f64,
    pub gradient: Vec<f64>,
}

/// A value per feature, `[mg, eg]`, so a feature's two weights share a load. Padded to a power
/// of two so that `feature & MASK` indexes it without a bounds check: stored features are
/// below `NUM_FEATURES` (checked when the set is built), the mask only tells the compiler so.
type FeatureTable = [[f64; 2]; TABLE];
const TABLE: usize = NUM_FEATURES.next_power_of_two();
const MASK: usize = TABLE - 1;

fn zero_table() -> Box<FeatureTable> {
    Box::new([[0.0; 2]; TABLE])
}

/// Refuses a K that is not a positive number.
fn check_k(k: f64) -> Result<()> {
    if k.is_finite() && k > 0.0 {
        Ok(())
    } else {
        Err(Error::TuneSetting { name: "K", value: k.to_string(), reason: "must be positive".into() })
    }
}

/// The weights as a feature table.
fn feature_pairs(weights: &[f64]) -> Result<Box<FeatureTable>> {
    if weights.len() != NUM_PARAMS {
        return Err(Error::TuneSetting {
            name: "weights",
            value: format!("{} values", weights.len()),
            reason: format!("expected one per parameter ({NUM_PARAMS})"),
        });
    }
    if let Some(i) = weights.iter().position(|w| !w.is_finite()) {
        return Err(Error::TuneSetting {
            name: "weights",
            value: weights[i].to_string(),
            reason: format!("parameter #{i} is not finite"),
        });
    }
    let mut table = zero_table();
    for (slot, w) in table.iter_mut().zip(weights.chunks_exact(2)) {
        *slot = [w[0], w[1]];
    }
    Ok(table)
}

/// `p_i`, the middlegame share of a position.
#[inline]
fn mg_share(phase: u8) -> f64 {
    f64::from(phase) * (1.0 / f64::from(PHASE_MAX))
}

/// The `[mg, eg]` sums of a position's entries. One accumulator pair: four independent ones
/// (to shorten the chain of additions) measured no faster, the out-of-order core already
/// overlaps this chain with the previous position's gradient scatter.
#[inline]
fn phase_sums(pairs: &FeatureTable, features: &[u16], counts: &[i8]) -> (f64, f64) {
    let (mut mg, mut eg) = (0.0, 0.0);
    for (&f, &n) in features.iter().zip(counts) {
        let w = pairs[usize::from(f) & MASK];
        let n = f64::from(n);
        mg += n * w[0];
        eg += n * w[1];
    }
    (mg, eg)
}

/// Position `i`'s evaluation in centipawns from Red's side: `dot(trace, weights) / PHASE_MAX`.
///
/// # Panics
/// When `i >= set.len()` or `weights.len() != NUM_PARAMS`.
pub fn eval(set: &TuningSet, i: usize, weights: &[f64]) -> f64 {
    assert_eq!(weights.len(), NUM_PARAMS, "one weight per parameter");
    let p = set.position(i);
    let (mut mg, mut eg) = (0.0, 0.0);
    for (&f, &n) in p.features.iter().zip(p.counts) {
        let f = 2 * usize::from(f);
        mg += f64::from(n) * weights[f];
        eg += f64::from(n) * weights[f + 1];
    }
    let share = mg_share(p.phase);
    share * mg + (1.0 - share) * eg
}

/// Every position's evaluation (centipawns, Red's view), in position order.
pub fn evals(set: &TuningSet, weights: &[f64]) -> Result<Vec<f64>> {
    let pairs = feature_pairs(weights)?;
    let Columns { offsets, features, counts, phases, .. } = set.columns();
    Ok((0..set.len())
        .into_par_iter()
        .with_min_len(CHUNK)
        .map(|i| {
            let (lo, hi) = (offsets[i] as usize, offsets[i + 1] as usize);
            let (mg, eg) = phase_sums(&pairs, &features[lo..hi], &counts[lo..hi]);
            let share = mg_share(phases[i]);
            share * mg + (1.0 - share) * eg
        })
        .collect())
}

/// The mean squared error of `sigmoid(k, eval)` against the labels, from evaluations computed
/// once (for fitting K). 0 for no positions.
pub fn mse_of_evals(evals: &[f64], labels: &[f32], k: f64) -> f64 {
    if evals.is_empty() {
        return 0.0;
    }
    let chunk_sums: Vec<f64> = evals
        .par_chunks(CHUNK)
        .zip(labels.par_chunks(CHUNK))
        .map(|(e, y)| {
            e.iter()
                .zip(y)
                .map(|(&e, &y)| {
                    let d = sigmoid(k, e) - f64::from(y);
                    d * d
                })
                .sum::<f64>()
        })
        .collect();
    chunk_sums.iter().sum::<f64>() / evals.len() as f64
}

/// The mean squared error of the set under `weights` and `k`. 0 for an empty set.
pub fn mse(set: &TuningSet, weights: &[f64], k: f64) -> Result<f64> {
    check_k(k)?;
    let pairs = feature_pairs(weights)?;
    if set.is_empty() {
        return Ok(0.0);
    }
    let c = k * LN10_OVER_400;
    let Columns { offsets, features, counts, phases, labels } = set.columns();
    let chunk_sums: Vec<f64> = (0..set.len().div_ceil(CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let mut sum = 0.0;
            for i in chunk * CHUNK..((chunk + 1) * CHUNK).min(set.len()) {
                let (lo, hi) = (offsets[i] as usize, offsets[i + 1] as usize);
                let (mg, eg) = phase_sums(&pairs, &features[lo..hi], &counts[lo..hi]);
                let share = mg_share(phases[i]);
                let s = 1.0 / (1.0 + (-c * (share * mg + (1.0 - share) * eg)).exp());
                let d = s - f64::from(labels[i]);
                sum += d * d;
            }
            sum
        })
        .collect();
    Ok(chunk_sums.iter().sum::<f64>() / set.len() as f64)
}

/// The mean squared error and its exact gradient with respect to every weight.
pub fn mse_and_gradient(set: &TuningSet, weights: &[f64], k: f64) -> Result<LossAndGradient> {
    check_k(k)?;
    let pairs = feature_pairs(weights)?;
    if set.is_empty() {
        return Ok(LossAndGradient { loss: 0.0, gradient: vec![0.0; NUM_PARAMS] });
    }
    let c = k * LN10_OVER_400;
    let Columns { offsets, features, counts, phases, labels } = set.columns();
    let chunks: Vec<(f64, Box<FeatureTable>)> = (0..set.len().div_ceil(CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let mut sum = 0.0;
            let mut gradient = zero_table();
            for i in chunk * CHUNK..((chunk + 1) * CHUNK).min(set.len()) {
                let (lo, hi) = (offsets[i] as usize, offsets[i + 1] as usize);
                let (features, counts) = (&features[lo..hi], &counts[lo..hi]);
                let (mg, eg) = phase_sums(&pairs, features, counts);
                let share = mg_share(phases[i]);
                let s = 1.0 / (1.0 + (-c * (share * mg + (1.0 - share) * eg)).exp());
                let d = s - f64::from(labels[i]);
                sum += d * d;
                // dE_i/d eval_i without the constant 2c/N, applied once at the end.
                let g = d * s * (1.0 - s);
                let (g_mg, g_eg) = (g * share, g * (1.0 - share));
                for (&f, &n) in features.iter().zip(counts) {
                    let n = f64::from(n);
                    let slot = &mut gradient[usize::from(f) & MASK];
                    slot[0] += g_mg * n;
                    slot[1] += g_eg * n;
                }
            }
            (sum, gradient)
        })
        .collect();
    let n = set.len() as f64;
    let mut loss = 0.0;
    let mut gradient = vec![0.0; NUM_PARAMS];
    for (sum, chunk_gradient) in &chunks {
        loss += sum;
        for (total, pair) in gradient.chunks_exact_mut(2).zip(chunk_gradient.iter()) {
            total[0] += pair[0];
            total[1] += pair[1];
        }
    }
    let scale = 2.0 * c / n;
    gradient.iter_mut().for_each(|g| *g *= scale);
    Ok(LossAndGradient { loss: loss / n, gradient })
}

/// `Params` as real weights, for the loss functions.
pub fn weights_of(params: &engine::eval::Params) -> Vec<f64> {
    params.as_slice().iter().map(|&v| f64::from(v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::dataset::TuningSetBuilder;
    use engine::eval::Params;

    #[test]
    fn sigmoid_is_the_texel_curve() {
        assert_eq!(sigmoid(1.0, 0.0), 0.5);
        assert!((sigmoid(1.0, 400.0) - 10.0 / 11.0).abs() < 1e-15);
        assert!((sigmoid(2.0, -200.0) - 1.0 / 11.0).abs() < 1e-15);
        assert_eq!(sigmoid(1.0, -1e6), 0.0);
        assert_eq!(sigmoid(1.0, 1e6), 1.0);
    }

    #[test]
    fn eval_is_the_engine_score_and_loss_matches_a_direct_sum() -> Result<()> {
        let fens = [
            ("2bakab2/6r2/2n1c1nc1/p1p2rp1p/4p4/2PN2PC1/P3P3P/6N2/3CA4/1RBAK1B1R w - - 0 1", 1.0),
            ("3akab2/3r5/8n/8p/2P1C1b2/8P/cR2N2r1/2n1B1N2/4A4/2B1KR3 w - - 0 1", 0.5),
            ("4k4/9/9/9/9/9/5p3/4B4/3N5/4K4 w - - 0 1", 0.0),
        ];
        let mut builder = TuningSetBuilder::new();
        for (g, (fen, result)) in fens.iter().enumerate() {
            builder.push_fen(fen, *result, None, g as u64)?;
        }
        let set = builder.build();
        let params = Params::default();
        let weights = weights_of(&params);
        let all = evals(&set, &weights)?;
        let mut direct = 0.0;
        for (i, (fen, result)) in fens.iter().enumerate() {
            let exact = set.dot(i, &params) as f64 / f64::from(PHASE_MAX);
            assert!((eval(&set, i, &weights) - exact).abs() < 1e-9, "{fen}");
            assert!((all[i] - exact).abs() < 1e-9, "{fen}");
            direct += (sigmoid(1.3, exact) - f64::from(*result)).powi(2);
        }
        direct /= 3.0;
        assert!((mse(&set, &weights, 1.3)? - direct).abs() < 1e-12);
        assert!((mse_and_gradient(&set, &weights, 1.3)?.loss - direct).abs() < 1e-12);
        assert!((mse_of_evals(&all, set.labels(), 1.3) - direct).abs() < 1e-12);
        assert!(mse(&set, &weights[1..], 1.0).is_err());
        assert!(mse_and_gradient(&set, &weights, 0.0).is_err());
        Ok(())
    }
}
