//! Logistic Elo with its 95% interval and the likelihood of superiority, as Fishtest's
//! `stat_util.get_elo` computes them.

use super::distribution::Distribution;
use super::normal::{erf, normal_cdf, normal_quantile};
use super::outcomes::{Outcomes, Wdl};

/// Scores are clamped to [EPSILON, 1 - EPSILON] before they become Elo (Fishtest's
/// `stat_util.elo`), so a clean sweep reads about ±1200 Elo rather than infinity.
const SCORE_EPSILON: f64 = 1e-3;

/// Logistic Elo of a score fraction: -400 log10(1/s - 1), with `s` clamped to
/// [0.001, 0.999] (so the result lies within ±1199.83).
pub fn elo_of_score(s: f64) -> f64 {
    let s = s.clamp(SCORE_EPSILON, 1.0 - SCORE_EPSILON);
    400.0 * (s / (1.0 - s)).log10()
}

/// Expected score of a player `elo` logistic Elo stronger: 1 / (1 + 10^(-elo/400))
/// (Fishtest's `L`).
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// An Elo difference with its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    pub elo: f64,
    /// Elo at the lower end of the score's 95% interval.
    pub lower: f64,
    /// Elo at the upper end of the score's 95% interval.
    pub upper: f64,
    /// Mean score per game.
    pub score: f64,
    /// Likelihood of superiority: Φ((score - 0.5) / standard error), Fishtest's `LOS`.
    pub los: f64,
}

impl EloEstimate {
    /// Half the interval's width (Fishtest's `elo95`, the usual "±").
    pub fn error(&self) -> f64 {
        (self.upper - self.lower) / 2.0
    }
}

/// Elo, its 95% interval and the LOS from pentanomial or trinomial counts (Fishtest's
/// `get_elo`). The interval is the normal one on the mean score, whose standard error comes
/// from the variance between samples: between game pairs for pentanomial counts, which is what
/// makes the pentanomial interval honest about paired openings. Zero counts get Fishtest's
/// [`PRIOR`](super::distribution::PRIOR): no results give 0 ± 1199.8 Elo, all draws a narrow
/// interval around 0, never NaN.
pub fn elo_estimate<O: Outcomes + ?Sized>(outcomes: &O) -> EloEstimate {
    let pdf = Distribution::from_outcomes(outcomes);
    let (mean, variance) = pdf.mean_variance();
    let standard_error = (variance / pdf.samples()).sqrt();
    let lower = mean + normal_quantile(0.025) * standard_error;
    let upper = mean + normal_quantile(0.975) * standard_error;
    EloEstimate {
        elo: elo_of_score(mean),
        lower: elo_of_score(lower),
        upper: elo_of_score(upper),
        score: mean,
        los: normal_cdf((mean - 0.5) / standard_error),
    }
}

/// The classical likelihood of superiority from wins and losses alone (draws carry no
/// information): 0.5 + 0.5 erf((W - L) / sqrt(2 (W + L))). 0.5 when no game was decisive.
/// [`EloEstimate::los`] is Fishtest's pentanomial LOS and should be preferred for paired games.
pub fn los(wdl: &Wdl) -> f64 {
    let (w, l) = (wdl.wins as f64, wdl.losses as f64);
    if w + l == 0.0 {
        return 0.5;
    }
    0.5 + 0.5 * erf((w - l) / (2.0 * (w + l)).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Pentanomial;

    #[test]
    fn elo_of_known_scores() {
        assert!(elo_of_score(0.5).abs() < 1e-9);
        assert!((elo_of_score(0.75) - 190.848).abs() < 1e-3);
        assert!((elo_of_score(0.25) + 190.848).abs() < 1e-3);
        assert!((elo_of_score(1.0) - 1_199.826_195_290_377_7).abs() < 1e-9);
        for elo in [-500.0, -3.0, 0.0, 1.0, 250.0] {
            assert!((elo_of_score(score_of_elo(elo)) - elo).abs() < 1e-9);
        }
    }

    #[test]
    fn pentanomial_interval() {
        // Symmetric counts: zero Elo, symmetric interval.
        let p = Pentanomial { counts: [10, 20, 40, 20, 10] };
        let e = elo_estimate(&p);
        assert!(e.elo.abs() < 1e-9);
        assert!((e.upper + e.lower).abs() < 1e-9);
        assert!((e.los - 0.5).abs() < 1e-12);
        // mean 0.5, variance = (10 * 0.25 * 2 + 20 * 0.0625 * 2) / 100 = 0.075 per pair.
        let se = (0.075f64 / 100.0).sqrt();
        assert!((e.upper - elo_of_score(0.5 + 1.959_963_984_540_054 * se)).abs() < 1e-9);
        assert!((e.upper - 37.45).abs() < 0.1, "{e:?}");
    }

    #[test]
    fn los_values() {
        assert!((los(&Wdl { wins: 10, draws: 5, losses: 10 }) - 0.5).abs() < 1e-9);
        // 60 wins, 40 losses: erf(20/sqrt(200)) = erf(1.4142) = 0.9545
        assert!((los(&Wdl { wins: 60, draws: 0, losses: 40 }) - 0.97725).abs() < 1e-4);
        assert_eq!(los(&Wdl { wins: 0, draws: 7, losses: 0 }), 0.5);
    }
}
