//! Move generation: attack tables, pseudo-legal generation by type, the legality filter
//! and the staged generator.

pub mod attacks;
mod generate;
mod movelist;
mod pins;
mod staged;

pub use generate::{GenType, count_legal, generate_pseudo, piece_targets};
pub use movelist::{MAX_MOVES, MoveList};
pub use pins::KingSafety;
pub use staged::{Stage, StagedMoves, mvv_lva_value};
