//! Training positions without a farm: random legal playouts from the start position, each
//! sampled position scored by the engine's hand-crafted evaluation (side to move's view) and
//! given a result drawn from the logistic of that score. For the benchmark (`--bench
//! --synthetic N`) and the tests; deterministic for a seed.

use engine::Position;
use engine::eval::{Params, evaluate};

use super::kernel::sigmoid;
use super::packed::PackedPosition;
use crate::tune::playout::XorShift64;

/// Plies a playout lasts at most.
const MAX_PLIES: usize = 120;
/// Positions before this ply are not sampled.
const SKIP_PLIES: usize = 6;
/// The chance a later position is sampled.
const SAMPLE_CHANCE: f64 = 0.2;

/// `wanted` positions, each with the number of its playout (its game). Positions in check
/// and positions after a capture-free stretch of 100 plies are skipped.
pub fn synthetic_positions(wanted: usize, seed: u64) -> Vec<(PackedPosition, u64)> {
    let mut rng = XorShift64::new(seed);
    let params = Params::default();
    let mut out = Vec::with_capacity(wanted);
    let mut game = 0u64;
    while out.len() < wanted {
        let mut pos = Position::startpos();
        for ply in 0..MAX_PLIES {
            let moves = pos.legal_moves();
            if moves.is_empty() || out.len() >= wanted || pos.rule60() >= 100 {
                break;
            }
            pos.play_unchecked(moves[rng.below(moves.len())]);
            if ply < SKIP_PLIES || pos.in_check() || rng.unit() >= SAMPLE_CHANCE {
                continue;
            }
            let score = evaluate(&pos, &params).clamp(-3000, 3000);
            let expected = f64::from(sigmoid(std::f32::consts::LN_10 / 400.0 * score as f32));
            let roll = rng.unit();
            let result = if roll < expected * 0.8 {
                1.0
            } else if roll < expected * 0.8 + 0.2 {
                0.5
            } else {
                0.0
            };
            // A legal position always packs (at most 32 pieces, a result of 0, 0.5 or 1).
            if let Ok(p) = PackedPosition::new(&pos, score, result) {
                out.push((p, game));
            }
        }
        game += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn playouts_are_reproducible() {
        let a = synthetic_positions(300, 7);
        assert_eq!(a, synthetic_positions(300, 7));
        assert_eq!(a.len(), 300);
        assert!(a.last().is_some_and(|(_, g)| *g > 5));
        assert!(a.iter().any(|(p, _)| p.result() == 1.0) && a.iter().any(|(p, _)| p.result() == 0.0));
    }
}
