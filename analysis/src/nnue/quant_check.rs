//! The quantisation check: the engine's integer evaluation of held-out positions against the
//! float model's, in centipawns. The engine builds its accumulators from the position itself
//! (`engine::nnue::evaluate`, from its own feature index), so a disagreement between trainer
//! and engine about inputs, perspectives, layers or scales shows up here.
//!
//! The contract (NNUE.md: `eval = y · SCALE`) holds for the float model whose weights sit on
//! the quantisation grid ([`FloatNetwork::snapped`]): there the only differences are the
//! engine's two truncating divisions, under 1.03 cp (1 + SCALE / (QA · QB)), and the largest
//! allowed is [`CONTRACT_CP`]. The
//! trained weights before snapping differ from the file by the rounding itself; that
//! difference is measured too, for information.

use std::sync::Arc;

use engine::nnue::Network;
use rayon::prelude::*;

use super::model::FloatNetwork;
use super::packed::PackedPosition;
use crate::error::Result;

/// Largest allowed difference between the engine's and the float model's evaluation.
pub const CONTRACT_CP: f64 = 5.0;

/// Differences over the checked positions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuantCheck {
    pub positions: usize,
    pub max_abs_cp: f64,
    pub mean_abs_cp: f64,
}

impl QuantCheck {
    pub fn within_contract(&self) -> bool {
        self.max_abs_cp <= CONTRACT_CP
    }
}

/// The engine's evaluation of every position with `net` against `float`'s.
pub fn quantisation_check(float: &FloatNetwork, net: &Network, positions: &[PackedPosition]) -> Result<QuantCheck> {
    let net = Arc::new(net.clone());
    let diffs: Vec<f64> = positions
        .par_iter()
        .map(|p| {
            let pos = p.to_position()?;
            let engine_cp = f64::from(engine::nnue::evaluate(&net, &pos));
            let f = p.features();
            Ok((engine_cp - float.eval_cp(f.us(), f.them())).abs())
        })
        .collect::<Result<_>>()?;
    let max_abs_cp = diffs.iter().copied().fold(0.0, f64::max);
    let mean_abs_cp = if diffs.is_empty() { 0.0 } else { diffs.iter().sum::<f64>() / diffs.len() as f64 };
    Ok(QuantCheck { positions: diffs.len(), max_abs_cp, mean_abs_cp })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::testing::sample_positions;

    #[test]
    fn a_snapped_network_evaluates_as_the_engine_does() -> Result<()> {
        let positions = sample_positions(500, 21);
        // Weights of a trained network's size: outputs up to a few hundred centipawns.
        let float = FloatNetwork::random(32, 8)?;
        let snapped = float.snapped();
        let net = snapped.quantise()?;
        let check = quantisation_check(&snapped, &net, &positions)?;
        assert_eq!(check.positions, 500);
        // Two truncating divisions: below 1 cp plus SCALE / (QA · QB) of a cp.
        assert!(check.max_abs_cp <= 1.0 + 400.0 / (255.0 * 64.0) + 1e-3, "{check:?}");
        assert!(check.within_contract());
        // The raw weights are off by the rounding: measurable, and not what the contract is about.
        let raw = quantisation_check(&float, &net, &positions)?;
        assert!(raw.mean_abs_cp > 0.0, "{raw:?}");
        Ok(())
    }
}
