//! Match statistics: Elo with a 95% interval from pentanomial (game-pair) counts, as
//! Fishtest computes it, and the likelihood of superiority.

/// Game-pair outcomes from the candidate's side: counts of pairs scoring 0, 0.5, 1, 1.5
/// and 2 points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    pub counts: [u64; 5],
}

impl Pentanomial {
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Adds one pair scoring `half_points` (0..=4) half points.
    pub fn add(&mut self, half_points: usize) {
        if let Some(c) = self.counts.get_mut(half_points) {
            *c += 1;
        }
    }

    /// Mean score per game (0..1) and its variance per pair-average.
    fn mean_and_variance(&self) -> Option<(f64, f64)> {
        let n = self.pairs() as f64;
        if n == 0.0 {
            return None;
        }
        let x = [0.0, 0.25, 0.5, 0.75, 1.0];
        let mean: f64 = self.counts.iter().zip(x).map(|(&c, x)| c as f64 * x).sum::<f64>() / n;
        let var: f64 = self.counts.iter().zip(x).map(|(&c, x)| c as f64 * (x - mean).powi(2)).sum::<f64>() / n;
        Some((mean, var))
    }
}

/// Win/draw/loss counts of single games, from the candidate's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Wdl {
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
}

/// Logistic Elo of a score fraction (0 < s < 1).
pub fn elo_of_score(s: f64) -> f64 {
    let s = s.clamp(1e-9, 1.0 - 1e-9);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// An Elo difference with its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    pub elo: f64,
    pub lower: f64,
    pub upper: f64,
    /// Mean score per game.
    pub score: f64,
}

impl EloEstimate {
    /// Half the interval's width around the estimate (the usual "+-").
    pub fn error(&self) -> f64 {
        (self.upper - self.lower) / 2.0
    }
}

/// Elo and its 95% interval from pentanomial counts (the pair is the independent unit,
/// so colour and opening effects are not counted as noise).
pub fn elo_estimate(p: &Pentanomial) -> EloEstimate {
    let Some((mean, var)) = p.mean_and_variance() else {
        return EloEstimate { elo: 0.0, lower: f64::NEG_INFINITY, upper: f64::INFINITY, score: 0.5 };
    };
    let se = (var / p.pairs() as f64).sqrt();
    EloEstimate {
        elo: elo_of_score(mean),
        lower: elo_of_score(mean - 1.959_964 * se),
        upper: elo_of_score(mean + 1.959_964 * se),
        score: mean,
    }
}

/// Likelihood of superiority from wins and losses (draws carry no information).
pub fn los(wdl: &Wdl) -> f64 {
    let (w, l) = (wdl.wins as f64, wdl.losses as f64);
    if w + l == 0.0 {
        return 0.5;
    }
    0.5 + 0.5 * erf((w - l) / (2.0 * (w + l)).sqrt())
}

/// The error function (Abramowitz and Stegun 7.1.26, |error| < 1.5e-7).
pub fn erf(x: f64) -> f64 {
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t + 0.254_829_592)
            * t
            * (-x * x).exp();
    sign * y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_of_known_scores() {
        assert!((elo_of_score(0.5)).abs() < 1e-9);
        assert!((elo_of_score(0.75) - 190.848).abs() < 1e-3);
        assert!((elo_of_score(0.25) + 190.848).abs() < 1e-3);
    }

    #[test]
    fn pentanomial_interval() {
        // Symmetric counts: zero Elo, symmetric interval.
        let p = Pentanomial { counts: [10, 20, 40, 20, 10] };
        let e = elo_estimate(&p);
        assert!(e.elo.abs() < 1e-9);
        assert!((e.upper + e.lower).abs() < 1e-9);
        // mean 0.5, variance = (10 * 0.25 * 2 + 20 * 0.0625 * 2) / 100 = 0.075 per pair.
        let se = (0.075f64 / 100.0).sqrt();
        assert!((e.upper - elo_of_score(0.5 + 1.959_964 * se)).abs() < 1e-9);
        assert!((e.upper - 37.45).abs() < 0.1, "{e:?}");
    }

    #[test]
    fn los_values() {
        assert!((los(&Wdl { wins: 10, draws: 5, losses: 10 }) - 0.5).abs() < 1e-9);
        // 60 wins, 40 losses: erf(20/sqrt(200)) = erf(1.4142) = 0.9545
        assert!((los(&Wdl { wins: 60, draws: 0, losses: 40 }) - 0.97725).abs() < 1e-4);
        assert!((erf(1.0) - 0.842_700_79).abs() < 2e-7);
    }
}
