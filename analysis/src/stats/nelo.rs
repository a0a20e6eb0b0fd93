//! Normalized Elo (nElo), Fishtest's measure of how hard a strength difference is to detect.
//!
//! nElo = (score - 0.5) / σ_game · 800 / ln 10, with σ_game the standard deviation of one
//! game's score: sqrt(2 · variance of a pair's mean score) for pentanomial counts, the
//! variance of a game's score for trinomial ones. The number of games an SPRT needs scales
//! with 1/nElo², whatever the draw rate, which is why Fishtest states its bounds in nElo. With
//! no draws and small differences nElo and logistic Elo coincide.
//!
//! The interval is Fishtest's (`tests_stats`): the normal interval of the t-value
//! t = (mean - 0.5)/σ whose asymptotic variance per sample is
//! 1 - t·skewness + t²(excess kurtosis + 2)/4.

use super::distribution::Distribution;
use super::elo::{elo_of_score, score_of_elo};
use super::normal::normal_quantile;
use super::outcomes::Outcomes;

/// nElo per unit of normalized t-value: 800 / ln 10 (Fishtest's `nelo_divided_by_nt`).
pub const NELO_DIVIDED_BY_NT: f64 = 800.0 / std::f64::consts::LN_10;

/// A normalized Elo difference with its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NeloEstimate {
    pub nelo: f64,
    pub lower: f64,
    pub upper: f64,
}

impl NeloEstimate {
    /// Half the interval's width.
    pub fn error(&self) -> f64 {
        (self.upper - self.lower) / 2.0
    }
}

/// nElo and its 95% interval from pentanomial or trinomial counts, as Fishtest's statistics
/// page computes them (zero counts get the [`PRIOR`](super::distribution::PRIOR)). With only a
/// handful of samples, or one-sided results, the t-value's normal approximation breaks down and
/// the interval becomes very wide; it stays finite.
pub fn nelo_estimate<O: Outcomes + ?Sized>(outcomes: &O) -> NeloEstimate {
    let pdf = Distribution::from_outcomes(outcomes);
    let m = pdf.moments();
    let t = (m.mean - 0.5) / m.variance.sqrt();
    // Clamped at 0 against rounding, as Fishtest does.
    let t_variance = (1.0 - t * m.skewness + 0.25 * t * t * (m.excess_kurtosis + 2.0)).max(0.0);
    let half_width = normal_quantile(0.975) * (t_variance / pdf.samples()).sqrt();
    // A pair's t-value is sqrt(2) times the per-game one.
    let to_nelo = NELO_DIVIDED_BY_NT / (O::GAMES_PER_SAMPLE as f64).sqrt();
    NeloEstimate { nelo: to_nelo * t, lower: to_nelo * (t - half_width), upper: to_nelo * (t + half_width) }
}

/// Standard deviation of one game's score, as estimated from the counts (Fishtest's
/// `sigma_pg`).
pub fn sigma_per_game<O: Outcomes + ?Sized>(outcomes: &O) -> f64 {
    let (_, variance) = Distribution::from_outcomes(outcomes).mean_variance();
    (O::GAMES_PER_SAMPLE as f64 * variance).sqrt()
}

/// The nElo equivalent of a logistic Elo difference, given the spread of these results
/// (how Fishtest shows logistic bounds in nElo).
pub fn nelo_of_elo<O: Outcomes + ?Sized>(elo: f64, outcomes: &O) -> f64 {
    NELO_DIVIDED_BY_NT * (score_of_elo(elo) - 0.5) / sigma_per_game(outcomes)
}

/// The logistic Elo equivalent of an nElo difference, given the spread of these results
/// (Fishtest's `lelo` of normalized bounds; clamped like [`elo_of_score`]).
pub fn elo_of_nelo<O: Outcomes + ?Sized>(nelo: f64, outcomes: &O) -> f64 {
    elo_of_score(nelo / NELO_DIVIDED_BY_NT * sigma_per_game(outcomes) + 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Pentanomial, Wdl};

    #[test]
    fn nelo_equals_elo_without_draws_for_small_differences() {
        // Trinomial without draws: sigma = sqrt(s (1 - s)), about 0.5 near s = 0.5, so
        // nElo = (s - 0.5) / 0.5 * 800 / ln 10 ~ logistic Elo (slope 1600 / ln 10 at 0.5).
        let wdl = Wdl { wins: 50_100, draws: 0, losses: 49_900 };
        let nelo = nelo_estimate(&wdl).nelo;
        let elo = crate::stats::elo_estimate(&wdl).elo;
        assert!((nelo - elo).abs() < 0.01, "{nelo} vs {elo}");
    }

    #[test]
    fn symmetric_results_have_zero_nelo_and_symmetric_interval() {
        let e = nelo_estimate(&Pentanomial { counts: [3, 5, 8, 5, 3] });
        assert_eq!(e.nelo, 0.0);
        assert!((e.lower + e.upper).abs() < 1e-9);
        assert!(e.error() > 0.0);
    }

    #[test]
    fn conversions_are_inverse() {
        let p = Pentanomial { counts: [1187, 7410, 13475, 7378, 1164] };
        for elo in [-3.0, 0.0, 1.0, 5.0] {
            assert!((elo_of_nelo(nelo_of_elo(elo, &p), &p) - elo).abs() < 1e-9);
        }
    }
}
