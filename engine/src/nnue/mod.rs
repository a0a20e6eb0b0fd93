//! NNUE: a small efficiently updatable neural network, the engine's second evaluation beside
//! the hand-crafted one (`eval`), chosen by [`crate::EvalKind`].
//!
//! ```
//! use std::sync::Arc;
//! use engine::nnue::{self, AccumulatorStack, Network};
//! use engine::Position;
//!
//! let net = Arc::new(Network::random(1, 128));                    // a trainer writes real ones
//! assert_eq!(Network::from_bytes(&net.to_bytes()).unwrap(), *net); // the file format
//!
//! let mut pos = Position::startpos();
//! let mut stack = AccumulatorStack::new(Arc::clone(&net), &pos);
//! let m = engine::notation::parse_move(&pos, "h2e2").unwrap();
//! stack.push_move(&pos, m);                                       // before the move is played
//! pos.play_unchecked(m);
//! assert_eq!(stack.evaluate(pos.side_to_move()), nnue::evaluate(&net, &pos));
//! ```
//!
//! # The network
//!
//! A perspective network, as bullet and akimbo train them: the 1,260 inputs of
//! `features.rs` from each side's view feed a feature transformer `1260 → H` (i16, QA = 255)
//! giving one accumulator per side; the side to move's and the other's are concatenated
//! (2H), pass through SCReLU (clamp to `0..=QA`, squared), and an output layer `2H → 1`
//! (i16 weights, QB = 64; i32 bias) gives
//!
//! ```text
//! eval = (sum / QA + bias) · SCALE / (QA · QB)      SCALE = 400, centipawns, side to move's view
//! ```
//!
//! One file per concept: `features.rs` (the input index), `network.rs` (weights, file format,
//! output layer), `accumulator.rs` (the incremental stack the search keeps), `id.rs` (a network's
//! SHA-256, what parameter sets name), `simd.rs` (the
//! AVX2 and scalar loops, bit-identical). `engine/NNUE.md` describes the file for a trainer.

pub mod accumulator;
pub mod features;
pub mod id;
pub mod network;
pub mod simd;

