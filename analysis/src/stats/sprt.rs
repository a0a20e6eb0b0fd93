//! The sequential probability ratio test as Fishtest runs it: the generalized (GSPRT)
//! log-likelihood ratio of pentanomial or trinomial counts, for bounds in normalized Elo (the
//! default) or logistic Elo, against Wald's bounds.
//!
//! The LLR compares the best explanation of the data under H1 with the best under H0: each is
//! the maximum-likelihood distribution on the observed outcomes that meets the hypothesis
//! (expected score for logistic bounds, t-value for normalized ones; see [`super::mle`]), and
//! LLR = N Σ p̂_i ln(p1_i / p0_i) over the N (regularized) samples.

use std::fmt;

use super::distribution::Distribution;
use super::elo::score_of_elo;
use super::mle::{mle_expected, mle_t_value};
use super::nelo::NELO_DIVIDED_BY_NT;
use super::outcomes::Outcomes;
use crate::error::Result;

/// The SPRT's design and its Elo model are the farm's own domain types: one struct and one
/// `validate()` for the wire, the store, the command line and the statistics.
pub use proto::domain::{EloModel, SprtSettings};

/// N Σ p̂_i ln(p1_i / p0_i) (Fishtest's `N * LLR(pdf, ...)`).
fn generalized_llr(pdf: &Distribution, h0: &Distribution, h1: &Distribution) -> f64 {
    let per_sample: f64 = pdf
        .points()
        .iter()
        .zip(h0.points().iter().zip(h1.points()))
        .map(|(&(_, p), (&(_, p0), &(_, p1)))| p * (p1.ln() - p0.ln()))
        .sum();
    pdf.samples() * per_sample
}

/// The GSPRT log-likelihood ratio for logistic-Elo bounds (Fishtest's `LLR_logistic`): the
/// hypotheses fix the expected score at L(elo0) and L(elo1).
pub fn llr_logistic<O: Outcomes + ?Sized>(outcomes: &O, elo0: f64, elo1: f64) -> Result<f64> {
    let pdf = Distribution::from_outcomes(outcomes);
    let h0 = mle_expected(&pdf, score_of_elo(elo0))?;
    let h1 = mle_expected(&pdf, score_of_elo(elo1))?;
    Ok(generalized_llr(&pdf, &h0, &h1))
}

/// The GSPRT log-likelihood ratio for normalized-Elo bounds (Fishtest's `LLR_normalized`): the
/// hypotheses fix the t-value (mean - 1/2)/σ of one sample at nelo / (800 / ln 10), times
/// sqrt(2) for a game pair.
pub fn llr_normalized<O: Outcomes + ?Sized>(outcomes: &O, nelo0: f64, nelo1: f64) -> Result<f64> {
    let pdf = Distribution::from_outcomes(outcomes);
    let scale = (O::GAMES_PER_SAMPLE as f64).sqrt();
    let [t0, t1] = [nelo0, nelo1].map(|nelo| nelo / NELO_DIVIDED_BY_NT * scale);
    let h0 = mle_t_value(&pdf, 0.5, t0)?;
    let h1 = mle_t_value(&pdf, 0.5, t1)?;
    Ok(generalized_llr(&pdf, &h0, &h1))
}

/// A closed-form approximation of [`llr_normalized`] (Fishtest's `LLR_normalized_alt`,
/// Section 4.2 of "normalized_elo_practical"): games / 2 · ln((1 + (nt - nt0)²) / (1 + (nt -
/// nt1)²)), with nt the observed normalized t-value. Close to the exact value once the
/// results are not one-sided; cheap, and never an error.
pub fn llr_normalized_alt<O: Outcomes + ?Sized>(outcomes: &O, nelo0: f64, nelo1: f64) -> f64 {
    let pdf = Distribution::from_outcomes(outcomes);
    let (mean, variance) = pdf.mean_variance();
    let games_per_sample = O::GAMES_PER_SAMPLE as f64;
    let sigma_per_game = (games_per_sample * variance).sqrt();
    let games = games_per_sample * pdf.samples();
    let nt = (mean - 0.5) / sigma_per_game;
    let [d0, d1] = [nelo0, nelo1].map(|nelo| nt - nelo / NELO_DIVIDED_BY_NT);
    games / 2.0 * ((1.0 + d0 * d0) / (1.0 + d1 * d1)).ln()
}

/// The LLR of `outcomes` for the bounds of `params`, in its Elo model.
pub fn llr<O: Outcomes + ?Sized>(outcomes: &O, params: &SprtSettings) -> Result<f64> {
    match params.model {
        EloModel::Normalized => llr_normalized(outcomes, params.elo0, params.elo1),
        EloModel::Logistic => llr_logistic(outcomes, params.elo0, params.elo1),
    }
}

/// The hypothesis an SPRT accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hypothesis {
    /// elo = elo0: the change fails (Fishtest's "rejected").
    H0,
    /// elo = elo1: the change passes (Fishtest's "accepted").
    H1,
}

impl fmt::Display for Hypothesis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::H0 => "H0",
            Self::H1 => "H1",
        })
    }
}

/// The state of an SPRT: the LLR, its bounds, and the verdict once a bound is crossed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtResult {
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    /// `None` while the LLR is within its bounds: play on.
    pub verdict: Option<Hypothesis>,
}

