//! The sigmoid's scale K for the NNUE trainer: the K whose `1 / (1 + 10^(-K · score / 400))`
//! best predicts the game results from the search scores (mean squared error), fitted by the
//! tuner's [`fit_k_by`] on the training positions. Scores are small integers and results take
//! three values, so the error is computed from a table of (score, result) counts, in a fixed
//! order: exact, deterministic, and fast on millions of positions.

use std::collections::BTreeMap;

use super::packed::PackedPosition;
use crate::error::{Error, Result};
use crate::tune::{DEFAULT_K_BRACKET, KFit, fit_k_by, sigmoid};

/// The K of `positions` (see the module documentation).
pub fn fit_score_k(positions: &[PackedPosition]) -> Result<KFit> {
    if positions.is_empty() {
        return Err(Error::NnueSetting {
            name: "positions",
            value: "0".into(),
            reason: "cannot fit K without positions".into(),
        });
    }
    let mut table: BTreeMap<(i32, u32), u64> = BTreeMap::new();
    for p in positions {
        *table.entry((p.score(), (p.result() * 2.0) as u32)).or_default() += 1;
    }
    let n = positions.len() as f64;
    let error = |k: f64| {
        table
            .iter()
            .map(|(&(score, halves), &count)| {
                let d = sigmoid(k, f64::from(score)) - f64::from(halves) / 2.0;
                count as f64 * d * d
            })
            .sum::<f64>()
            / n
    };
    fit_k_by(error, DEFAULT_K_BRACKET)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Position;

    #[test]
    fn recovers_the_k_behind_expected_results() -> Result<()> {
        // Results drawn as the expected result at K = 0.6 of each score, in proportions.
        let pos = Position::startpos();
        let mut positions = Vec::new();
        for score in (-600..=600).step_by(50) {
            let expected = sigmoid(0.6, f64::from(score));
            let wins = (expected * 1000.0).round() as usize;
            for i in 0..1000 {
                positions.push(PackedPosition::new(&pos, score, if i < wins { 1.0 } else { 0.0 })?);
            }
        }
        let fit = fit_score_k(&positions)?;
        assert!((fit.k - 0.6).abs() < 0.01, "{fit:?}");
        assert!(fit_score_k(&[]).is_err());
        Ok(())
    }
}
