//! Plain value types shared by every part of the engine.

mod bitboard;
mod color;
mod moves;
mod piece;
mod square;

pub use bitboard::Bitboard;
pub use color::Color;
pub use moves::Move;
pub use piece::{Piece, PieceKind};
pub use square::{ParseSquareError, Square};
