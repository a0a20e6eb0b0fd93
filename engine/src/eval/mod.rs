//! Static evaluation: the four families of the seeds — material (子力价值), position
//! (棋子位置), mobility (机动性) and relations between pieces (棋子间的关系) — plus a tempo
//! bonus, each a named integer weight with a middlegame and an endgame value, tapered by a
//! material phase.
//!
//! ```
//! use engine::eval::{evaluate, evaluate_scaled, trace, Params, PHASE_MAX};
//! use engine::Position;
//!
//! let pos = Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1").unwrap();
//! let params = Params::default();
//! let scaled = evaluate_scaled(&pos, &params);           // Red's view, times PHASE_MAX
//! assert_eq!(trace(&pos).dot(&params), scaled);           // the tuner's linear model, exactly
//! assert_eq!(evaluate(&pos, &params), -(scaled / i64::from(PHASE_MAX)) as i32); // Black to move
//!
//! let mut tuned = Params::from_toml_str("[material.rook]\nmg = 950").unwrap();
//! tuned.set_by_name("tempo.mg", 25).unwrap();
//! assert_eq!(Params::from_toml_str(&tuned.to_toml()).unwrap(), tuned);
//! ```
//!
//! # How the numbers relate
//!
//! Every weight is declared once in `terms.rs`. A *feature* is one entry of a term; the
//! evaluation counts each feature for Red (+1 per occurrence) and Black (-1), giving a count
//! `n_f` from Red's side. With `phase` in `0..=PHASE_MAX` (see [`phase`]):
//!
//! ```text
//! S = sum over features f of  n_f * (mg_f * phase + eg_f * (PHASE_MAX - phase))   (evaluate_scaled)
//!   = trace(pos).dot(params)                                                       (exactly)
//! evaluate(pos) = trunc(S / PHASE_MAX)      if Red is to move
//!               = -trunc(S / PHASE_MAX)     if Black is to move
//! ```
//!
//! `trunc` rounds toward zero (Rust's `/` on integers), so the colour-flipped position gets
//! exactly the opposite Red-side score. The tempo term is a feature like the others, counted
//! +1 when Red is to move and -1 when Black is, so it needs no special case.
//!
//! # Cost
//!
//! `evaluate` allocates nothing: it walks the pieces once (attack sets from the move
//! generator's tables) and sums two integers per feature. `trace` allocates its result.

mod features;
mod params;
pub mod pst;
mod relations;
pub mod terms;
mod toml_io;
mod trace;

pub use params::{ParamSpec, Params, Phase};
pub use terms::{Group, NUM_FEATURES, NUM_PARAMS, TERMS, Term};
pub use trace::{Trace, trace};

use crate::position::Position;
use crate::types::{Color, PieceKind};

/// The phase of a full board; 0 is a board without rooks, horses or cannons.
pub const PHASE_MAX: i32 = 32;

/// The material phase: 4 per rook, 2 per horse or cannon (both sides), at most `PHASE_MAX`.
/// The start position has exactly `PHASE_MAX`.
#[inline]
pub fn phase(pos: &Position) -> i32 {
    let count = |kind| pos.by_kind(kind).count() as i32;
    (4 * count(PieceKind::Rook) + 2 * (count(PieceKind::Knight) + count(PieceKind::Cannon))).min(PHASE_MAX)
}

/// Sums the middlegame and endgame weights of the features.
struct Scorer<'a> {
    params: &'a Params,
    mg: i32,
    eg: i32,
}

impl features::Accumulator for Scorer<'_> {
    #[inline]
    fn add(&mut self, feature: usize, count: i32) {
        // No overflow: counts are small (at most a few per feature) and weights are bounded
        // by their ranges (|w| <= 3000), so each sum stays far below 2^31.
        let (mg, eg) = self.params.feature_weights(feature);
        self.mg += mg * count;
        self.eg += eg * count;
    }
}

/// The scaled score `S`, from Red's side: `PHASE_MAX` times the tapered centipawn score.
/// Equal to `trace(pos).dot(params)`.
#[inline]
pub fn evaluate_scaled(pos: &Position, params: &Params) -> i64 {
    let mut scorer = Scorer { params, mg: 0, eg: 0 };
    features::accumulate(pos, &mut scorer);
    let phase = phase(pos);
    i64::from(scorer.mg) * i64::from(phase) + i64::from(scorer.eg) * i64::from(PHASE_MAX - phase)
}

/// The evaluation in centipawns from the side to move's view:
/// `S / PHASE_MAX` rounded toward zero, negated when Black is to move.
#[inline]
pub fn evaluate(pos: &Position, params: &Params) -> i32 {
    let red_view = evaluate_scaled(pos, params) / i64::from(PHASE_MAX);
    // |red_view| is bounded by the weight ranges (well inside i32); saturate all the same.
    let red_view = red_view.clamp(i64::from(-i32::MAX), i64::from(i32::MAX)) as i32;
    match pos.side_to_move() {
        Color::Red => red_view,
        Color::Black => -red_view,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_symmetric() {
        let pos = Position::startpos();
        assert_eq!(phase(&pos), PHASE_MAX);
        let t = trace(&pos);
        let tempo = 2 * terms::TEMPO.first;
        assert_eq!(t.coefficients, vec![(tempo as u16, PHASE_MAX)], "only tempo survives the symmetry");
        assert_eq!(evaluate(&pos, &Params::default()), 20);
        assert_eq!(evaluate(&pos, &Params::material_only()), 0);
    }

    #[test]
    fn phase_counts_heavy_pieces() {
        let pos = Position::from_fen("4k4/9/9/9/9/9/5p3/4B4/3N5/4K4 w - - 0 1").expect("valid");
        assert_eq!(phase(&pos), 2);
        let t = trace(&pos);
        assert_eq!(t.phase, 2);
        assert_eq!(t.dot(&Params::default()), evaluate_scaled(&pos, &Params::default()));
    }
}
