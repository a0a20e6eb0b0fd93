//! The accumulators, one per perspective, kept incrementally along the search's path.
//!
//! An accumulator is the feature transformer's output before the activation: its biases
//! plus the weight column of every active feature. A move changes at most three features
//! per perspective (the moved piece leaves its square and enters another; a captured piece
//! leaves), so the child's accumulators are the parent's plus one column and minus one or
//! two, for both perspectives: 2·H adds instead of 32·2·H.
//!
//! The stack is *lazy*: playing a move only records what it changed (a few bytes); the
//! accumulators of a ply are computed when that ply is evaluated, from the nearest computed
//! ply below it. Most nodes of the search are never evaluated (a hash hit stores its
//! evaluation, a node in check has none, a move pruned after it is played is taken back at
//! once), and those cost nothing. A null move records nothing to change (the child copies its
//! parent). The only from-scratch computation is [`AccumulatorStack::refresh`] at the root.

use std::sync::Arc;

use super::features;
use super::network::Network;
use super::simd::{self, Backend};
use crate::position::Position;
use crate::types::{Color, Move, Piece, Square};

/// What one ply changed: `piece` moved `from` → `to`, capturing `captured`; or nothing (a
/// null move).
#[derive(Clone, Copy, Debug)]
enum Delta {
    Null,
    Move { piece: Piece, from: Square, to: Square, captured: Option<Piece> },
}

/// The accumulators of every ply from the root to the current node.
#[derive(Clone, Debug)]
pub struct AccumulatorStack {
    net: Arc<Network>,
    backend: Backend,
    hidden: usize,
    /// Per ply, `2 × hidden` values: Red's perspective, then Black's.
    values: Vec<i16>,
    /// `deltas[i]`: what turned ply `i - 1` into ply `i` (`deltas[0]` is unused).
    deltas: Vec<Delta>,
    /// Whether ply `i`'s values are up to date (ply 0 always is after a refresh).
    computed: Vec<bool>,
    /// The current ply.
    top: usize,
    /// Plies computed incrementally (for the speed notes).
    updates: u64,
}

impl AccumulatorStack {
    /// A stack for `net` on `pos`, using the fastest backend of this CPU.
    pub fn new(net: Arc<Network>, pos: &Position) -> AccumulatorStack {
        AccumulatorStack::with_backend(net, pos, Backend::detect())
    }

    /// A stack for `net` on `pos` running the loops of `backend` (tests compare backends).
    pub fn with_backend(net: Arc<Network>, pos: &Position, backend: Backend) -> AccumulatorStack {
        let hidden = net.hidden();
        // The search's deepest path plus its null moves fits without growing.
        let plies = crate::search::score::MAX_PLY + 8;
        let mut stack = AccumulatorStack {
            net,
            backend,
            hidden,
            values: vec![0; plies * 2 * hidden],
            deltas: vec![Delta::Null; plies],
            computed: vec![false; plies],
            top: 0,
            updates: 0,
        };
        stack.refresh(pos);
        stack
    }

    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Plies computed incrementally so far.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// Forgets every ply and computes `pos`'s accumulators from scratch as ply 0.
    pub fn refresh(&mut self, pos: &Position) {
        self.top = 0;
        let h = self.hidden;
        let (red, black) = self.values[..2 * h].split_at_mut(h);
        red.copy_from_slice(self.net.ft_biases());
        black.copy_from_slice(self.net.ft_biases());
        for sq in pos.occupied() {
            if let Some(piece) = pos.piece_at(sq) {
                simd::add_assign(red, self.net.ft_weights(features::index(Color::Red, piece, sq)));
                simd::add_assign(black, self.net.ft_weights(features::index(Color::Black, piece, sq)));
            }
        }
        self.computed[0] = true;
    }

    fn push(&mut self, delta: Delta) {
        self.top += 1;
        if self.top == self.deltas.len() {
            self.deltas.push(delta);
            self.computed.push(false);
            self.values.resize(self.values.len() + 2 * self.hidden, 0);
        } else {
            self.deltas[self.top] = delta;
            self.computed[self.top] = false;
        }
    }

    /// Records `m`, about to be played in `pos` (call before `pos.play_unchecked(m)`).
    #[inline]
    pub fn push_move(&mut self, pos: &Position, m: Move) {
        match pos.moved_piece(m) {
            Some(piece) => {
                self.push(Delta::Move { piece, from: m.from(), to: m.to(), captured: pos.captured_piece(m) })
            }
            None => {
                debug_assert!(false, "push_move({m}): no piece on {}", m.from());
                self.push(Delta::Null);
            }
        }
    }

    /// Records a null move.
    #[inline]
    pub fn push_null(&mut self) {
        self.push(Delta::Null);
    }

    /// Takes back the last move or null move.
    #[inline]
    pub fn pop(&mut self) {
        debug_assert!(self.top > 0, "pop below the root");
        self.top = self.top.saturating_sub(1);
    }

    /// Computes ply `ply` from ply `ply - 1`.
    fn apply(&mut self, ply: usize) {
        let h2 = 2 * self.hidden;
        let (below, rest) = self.values.split_at_mut(ply * h2);
        let src = &below[(ply - 1) * h2..];
        let dst = &mut rest[..h2];
        match self.deltas[ply] {
            Delta::Null => dst.copy_from_slice(src),
            Delta::Move { piece, from, to, captured } => {
                let h = self.hidden;
                for (p, perspective) in Color::ALL.into_iter().enumerate() {
                    let (s, d) = (&src[p * h..(p + 1) * h], &mut dst[p * h..(p + 1) * h]);
                    let add = self.net.ft_weights(features::index(perspective, piece, to));
                    let sub = self.net.ft_weights(features::index(perspective, piece, from));
                    match captured {
                        None => self.backend.add_sub(d, s, add, sub),
                        Some(cap) => {
                            let sub2 = self.net.ft_weights(features::index(perspective, cap, to));
                            self.backend.add_sub_sub(d, s, add, sub, sub2);
                        }
                    }
                }
                self.updates += 1;
            }
        }
        self.computed[ply] = true;
    }

    /// Computes the current ply from the nearest computed ply below it.
    #[inline]
    fn materialise(&mut self) {
        let mut base = self.top;
        while !self.computed[base] {
            base -= 1;
        }
        for ply in base + 1..=self.top {
            self.apply(ply);
        }
    }

    /// The current ply's accumulators brought up to date: (Red's, Black's).
    pub fn current(&mut self) -> (&[i16], &[i16]) {
        self.materialise();
        let h = self.hidden;
        self.values[self.top * 2 * h..(self.top + 1) * 2 * h].split_at(h)
    }

    /// The evaluation of the current ply in centipawns, from `side_to_move`'s view.
    #[inline]
    pub fn evaluate(&mut self, side_to_move: Color) -> i32 {
        self.materialise();
        let h = self.hidden;
        let (red, black) = self.values[self.top * 2 * h..(self.top + 1) * 2 * h].split_at(h);
        match side_to_move {
            Color::Red => self.net.output(self.backend, red, black),
            Color::Black => self.net.output(self.backend, black, red),
        }
    }
}

/// `pos`'s evaluation by `net` computed from scratch (no stack to keep): the reference the
/// incremental one is tested against, and the `eval` command's.
pub fn evaluate(net: &Arc<Network>, pos: &Position) -> i32 {
    AccumulatorStack::new(Arc::clone(net), pos).evaluate(pos.side_to_move())
}