impl SprtResult {
    /// Judges `llr` against Wald's bounds, moved inwards by the expected overshoot
    /// `(o0, o1)` (see [`super::overshoot::Overshoot::corrections`]; `(0, 0)` for none).
    /// Crossing means strictly below `lower + o0` or strictly above `upper - o1`, as Fishtest.
    pub fn judge(llr: f64, (lower, upper): (f64, f64), (o0, o1): (f64, f64)) -> Self {
        let verdict = if llr < lower + o0 {
            Some(Hypothesis::H0)
        } else if llr > upper - o1 {
            Some(Hypothesis::H1)
        } else {
            None
        };
        Self { llr, lower, upper, verdict }
    }
}

/// The SPRT of `outcomes` under `params` against the plain Wald bounds (Fishtest's
/// `update_SPRT` without the overshoot correction, which needs the history of updates: see
/// [`super::overshoot::Overshoot`]).
pub fn sprt<O: Outcomes + ?Sized>(outcomes: &O, params: &SprtSettings) -> Result<SprtResult> {
    params.validate()?;
    Ok(SprtResult::judge(llr(outcomes, params)?, params.bounds(), (0.0, 0.0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Pentanomial, Wdl};

    #[test]
    fn wald_bounds() {
        let (lower, upper) = SprtSettings::default().bounds();
        assert!((lower + 2.944_438_979_166_440_3).abs() < 1e-15);
        assert!((upper - 2.944_438_979_166_440_3).abs() < 1e-15);
        let (lower, upper) = SprtSettings { beta: 0.1, ..Default::default() }.bounds();
        assert!((lower - (0.1f64 / 0.95).ln()).abs() < 1e-15 && (upper - 18f64.ln()).abs() < 1e-15);
    }

    #[test]
    fn params_are_validated() {
        assert!(SprtSettings::default().validate().is_ok());
        let bad = [
            SprtSettings { elo0: 5.0, elo1: 5.0, ..Default::default() },
            SprtSettings { elo1: f64::NAN, ..Default::default() },
            SprtSettings { alpha: 0.0, ..Default::default() },
            SprtSettings { beta: 1.0, ..Default::default() },
            SprtSettings { alpha: 0.6, beta: 0.5, ..Default::default() },
        ];
        for (p, field) in bad.iter().zip(["elo1", "elo1", "alpha", "beta", "beta"]) {
            let err = p.validate().unwrap_err();
            assert_eq!(err.field(), Some(field), "{p:?}: {err}");
        }
        let err = sprt(&Pentanomial::default(), &bad[0]).unwrap_err();
        assert!(matches!(err, crate::Error::SprtDesign(_)), "{err}");
        assert!(err.to_string().contains("must exceed elo0 (5)"), "{err}");
    }

    #[test]
    fn llr_is_antisymmetric_in_the_bounds() {
        let p = Pentanomial { counts: [1187, 7410, 13475, 7378, 1164] };
        let a = llr_normalized(&p, 0.0, 5.0).unwrap();
        let b = llr_normalized(&p, 5.0, 0.0).unwrap();
        assert!((a + b).abs() < 1e-9);
        assert_eq!(llr_logistic(&p, 2.0, 2.0).unwrap(), 0.0);
    }

    #[test]
    fn a_strong_candidate_passes_and_a_weak_one_fails() {
        let strong = Pentanomial { counts: [200, 1500, 4000, 2100, 400] };
        let weak = Pentanomial { counts: [400, 2100, 4000, 1500, 200] };
        for model in [EloModel::Normalized, EloModel::Logistic] {
            let params = SprtSettings { model, ..Default::default() };
            assert_eq!(sprt(&strong, &params).unwrap().verdict, Some(Hypothesis::H1), "{model}");
            assert_eq!(sprt(&weak, &params).unwrap().verdict, Some(Hypothesis::H0), "{model}");
        }
        let undecided = sprt(&Pentanomial { counts: [3, 5, 8, 5, 3] }, &SprtSettings::default()).unwrap();
        assert_eq!(undecided.verdict, None);
    }

    #[test]
    fn judge_uses_strict_inequalities_and_overshoot() {
        let bounds = SprtSettings::default().bounds();
        assert_eq!(SprtResult::judge(bounds.1, bounds, (0.0, 0.0)).verdict, None);
        assert_eq!(SprtResult::judge(2.9, bounds, (0.0, 0.1)).verdict, Some(Hypothesis::H1));
        assert_eq!(SprtResult::judge(-2.9, bounds, (0.1, 0.0)).verdict, Some(Hypothesis::H0));
    }

    #[test]
    fn model_names_round_trip() {
        for m in [EloModel::Normalized, EloModel::Logistic] {
            assert_eq!(m.to_string().parse::<EloModel>(), Ok(m));
        }
        assert!("bayeselo".parse::<EloModel>().is_err());
        assert_eq!(EloModel::default(), EloModel::Normalized);
    }

    #[test]
    fn trinomial_llr_works_too() {
        let wdl = Wdl { wins: 716, draws: 2163, losses: 591 };
        assert!(llr_logistic(&wdl, 0.0, 2.0).unwrap() > 0.0);
        assert!(llr_normalized(&wdl, 0.0, 5.0).unwrap() > 0.0);
    }
}
