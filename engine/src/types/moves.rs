//! A move: from-square and to-square. The moved and captured pieces are known from the
//! position the move is played in (the seed model q = {from, moved, to, killed}).

use std::fmt;

use super::Square;

/// A move packed in 16 bits (from | to << 7). `Move::NULL` (a0a0) is never a legal move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Move(u16);

impl Move {
    pub const NULL: Move = Move(0);

    #[inline]
    pub const fn new(from: Square, to: Square) -> Move {
        Move(from.index() as u16 | (to.index() as u16) << 7)
    }

    #[inline]
    pub const fn from(self) -> Square {
        Square::from_index((self.0 & 0x7f) as usize)
    }

    #[inline]
    pub const fn to(self) -> Square {
        Square::from_index((self.0 >> 7) as usize)
    }

    #[inline]
    pub const fn is_null(self) -> bool {
        self.0 == 0
    }

    /// The raw 16-bit encoding (stable: used in tables and files).
    #[inline]
    pub const fn raw(self) -> u16 {
        self.0
    }

    /// Rebuilds a move from `raw()`, or `None` for an encoding outside the board.
    pub const fn from_raw(raw: u16) -> Option<Move> {
        let from = (raw & 0x7f) as usize;
        let to = (raw >> 7) as usize;
        if from < 90 && to < 90 && raw >> 14 == 0 { Some(Move(raw)) } else { None }
    }
}

impl fmt::Display for Move {
    /// UCI notation as Pikafish writes it (`h2e2`, 0-based ranks).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_null() {
            return f.write_str("0000");
        }
        write!(f, "{}{}", self.from(), self.to())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