pub use crate::error::NnueError;
pub use accumulator::{AccumulatorStack, evaluate};
pub use features::INPUTS;
pub use id::{BadNetworkId, NetworkId};
pub use network::{ARCHITECTURE, DEFAULT_HIDDEN, FORMAT_VERSION, Network, QA, QB, SCALE};
pub use simd::{Backend, BadSimdLevel, SimdLevel};

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::Position;

    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// Walks a random legal game with take-backs and null moves, checking after every step
    /// that the lazily updated accumulators equal a from-scratch refresh, for `backend`.
    /// Returns how many captures were played.
    fn walk(net: &Arc<Network>, backend: Backend, seed: u64, steps: usize) -> usize {
        let mut rng = Rng(seed | 1);
        let mut pos = Position::startpos();
        let mut stack = AccumulatorStack::with_backend(Arc::clone(net), &pos, backend);
        let mut depth = 0usize;
        let mut captures = 0;
        for step in 0..steps {
            let moves = pos.legal_moves().to_vec();
            let roll = rng.below(10);
            if depth > 0 && (moves.is_empty() || roll < 3) {
                stack.pop();
                pos.undo();
                depth -= 1;
            } else if roll == 3 && !pos.in_check() {
                stack.push_null();
                pos.play_null();
                depth += 1;
            } else if !moves.is_empty() {
                // Prefer captures half the time so that long games still see many.
                let caps: Vec<_> = moves.iter().copied().filter(|&m| pos.is_capture(m)).collect();
                let m = if !caps.is_empty() && rng.below(2) == 0 {
                    caps[rng.below(caps.len())]
                } else {
                    moves[rng.below(moves.len())]
                };
                captures += usize::from(pos.is_capture(m));
                stack.push_move(&pos, m);
                pos.play_unchecked(m);
                depth += 1;
            } else {
                break;
            }
            // Evaluate only some plies, so that several deltas are applied at once.
            if rng.below(3) == 0 || step + 1 == steps {
                let mut fresh = AccumulatorStack::with_backend(Arc::clone(net), &pos, backend);
                assert_eq!(stack.current(), fresh.current(), "seed {seed} step {step}: {}", pos.fen());
                assert_eq!(stack.evaluate(pos.side_to_move()), fresh.evaluate(pos.side_to_move()));
            }
        }
        captures
    }

    #[test]
    fn incremental_accumulators_equal_a_refresh_along_random_games() {
        let net = Arc::new(Network::random(11, 32));
        let mut captures = 0;
        for seed in 1..=20 {
            captures += walk(&net, Backend::scalar(), seed, 300);
            if let Some(avx2) = Backend::avx2() {
                walk(&net, avx2, seed, 300);
            }
        }
        assert!(captures > 100, "the walks played only {captures} captures");
    }

    #[test]
    fn avx2_and_scalar_evaluate_random_positions_identically() {
        let Some(avx2) = Backend::avx2() else {
            eprintln!("no AVX2 on this CPU: nothing to compare");
            return;
        };
        for (seed, hidden) in [(1, 16), (2, 128), (3, 256), (4, 1024)] {
            let net = Arc::new(Network::random(seed, hidden));
            let mut rng = Rng(seed * 7919);
            let mut pos = Position::startpos();
            let mut fast = AccumulatorStack::with_backend(Arc::clone(&net), &pos, avx2);
            let mut slow = AccumulatorStack::with_backend(Arc::clone(&net), &pos, Backend::scalar());
            for _ in 0..200 {
                let moves = pos.legal_moves().to_vec();
                if moves.is_empty() || pos.rule60() >= 100 {
                    pos = Position::startpos();
                    fast.refresh(&pos);
                    slow.refresh(&pos);
                    continue;
                }
                let m = moves[rng.below(moves.len())];
                fast.push_move(&pos, m);
                slow.push_move(&pos, m);
                pos.play_unchecked(m);
                assert_eq!(fast.current(), slow.current());
                assert_eq!(fast.evaluate(pos.side_to_move()), slow.evaluate(pos.side_to_move()), "{}", pos.fen());
            }
        }
    }

    /// The position with colours swapped and ranks mirrored (rank r becomes 9 - r).
    fn colour_flip(fen: &str) -> String {
        let mut fields = fen.split_whitespace();
        let board: Vec<String> = fields
            .next()
            .expect("placement")
            .split('/')
            .rev()
            .map(|rank| {
                rank.chars()
                    .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
                    .collect()
            })
            .collect();
        let side = if fields.next() == Some("b") { "w" } else { "b" };
        format!("{} {side} - - 0 1", board.join("/"))
    }

    const MIDGAME: &str = "2bakab2/6r2/2n1c1nc1/p1p2rp1p/4p4/2PN2PC1/P3P3P/6N2/3CA4/1RBAK1B1R w - - 0 1";

    #[test]
    fn a_colour_flipped_position_evaluates_the_same_for_the_side_to_move() {
        let net = Arc::new(Network::random(5, 64));
        for fen in crate::bench::BENCH_FENS {
            let pos = Position::from_fen(fen).expect("bench FEN");
            let flipped = Position::from_fen(&colour_flip(fen)).expect("flipped FEN");
            assert_eq!(evaluate(&net, &pos), evaluate(&net, &flipped), "{fen}");
        }
        let start = Position::startpos();
        assert_eq!(colour_flip(&start.fen()).split(' ').next(), start.fen().split(' ').next());
    }

    #[test]
    fn golden_values_of_a_fixed_random_network() {
        let net = Arc::new(Network::random(2024, 128));
        let start = evaluate(&net, &Position::startpos());
        let mid = evaluate(&net, &Position::from_fen(MIDGAME).expect("valid"));
        assert_eq!((start, mid), (1486, 2081));
        assert_eq!(crate::nnue::network::fnv1a64(&net.to_bytes()), 0x5f2e_f455_e406_0f3e, "the file's hash");
    }
}
