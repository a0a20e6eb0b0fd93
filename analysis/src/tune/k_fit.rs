//! Fitting K, the scale of the sigmoid, with the weights fixed: the K whose
//! `1 / (1 + 10^(-K * eval / 400))` best matches the labels in mean squared error.
//!
//! The evaluations are computed once; the error is then a cheap function of K alone. A scan of
//! a geometric grid over the bracket finds the best grid point (ties go to the smaller K), and a
//! golden-section search between its neighbours narrows it down. Deterministic: the same set
//! and weights give the same K on any number of threads.

use super::dataset::TuningSet;
use super::loss::{evals, mse_of_evals};
use crate::error::{Error, Result};

/// The K range searched by [`fit_k`]: wide enough for evaluations in centipawns or pawns.
pub const DEFAULT_K_BRACKET: (f64, f64) = (0.01, 20.0);

/// Grid points of the coarse scan.
const GRID: usize = 64;
/// Stop when the bracket is this narrow relative to K.
const RELATIVE_TOLERANCE: f64 = 1e-9;

/// The fitted K and the error it gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KFit {
    pub k: f64,
    pub mse: f64,
}

/// The K within [`DEFAULT_K_BRACKET`] minimising the mean squared error under `weights`.
pub fn fit_k(set: &TuningSet, weights: &[f64]) -> Result<KFit> {
    fit_k_in(set, weights, DEFAULT_K_BRACKET)
}

/// The K within `(low, high)` (both positive) minimising the mean squared error.
pub fn fit_k_in(set: &TuningSet, weights: &[f64], (low, high): (f64, f64)) -> Result<KFit> {
    if !(low.is_finite() && high.is_finite() && 0.0 < low && low < high) {
        return Err(Error::TuneSetting {
            name: "K bracket",
            value: format!("{low}..{high}"),
            reason: "must be positive and increasing".into(),
        });
    }
    if set.is_empty() {
        return Err(Error::TuneSetting {
            name: "positions",
            value: "0".into(),
            reason: "cannot fit K without positions".into(),
        });
    }
    let evals = evals(set, weights)?;
    fit_k_by(|k: f64| mse_of_evals(&evals, set.labels(), k), (low, high))
}

/// The K within `(low, high)` (both positive) minimising `error`, any error function of K
/// alone (the NNUE trainer's fits the search scores to the results): a geometric grid scan,
/// then a golden-section search between the best grid point's neighbours.
pub fn fit_k_by(error: impl Fn(f64) -> f64, (low, high): (f64, f64)) -> Result<KFit> {
    if !(low.is_finite() && high.is_finite() && 0.0 < low && low < high) {
        return Err(Error::TuneSetting {
            name: "K bracket",
            value: format!("{low}..{high}"),
            reason: "must be positive and increasing".into(),
        });
    }
    let ratio = (high / low).powf(1.0 / (GRID - 1) as f64);
    let grid: Vec<f64> = (0..GRID).map(|j| if j + 1 == GRID { high } else { low * ratio.powi(j as i32) }).collect();
    let errors: Vec<f64> = grid.iter().map(|&k| error(k)).collect();
    let best = (0..GRID).fold(0, |best, j| if errors[j] < errors[best] { j } else { best });

    let (mut a, mut b) = (grid[best.saturating_sub(1)], grid[(best + 1).min(GRID - 1)]);
    let inv_phi = (5f64.sqrt() - 1.0) / 2.0;
    let (mut x1, mut x2) = (b - inv_phi * (b - a), a + inv_phi * (b - a));
    let (mut f1, mut f2) = (error(x1), error(x2));
    while b - a > RELATIVE_TOLERANCE * b {
        if f1 <= f2 {
            (b, x2, f2) = (x2, x1, f1);
            x1 = b - inv_phi * (b - a);
            f1 = error(x1);
        } else {
            (a, x1, f1) = (x1, x2, f2);
            x2 = a + inv_phi * (b - a);
            f2 = error(x2);
        }
    }
    // The grid point may beat the interior when the minimum sits on the bracket's edge.
    let candidates = [(grid[best], errors[best]), (x1, f1), (x2, f2)];
    let (k, mse) = candidates.into_iter().fold(candidates[0], |acc, c| if c.1 < acc.1 { c } else { acc });
    Ok(KFit { k, mse })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::dataset::TuningSetBuilder;
    use crate::tune::loss::{sigmoid, weights_of};
    use engine::eval::{PHASE_MAX, Params};

    /// Labels drawn as the expected result at a known K: the fit must find that K.
    #[test]
    fn recovers_the_k_that_made_the_labels() -> Result<()> {
        let fens = [
            "2bakab2/6r2/2n1c1nc1/p1p2rp1p/4p4/2PN2PC1/P3P3P/6N2/3CA4/1RBAK1B1R w - - 0 1",
            "3akab2/3r5/8n/8p/2P1C1b2/8P/cR2N2r1/2n1B1N2/4A4/2B1KR3 w - - 0 1",
            "4k4/9/9/9/9/9/5p3/4B4/3N5/4K4 w - - 0 1",
            "4kab2/4a4/n3b4/p5p1p/2r1C4/2N1P2r1/P4nPcP/N3B4/2R6/2RAKAB2 w - - 0 1",
            "3k5/P8/9/4p4/2P6/9/9/9/9/4K4 w - - 0 1",
        ];
        let params = Params::default();
        let true_k = 0.73;
        let mut builder = TuningSetBuilder::new();
        for (g, fen) in fens.iter().enumerate() {
            let pos = engine::Position::from_fen(fen).map_err(|reason| Error::Fen { fen: fen.to_string(), reason })?;
            let eval = engine::eval::evaluate_scaled(&pos, &params) as f64 / f64::from(PHASE_MAX);
            builder.push_position(&pos, sigmoid(true_k, eval) as f32, None, g as u64)?;
        }
        let set = builder.build();
        let fit = fit_k(&set, &weights_of(&params))?;
        // Labels are f32: K is recovered to f32-label precision.
        assert!((fit.k - true_k).abs() < 1e-4, "{fit:?}");
        assert!(fit.mse < 1e-12, "{fit:?}");
        assert_eq!(fit, fit_k(&set, &weights_of(&params))?, "deterministic");
        assert!(fit_k_in(&set, &weights_of(&params), (1.0, 0.5)).is_err());
        Ok(())
    }
}
