//! The 90 squares.

use std::fmt;
use std::str::FromStr;

use super::Color;

/// One of the 90 squares, `A0..I9`: files a-i from Red's left, ranks 0-9 from Red's side.
/// Index = rank * 9 + file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    pub const COUNT: usize = 90;

    /// Builds a square from file (0-8) and rank (0-9), or `None` off the board.
    #[inline]
    pub const fn new(file: i32, rank: i32) -> Option<Square> {
        if file >= 0 && file < 9 && rank >= 0 && rank < 10 { Some(Square((rank * 9 + file) as u8)) } else { None }
    }

    /// # Panics
    /// In debug builds, when `index >= 90`.
    #[inline]
    pub const fn from_index(index: usize) -> Square {
        debug_assert!(index < 90);
        Square(index as u8)
    }

    #[inline]
    pub const fn try_from_index(index: usize) -> Option<Square> {
        if index < 90 { Some(Square(index as u8)) } else { None }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub const fn file(self) -> i32 {
        (self.0 % 9) as i32
    }

    #[inline]
    pub const fn rank(self) -> i32 {
        (self.0 / 9) as i32
    }

    /// The square `df` files and `dr` ranks away, if on the board.
    #[inline]
    pub const fn offset(self, df: i32, dr: i32) -> Option<Square> {
        Square::new(self.file() + df, self.rank() + dr)
    }

    /// The square seen from the other side (rotated 180 degrees).
    #[inline]
    pub const fn flip(self) -> Square {
        Square(89 - self.0)
    }

    /// Mirrored across the central file.
    #[inline]
    pub const fn mirror(self) -> Square {
        Square((self.rank() * 9 + 8 - self.file()) as u8)
    }

    /// Whether this square is on `color`'s own half (not across the river).
    #[inline]
    pub const fn on_own_side(self, color: Color) -> bool {
        match color {
            Color::Red => self.rank() <= 4,
            Color::Black => self.rank() >= 5,
        }
    }

    /// Whether this square is inside `color`'s palace.
    #[inline]
    pub const fn in_palace(self, color: Color) -> bool {
        let f = self.file();
        let r = self.rank();
        f >= 3
            && f <= 5
            && match color {
                Color::Red => r <= 2,
                Color::Black => r >= 7,
            }
    }

    pub fn all() -> impl Iterator<Item = Square> {
        (0..90u8).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file() as u8) as char, self.rank())
    }
}

/// A square name that is not `a0`..`i9`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid square `{0}` (expected a file a-i and a rank 0-9, as in `e0`)")]
pub struct ParseSquareError(pub String);

impl FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return Err(ParseSquareError(s.to_owned()));
        }
        let file = b[0].to_ascii_lowercase().wrapping_sub(b'a') as i32;
        let rank = b[1].wrapping_sub(b'0') as i32;
        Square::new(file, rank).ok_or_else(|| ParseSquareError(s.to_owned()))
    }
}

macro_rules! square_consts {
    ($($name:ident = $idx:expr),* $(,)?) => {
        impl Square { $(pub const $name: Square = Square($idx);)* }
    };
}

square_consts! {
    A0 = 0, B0 = 1, C0 = 2, D0 = 3, E0 = 4, F0 = 5, G0 = 6, H0 = 7, I0 = 8,
    A1 = 9, B1 = 10, C1 = 11, D1 = 12, E1 = 13, F1 = 14, G1 = 15, H1 = 16, I1 = 17,
    A2 = 18, B2 = 19, C2 = 20, D2 = 21, E2 = 22, F2 = 23, G2 = 24, H2 = 25, I2 = 26,
    A3 = 27, B3 = 28, C3 = 29, D3 = 30, E3 = 31, F3 = 32, G3 = 33, H3 = 34, I3 = 35,
    A4 = 36, B4 = 37, C4 = 38, D4 = 39, E4 = 40, F4 = 41, G4 = 42, H4 = 43, I4 = 44,
    A5 = 45, B5 = 46, C5 = 47, D5 = 48, E5 = 49, F5 = 50, G5 = 51, H5 = 52, I5 = 53,
    A6 = 54, B6 = 55, C6 = 56, D6 = 57, E6 = 58, F6 = 59, G6 = 60, H6 = 61, I6 = 62,
    A7 = 63, B7 = 64, C7 = 65, D7 = 66, E7 = 67, F7 = 68, G7 = 69, H7 = 70, I7 = 71,
    A8 = 72, B8 = 73, C8 = 74, D8 = 75, E8 = 76, F8 = 77, G8 = 78, H8 = 79, I8 = 80,
    A9 = 81, B9 = 82, C9 = 83, D9 = 84, E9 = 85, F9 = 86, G9 = 87, H9 = 88, I9 = 89,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for sq in Square::all() {
            let name = sq.to_string();
            assert_eq!(name.parse::<Square>(), Ok(sq));
        }
        assert_eq!(Square::H2.to_string(), "h2");
        assert_eq!(Square::E9.to_string(), "e9");
        assert!("j0".parse::<Square>().is_err());
        assert!("a10".parse::<Square>().is_err());
    }

    #[test]
    fn geometry() {
        assert_eq!(Square::A0.flip(), Square::I9);
        assert_eq!(Square::B2.mirror(), Square::H2);
        assert!(Square::E1.in_palace(Color::Red));
        assert!(!Square::E1.in_palace(Color::Black));
        assert!(Square::D7.in_palace(Color::Black));
        assert!(Square::A4.on_own_side(Color::Red));
        assert!(!Square::A5.on_own_side(Color::Red));
    }
}
