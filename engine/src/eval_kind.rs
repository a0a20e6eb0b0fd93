//! Which evaluation the search calls: the hand-crafted one (the default, `eval`) or a
//! network (`nnue`). The engine holds one; the search builds its accumulator stack from it.

use std::sync::Arc;

use crate::eval::Params;
use crate::nnue::Network;
use crate::position::Position;

/// The evaluation the search uses.
#[derive(Clone, Debug, Default)]
pub enum EvalKind {
    /// The hand-crafted evaluation with the engine's `Params`.
    #[default]
    Hce,
    /// A network, updated incrementally along the search's path.
    Nnue(Arc<Network>),
}

impl EvalKind {
    /// The `Eval` option's value: `hce` or `nnue`.
    pub const fn name(&self) -> &'static str {
        match self {
            EvalKind::Hce => "hce",
            EvalKind::Nnue(_) => "nnue",
        }
    }

    /// The static evaluation of `pos` from scratch, in centipawns from the side to move's
    /// view (the `eval` command; the search updates a network incrementally instead).
    pub fn evaluate(&self, pos: &Position, params: &Params) -> i32 {
        match self {
            EvalKind::Hce => crate::eval::evaluate(pos, params),
            EvalKind::Nnue(net) => crate::nnue::evaluate(net, pos),
        }
    }
}
