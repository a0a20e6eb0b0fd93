//! The empirical distribution of a sample's score, regularized as Fishtest does.

use super::outcomes::Outcomes;

/// The count given to an outcome that was never seen (Fishtest's `LLRcalc.regularize`).
///
/// Without it an empty class would make the variance zero (all draws), the pair score's
/// distribution degenerate (no losses at all) or the maximum-likelihood estimates undefined
/// (log of zero); with it every statistic stays finite. The prior weighs a thousandth of one
/// sample, so it moves nothing measurable once a few dozen samples are in.
pub const PRIOR: f64 = 1e-3;

/// A discrete distribution of the score of one sample (a pair's mean score for pentanomial
/// results, a game's score for trinomial ones): `(score in 0..=1, probability)` points in
/// ascending score, every probability positive.
#[derive(Clone, Debug, PartialEq)]
pub struct Distribution {
    points: Vec<(f64, f64)>,
    samples: f64,
}

/// Mean, variance and the shape of a distribution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Moments {
    pub mean: f64,
    pub variance: f64,
    pub skewness: f64,
    pub excess_kurtosis: f64,
}

impl Distribution {
    /// Fishtest's `results_to_pdf`: zero counts become [`PRIOR`], then the counts are
    /// normalised. An empty result set becomes the uniform distribution over the outcomes.
    pub fn from_outcomes<O: Outcomes + ?Sized>(outcomes: &O) -> Self {
        let counts: Vec<f64> = outcomes.frequencies().iter().map(|&c| if c == 0 { PRIOR } else { c as f64 }).collect();
        let samples: f64 = counts.iter().sum();
        let last = (counts.len().max(2) - 1) as f64;
        let points = counts.iter().enumerate().map(|(i, &c)| (i as f64 / last, c / samples)).collect();
        Self { points, samples }
    }

    /// Builds a distribution from explicit `(value, probability)` points (used by the
    /// maximum-likelihood estimates, whose points keep the observed values).
    pub(crate) fn from_points(points: Vec<(f64, f64)>, samples: f64) -> Self {
        Self { points, samples }
    }

    pub fn points(&self) -> &[(f64, f64)] {
        &self.points
    }

    /// The regularized number of samples (the count plus the priors).
    pub fn samples(&self) -> f64 {
        self.samples
    }

    /// Expectation and variance (Fishtest's `LLRcalc.stats`).
    pub fn mean_variance(&self) -> (f64, f64) {
        mean_variance(&self.points)
    }

    /// Expectation, variance, skewness and excess kurtosis (Fishtest's `stats_ex`).
    pub fn moments(&self) -> Moments {
        let (mean, variance) = self.mean_variance();
        let central = |k: i32| self.points.iter().map(|&(a, p)| p * (a - mean).powi(k)).sum::<f64>();
        Moments {
            mean,
            variance,
            skewness: central(3) / variance.powf(1.5),
            excess_kurtosis: central(4) / (variance * variance) - 3.0,
        }
    }
}

/// Expectation and variance of `(value, probability)` points.
pub(crate) fn mean_variance(points: &[(f64, f64)]) -> (f64, f64) {
    let mean: f64 = points.iter().map(|&(a, p)| p * a).sum();
    let variance = points.iter().map(|&(a, p)| p * (a - mean) * (a - mean)).sum();
    (mean, variance)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Pentanomial, Wdl};

    #[test]
    fn pentanomial_points_are_pair_means() {
        let d = Distribution::from_outcomes(&Pentanomial { counts: [10, 20, 40, 20, 10] });
        let values: Vec<f64> = d.points().iter().map(|p| p.0).collect();
        assert_eq!(values, [0.0, 0.25, 0.5, 0.75, 1.0]);
        let (mean, var) = d.mean_variance();
        assert!((mean - 0.5).abs() < 1e-15);
        // 2 * (0.1 * 0.25 + 0.2 * 0.0625)
        assert!((var - 0.075).abs() < 1e-15);
        assert_eq!(d.samples(), 100.0);
        let m = d.moments();
        assert!(m.skewness.abs() < 1e-12);
    }

    #[test]
    fn zero_counts_get_the_prior() {
        let d = Distribution::from_outcomes(&Wdl { wins: 0, draws: 30, losses: 0 });
        assert!((d.samples() - 30.002).abs() < 1e-12);
        assert!(d.points().iter().all(|&(_, p)| p > 0.0));
        let empty = Distribution::from_outcomes(&Pentanomial::default());
        assert!(empty.points().iter().all(|&(_, p)| (p - 0.2).abs() < 1e-15));
    }
}
