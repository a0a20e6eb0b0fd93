//! The linear trace: the coefficient of every parameter in a position's scaled score, for
//! the Texel tuner. `trace(pos).dot(params) == evaluate_scaled(pos, params)` for every
//! position and every `Params`, because both run the same feature code (`features.rs`).

use super::features::{self, Accumulator};
use super::params::Params;
use super::terms::NUM_FEATURES;
use super::{PHASE_MAX, phase};
use crate::position::Position;

/// The parameters a position's score depends on, with their coefficients.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Trace {
    /// The material phase, 0 (bare endgame) to `PHASE_MAX` (full board).
    pub phase: i32,
    /// `(parameter index, coefficient)`, by increasing index, each index once, no zero
    /// coefficient. A middlegame parameter's coefficient is its feature count (Red's minus
    /// Black's) times `phase`; an endgame parameter's is the count times `PHASE_MAX - phase`.
    pub coefficients: Vec<(u16, i32)>,
}

impl Trace {
    /// The scaled score these coefficients give under `params`: equal to
    /// `evaluate_scaled(pos, params)` for the traced position.
    pub fn dot(&self, params: &Params) -> i64 {
        self.coefficients.iter().map(|&(i, c)| i64::from(c) * i64::from(params.get(usize::from(i)))).sum()
    }
}

/// Counts every feature.
struct Counter {
    counts: Vec<i32>,
}

impl Accumulator for Counter {
    #[inline]
    fn add(&mut self, feature: usize, count: i32) {
        self.counts[feature] += count;
    }
}

/// The trace of `pos`.
pub fn trace(pos: &Position) -> Trace {
    let mut counter = Counter { counts: vec![0; NUM_FEATURES] };
    features::accumulate(pos, &mut counter);
    let phase = phase(pos);
    let mut coefficients = Vec::with_capacity(128);
    for (feature, &count) in counter.counts.iter().enumerate() {
        if count == 0 {
            continue;
        }
        // NUM_PARAMS fits u16 (checked at compile time in terms.rs).
        let mg = (2 * feature) as u16;
        for (param, coefficient) in [(mg, count * phase), (mg + 1, count * (PHASE_MAX - phase))] {
            if coefficient != 0 {
                coefficients.push((param, coefficient));
            }
        }
    }
    Trace { phase, coefficients }
}
