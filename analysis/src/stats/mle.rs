//! Constrained maximum-likelihood estimates of a discrete distribution, the heart of the
//! GSPRT (Fishtest's `LLRcalc.MLE_expected` and `MLE_t_value`, after Michel Van den Bergh's
//! notes "support_MLE_multinomial" and "normalized_elo_practical").
//!
//! Given the observed distribution p̂ on the values a_i, the multinomial distribution closest
//! to it (in likelihood) among those meeting a constraint has the form
//! p_i = p̂_i / (1 + x (a_i - c_i)), with x the root of the secular equation
//! Σ p̂_i (a_i - c_i) / (1 + x (a_i - c_i)) = 0.

use super::distribution::{Distribution, mean_variance};
use super::root::brentq;
use crate::error::{Error, Result};

/// Solves the secular equation Σ p_i a_i / (1 + x a_i) = 0 for x, over the interval where every
/// 1 + x a_i stays positive. `None` when the a_i do not take both signs (then no distribution
/// on these points meets the constraint).
fn secular(points: &[(f64, f64)]) -> Option<f64> {
    // Stay this far inside the poles, as Fishtest does.
    const EPSILON: f64 = 1e-9;
    let v = points.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let w = points.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let product = v * w;
    if product.is_nan() || product >= 0.0 {
        return None;
    }
    let (lower, upper) = (-1.0 / w, -1.0 / v);
    let f = |x: f64| points.iter().map(|&(a, p)| p * a / (1.0 + x * a)).sum::<f64>();
    brentq(f, lower + EPSILON, upper - EPSILON)
}

/// The maximum-likelihood distribution with expectation `s`, given the observed `pdf`
/// (Fishtest's `MLE_expected`, Proposition 1.1 of "support_MLE_multinomial").
pub fn mle_expected(pdf: &Distribution, s: f64) -> Result<Distribution> {
    let no_estimate = || Error::NoEstimate { statistic: "expected score", target: s };
    let shifted: Vec<(f64, f64)> = pdf.points().iter().map(|&(a, p)| (a - s, p)).collect();
    let x = secular(&shifted).ok_or_else(no_estimate)?;
    let points: Vec<(f64, f64)> = pdf.points().iter().map(|&(a, p)| (a, p / (1.0 + x * (a - s)))).collect();
    // Fishtest asserts this; here a miss is an error, never a panic.
    let (mean, _) = mean_variance(&points);
    let miss = (mean - s).abs();
    if miss.is_nan() || miss >= 1e-6 {
        return Err(no_estimate());
    }
    Ok(Distribution::from_points(points, pdf.samples()))
}

/// The maximum-likelihood distribution with t-value (mu - reference) / sigma equal to `t`,
/// given the observed `pdf` (Fishtest's `MLE_t_value`, Section 4.1 of
/// "normalized_elo_practical"): a fixed-point iteration, from the uniform distribution, of
/// secular solves with the constraint linearised at the current estimate; at most 10 rounds,
/// stopping when no probability moves by 1e-9.
pub fn mle_t_value(pdf: &Distribution, reference: f64, t: f64) -> Result<Distribution> {
    let no_estimate = || Error::NoEstimate { statistic: "t-value", target: t };
    let observed = pdf.points();
    let n = observed.len() as f64;
    let mut estimate: Vec<(f64, f64)> = observed.iter().map(|&(a, _)| (a, 1.0 / n)).collect();
    for _ in 0..10 {
        let (mu, var) = mean_variance(&estimate);
        let sigma = var.sqrt();
        let linearised: Vec<(f64, f64)> = observed
            .iter()
            .map(|&(a, p)| (a - reference - t * sigma * (1.0 + ((mu - a) / sigma).powi(2)) / 2.0, p))
            .collect();
        let x = secular(&linearised).ok_or_else(no_estimate)?;
        let next: Vec<(f64, f64)> =
            observed.iter().zip(&linearised).map(|(&(a, p), &(shifted, _))| (a, p / (1.0 + x * shifted))).collect();
        let moved = estimate.iter().zip(&next).map(|(old, new)| (old.1 - new.1).abs()).fold(0.0, f64::max);
        estimate = next;
        if moved < 1e-9 {
            break;
        }
    }
    let (mu, var) = mean_variance(&estimate);
    let miss = (t - (mu - reference) / var.sqrt()).abs();
    if miss.is_nan() || miss >= 1e-5 {
        return Err(no_estimate());
    }
    Ok(Distribution::from_points(estimate, pdf.samples()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Pentanomial;

    fn sample() -> Distribution {
        Distribution::from_outcomes(&Pentanomial { counts: [10789, 19328, 33806, 19402, 10543] })
    }

    #[test]
    fn expected_score_constraint_is_met() {
        let pdf = sample();
        for s in [0.45, 0.5, 0.502_878, 0.6] {
            let mle = mle_expected(&pdf, s).unwrap();
            let (mean, _) = mle.mean_variance();
            assert!((mean - s).abs() < 1e-9, "{s} -> {mean}");
            let total: f64 = mle.points().iter().map(|p| p.1).sum();
            assert!((total - 1.0).abs() < 1e-9);
        }
    }

    #[test]
    fn t_value_constraint_is_met() {
        let pdf = sample();
        for t in [-0.05, 0.0, 0.02, 0.1] {
            let mle = mle_t_value(&pdf, 0.5, t).unwrap();
            let (mean, var) = mle.mean_variance();
            assert!((t - (mean - 0.5) / var.sqrt()).abs() < 1e-6, "{t}");
        }
    }

    #[test]
    fn unreachable_constraints_are_errors() {
        let pdf = sample();
        assert!(mle_expected(&pdf, 1.5).is_err());
        assert!(mle_expected(&pdf, 1.0).is_err());
        assert!(mle_t_value(&pdf, 0.5, 50.0).is_err());
    }
}
