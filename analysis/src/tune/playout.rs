//! Positions from random legal playouts, for the tuner's tests and benchmark: varied material,
//! phases and piece placement without any engine games. Deterministic for a seed.

use engine::Position;
use engine::eval::{Trace, trace};

/// Marsaglia's xorshift64: small, fast, reproducible; not for statistics that need quality.
#[derive(Clone, Debug)]
pub struct XorShift64(u64);

impl XorShift64 {
    /// A generator from `seed` (0 is replaced, as xorshift would stay at 0).
    pub fn new(seed: u64) -> XorShift64 {
        XorShift64(if seed == 0 { 0x2545_F491_4F6C_DD1D } else { seed })
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Uniform in `0..n` (`n > 0`; the modulo bias is negligible for small `n`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Plies a playout lasts at most.
const MAX_PLIES: usize = 160;
/// Positions before this ply are not sampled (they are the start positions, over and over).
const SKIP_PLIES: usize = 4;
/// The chance each later position is sampled: a few per game, so games stay many.
const SAMPLE_CHANCE: f64 = 0.15;

/// `wanted` traces, each with the number of its playout as game id. Playouts start from
/// `starts` in turn and play uniformly random legal moves until mate, stalemate or
/// `MAX_PLIES`. Fewer traces only when the starts give none (empty, or every one already
/// over): after `16 * starts.len()` games in a row without a sample, it gives up.
pub fn random_playout_traces(starts: &[Position], wanted: usize, seed: u64) -> Vec<(Trace, u64)> {
    let mut rng = XorShift64::new(seed);
    let mut traces = Vec::with_capacity(wanted);
    let mut game = 0u64;
    let mut barren_games = 0;
    while traces.len() < wanted && barren_games < 16 * starts.len() {
        let before = traces.len();
        let mut pos = starts[(game % starts.len() as u64) as usize].clone();
        for ply in 0..MAX_PLIES {
            let moves = pos.legal_moves();
            if moves.is_empty() || traces.len() >= wanted {
                break;
            }
            pos.play_unchecked(moves[rng.below(moves.len())]);
            if ply >= SKIP_PLIES && rng.unit() < SAMPLE_CHANCE {
                traces.push((trace(&pos), game));
            }
        }
        barren_games = if traces.len() == before { barren_games + 1 } else { 0 };
        game += 1;
    }
    traces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn playouts_are_reproducible_and_span_phases() {
        let starts = [Position::startpos()];
        let a = random_playout_traces(&starts, 300, 7);
        assert_eq!(a, random_playout_traces(&starts, 300, 7));
        assert_eq!(a.len(), 300);
        let games = a.last().map_or(0, |(_, g)| *g);
        assert!(games > 10, "{games} games");
        let phases: Vec<i32> = a.iter().map(|(t, _)| t.phase).collect();
        assert!(phases.iter().any(|&p| p < 16) && phases.contains(&32), "{phases:?}");
        let over = Position::from_fen("3k5/9/3R5/9/9/9/9/9/9/4K4 b - - 0 1").expect("valid FEN");
        assert!(random_playout_traces(&[over], 10, 1).is_empty(), "no moves, no traces, no endless loop");
        assert!(random_playout_traces(&[], 10, 1).is_empty());
    }
}
