//! The network's inputs: one feature per (side, piece kind, square) seen from a perspective.
//!
//! Each side has its own view of the board (a *perspective*): its own pieces and the
//! enemy's, on squares oriented so that its own pieces start at the bottom. Red sees the
//! board as it is; Black sees it mirrored vertically (rank `r` becomes `9 - r`, files kept),
//! which is the colour-flip symmetry of Xiangqi's start position. So a position and its
//! colour-flipped mirror activate exactly the same features from the side to move's view.
//!
//! ```text
//! feature(perspective, piece, square) = (relation * 7 + kind) * 90 + oriented(square)
//!   relation = 0 if piece.color == perspective (own), 1 otherwise (enemy)
//!   kind     = PieceKind::index(): king 0, advisor 1, bishop 2, knight 3, rook 4, cannon 5, pawn 6
//!   oriented(square) = rank * 9 + file              for Red's perspective
//!                    = (9 - rank) * 9 + file        for Black's perspective
//! ```
//!
//! Indices run over `0..INPUTS` (1,260). The trainer must use this same formula.

use crate::types::{Color, Piece, Square};

/// Piece kinds × {own, enemy} × squares.
pub const INPUTS: usize = 7 * 2 * Square::COUNT;

/// The square as `perspective` sees it: ranks flipped for Black.
#[inline]
pub const fn oriented(perspective: Color, sq: Square) -> usize {
    match perspective {
        Color::Red => sq.index(),
        Color::Black => ((9 - sq.rank()) * 9 + sq.file()) as usize,
    }
}

/// The input index of `piece` on `sq` from `perspective`'s view (see the module doc).
#[inline]
pub const fn index(perspective: Color, piece: Piece, sq: Square) -> usize {
    let relation = (piece.color as usize) ^ (perspective as usize);
    (relation * 7 + piece.kind.index()) * Square::COUNT + oriented(perspective, sq)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::PieceKind;

    #[test]
    fn indices_are_a_bijection_per_perspective() {
        for perspective in Color::ALL {
            let mut seen = vec![false; INPUTS];
            for color in Color::ALL {
                for kind in PieceKind::ALL {
                    for sq in Square::all() {
                        let i = index(perspective, Piece::new(color, kind), sq);
                        assert!(!seen[i], "{perspective} {color} {kind} {sq}");
                        seen[i] = true;
                    }
                }
            }
            assert!(seen.iter().all(|&s| s));
        }
    }

    #[test]
    fn black_sees_the_board_mirrored_vertically() {
        let red_rook = Piece::new(Color::Red, PieceKind::Rook);
        let black_rook = Piece::new(Color::Black, PieceKind::Rook);
        // Red's rook on a0 from Red's view is Black's rook on a9 from Black's view.
        assert_eq!(index(Color::Red, red_rook, Square::A0), index(Color::Black, black_rook, Square::A9));
        assert_eq!(index(Color::Red, red_rook, Square::A0), 4 * 90);
        // An enemy king on e9 (Red's view) is an enemy king on e0 from Black's.
        let black_king = Piece::new(Color::Black, PieceKind::King);
        let red_king = Piece::new(Color::Red, PieceKind::King);
        assert_eq!(index(Color::Red, black_king, Square::E9), 7 * 90 + 85);
        assert_eq!(index(Color::Black, red_king, Square::E0), 7 * 90 + 85);
    }
}
