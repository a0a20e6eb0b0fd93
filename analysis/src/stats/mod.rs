//! Match statistics as Fishtest computes them, in pure functions over counts: Elo and
//! normalized Elo with 95% intervals, the likelihood of superiority, and the GSPRT
//! log-likelihood ratio for normalized or logistic bounds.
//!
//! A port of Fishtest's `stat_util.py`, `LLRcalc.py` and statistics page (official-stockfish/
//! fishtest, `server/fishtest/stats/`), checked against values from that code in
//! `tests/it/fishtest_reference.rs`. Every function takes pentanomial counts ([`Pentanomial`], the
//! farm's unit) or trinomial ones ([`Wdl`]) through [`Outcomes`]. Zero counts get Fishtest's
//! small [`PRIOR`], so empty, all-draw and one-sided results give finite values, never NaN.
//!
//! ```
//! use analysis::stats::{Pentanomial, SprtSettings, elo_estimate, nelo_estimate, sprt};
//!
//! let p: Pentanomial = "10789, 19328, 33806, 19402, 10543".parse()?;
//! let elo = elo_estimate(&p);
//! assert!((elo.elo - -0.77).abs() < 0.01 && (elo.error() - 1.28).abs() < 0.01);
//! assert!((nelo_estimate(&p).nelo - -0.95).abs() < 0.01);
//! let sprt = sprt(&p, &SprtSettings::default())?; // normalized [0, 5]
//! assert!((sprt.llr - -26.84).abs() < 0.01);
//! assert_eq!(sprt.verdict, Some(analysis::stats::Hypothesis::H0));
//! # Ok::<(), analysis::Error>(())
//! ```

mod bayeselo;
mod chisq;
mod distribution;
mod elo;
mod mle;
mod nelo;
mod normal;
mod outcomes;
mod overshoot;
mod rating;
mod root;
mod sprt;

pub use bayeselo::{bayeselo_to_elo, bayeselo_to_proba, draw_elo, elo_to_bayeselo, llr_bayeselo, proba_to_bayeselo};
pub use chisq::{Consistency, WorkerCheck, chi_square_sf, worker_consistency};
pub use distribution::{Distribution, Moments, PRIOR};
pub use elo::{EloEstimate, elo_estimate, elo_of_score, los, score_of_elo};
pub use mle::{mle_expected, mle_t_value};
pub use nelo::{NELO_DIVIDED_BY_NT, NeloEstimate, elo_of_nelo, nelo_estimate, nelo_of_elo, sigma_per_game};
pub use normal::{erf, erfc, normal_cdf, normal_quantile};
pub use outcomes::{Outcomes, Pentanomial, Wdl};
pub use overshoot::{Overshoot, OvershootUpdate};
pub use rating::{HeadToHead, Rating, VIRTUAL_DRAWS, rating_list};
pub use sprt::{
    EloModel, Hypothesis, SprtResult, SprtSettings, llr, llr_logistic, llr_normalized, llr_normalized_alt, sprt,
};
