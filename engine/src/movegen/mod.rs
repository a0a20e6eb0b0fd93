//! Move generation: attack tables, pseudo-legal generation by type, the legality filter
//! and the staged generator.

pub mod attacks;
mod generate;
mod movelist;
mod pins;
mod staged;

pub use generate::{count_legal, generate_pseudo, piece_targets, GenType};
pub use movelist::{MoveList, MAX_MOVES};
pub use pins::KingSafety;
pub use staged::{mvv_lva_value, Stage, StagedMoves};
