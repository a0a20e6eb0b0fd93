//! The checks that turn a `Setup` into a legal `Position`.

use super::{FenError, Position, Setup};
use crate::types::{Color, Piece, PieceKind, Square};

/// Whether a piece of this kind and colour can ever stand on `sq`.
pub fn square_reachable(piece: Piece, sq: Square) -> bool {
    let (f, r) = (sq.file(), sq.rank());
    // Ranks from the owner's side.
    let own_rank = match piece.color {
        Color::Red => r,
        Color::Black => 9 - r,
    };
    match piece.kind {
        PieceKind::King => sq.in_palace(piece.color),
        PieceKind::Advisor => sq.in_palace(piece.color) && (f + own_rank) % 2 == 1,
        PieceKind::Bishop => {
            matches!((f, own_rank), (2 | 6, 0) | (0 | 4 | 8, 2) | (2 | 6, 4))
        }
        // A pawn starts on its rank 3 (files a, c, e, g, i) and never moves back; on its own
        // side it cannot leave its file, so ranks 3-4 allow only the start files.
        PieceKind::Pawn => own_rank >= 5 || (own_rank >= 3 && f % 2 == 0),
        PieceKind::Knight | PieceKind::Rook | PieceKind::Cannon => true,
    }
}

/// Counts and squares: checks that need no attack computation.
pub(super) fn check_placement(setup: &Setup) -> Result<(), FenError> {
    let mut counts = [[0u32; 7]; 2];
    for sq in Square::all() {
        if let Some(p) = setup.board[sq.index()] {
            counts[p.color.index()][p.kind.index()] += 1;
        }
    }
    for color in Color::ALL {
        match counts[color.index()][PieceKind::King.index()] {
            0 => return Err(FenError::MissingKing(color)),
            1 => {}
            count => return Err(FenError::ExtraKing { color, count }),
        }
        for kind in PieceKind::ALL {
            let count = counts[color.index()][kind.index()];
            if count > kind.max_count() {
                return Err(FenError::TooMany { color, kind, count, max: kind.max_count() });
            }
        }
    }
    for sq in Square::all() {
        if let Some(piece) = setup.board[sq.index()]
            && !square_reachable(piece, sq)
        {
            return Err(FenError::ImpossibleSquare { piece, square: sq });
        }
    }
    Ok(())
}

/// Checks that need attacks: facing kings, and the side not to move in check.
pub(super) fn check_position(pos: &Position) -> Result<(), FenError> {
    if pos.kings_facing() {
        return Err(FenError::KingsFacing);
    }
    let them = !pos.side_to_move();
    if pos.is_king_attacked(them) {
        return Err(FenError::SideNotToMoveInCheck(them));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reachable_square_counts() {
        let count = |p: Piece| Square::all().filter(|&sq| square_reachable(p, sq)).count();
        assert_eq!(count(Piece::new(Color::Red, PieceKind::King)), 9);
        assert_eq!(count(Piece::new(Color::Black, PieceKind::Advisor)), 5);
        assert_eq!(count(Piece::new(Color::Red, PieceKind::Bishop)), 7);
        assert_eq!(count(Piece::new(Color::Black, PieceKind::Bishop)), 7);
        assert_eq!(count(Piece::new(Color::Red, PieceKind::Pawn)), 10 + 45);
        assert!(square_reachable(Piece::new(Color::Black, PieceKind::Pawn), Square::A6));
        assert!(!square_reachable(Piece::new(Color::Black, PieceKind::Pawn), Square::B6));
        assert!(!square_reachable(Piece::new(Color::Black, PieceKind::Pawn), Square::A7));
    }
}
