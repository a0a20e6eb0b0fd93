//! What a move must respect to keep its own king safe, computed once per node: the
//! checkers, the "blockers" (own pieces whose departure may expose the king: the only
//! piece between the king and an enemy rook or king, either of the two pieces between the
//! king and an enemy cannon, a piece on a knight's leg next to the king) and the squares
//! where a new piece would become a cannon's screen against the king.
//!
//! With it, a non-king move when not in check is legal unless it leaves a blocker square
//! (then the full test decides) or lands on a screen square (then it is illegal), so most
//! moves need no attack computation.

use super::attacks::{KNIGHT_ATTACKER_LEGS, KNIGHT_ATTACKERS, PAWN_ATTACKERS, RAYS};
use crate::position::Position;
use crate::types::{Bitboard, PieceKind, Square};

/// The king-safety facts of the side to move.
#[derive(Clone, Copy, Debug)]
pub struct KingSafety {
    pub king: Square,
    pub checkers: Bitboard,
    pub blockers: Bitboard,
    pub screen_squares: Bitboard,
}

impl KingSafety {
    #[inline]
    pub fn in_check(&self) -> bool {
        self.checkers.any()
    }
}

impl Position {
    /// Checkers, blockers and screen squares of the side to move's king.
    #[inline]
    pub fn king_safety(&self) -> KingSafety {
        let us = self.side_to_move();
        let king = self.king(us);
        let occ = self.occupied();
        let theirs = self.by_color(!us);
        let ours = self.by_color(us);
        let rooks_kings = theirs & (self.by_kind(PieceKind::Rook) | self.by_kind(PieceKind::King));
        let cannons = theirs & self.by_kind(PieceKind::Cannon);
        let mut checkers = Bitboard::EMPTY;
        let mut blockers = Bitboard::EMPTY;
        let mut screen_squares = Bitboard::EMPTY;

        // `dir` is a direction number (its order says which end of a ray is nearest), not
        // only an index.
        #[allow(clippy::needless_range_loop)]
        for dir in 0..4 {
            let ray = RAYS[king.index()][dir];
            let mut on_ray = ray & occ;
            let next = |bb: &mut Bitboard| -> Option<Square> {
                let sq = if dir < 2 { bb.first() } else { bb.last() }?;
                *bb = bb.without(sq);
                Some(sq)
            };
            let Some(b1) = next(&mut on_ray) else {
                continue;
            };
            if rooks_kings.contains(b1) {
                checkers = checkers.with(b1);
            } else if cannons.contains(b1) {
                // Nothing between: any piece landing in between becomes a screen.
                screen_squares |= ray & !RAYS[b1.index()][dir] & !Bitboard::from_square(b1);
            }
            let Some(b2) = next(&mut on_ray) else {
                continue;
            };
            if rooks_kings.contains(b2) {
                blockers |= Bitboard::from_square(b1) & ours;
            } else if cannons.contains(b2) {
                checkers = checkers.with(b2);
            }
            let Some(b3) = next(&mut on_ray) else {
                continue;
            };
            if cannons.contains(b3) {
                blockers |= (Bitboard::from_square(b1) | Bitboard::from_square(b2)) & ours;
            }
        }

        let knights = theirs & self.by_kind(PieceKind::Knight);
        if knights.any() {
            for d in 0..4 {
                let leg = KNIGHT_ATTACKER_LEGS[king.index()][d];
                if leg == 255 {
                    continue;
                }
                let attackers = KNIGHT_ATTACKERS[king.index()][d] & knights;
                if attackers.any() {
                    let leg = Square::from_index(leg as usize);
                    if occ.contains(leg) {
                        blockers |= Bitboard::from_square(leg) & ours;
                    } else {
                        checkers |= attackers;
                    }
                }
            }
        }
        checkers |= PAWN_ATTACKERS[(!us).index()][king.index()] & theirs & self.by_kind(PieceKind::Pawn);
        debug_assert_eq!(checkers.any(), self.in_check_slow(), "king safety of {}", self.fen());
        KingSafety { king, checkers, blockers, screen_squares }
    }

    /// Check status by the plain attack test (the reference for `king_safety`).
    pub fn in_check_slow(&self) -> bool {
        let us = self.side_to_move();
        self.attackers_to_king(self.king(us), !us, self.occupied(), Bitboard::FULL).any()
    }

    /// Whether pseudo-legal `m` keeps the king safe, given the node's `KingSafety`.
    #[inline]
    pub fn is_legal_with(&self, m: crate::types::Move, ks: &KingSafety) -> bool {
        let (from, to) = (m.from(), m.to());
        if from != ks.king && !ks.in_check() {
            if ks.screen_squares.contains(to) {
                return false;
            }
            if !ks.blockers.contains(from) {
                return true;
            }
        }
        self.is_legal_full(m, ks.king)
    }

    /// The full test: attacks on the king after the move, computed on the changed
    /// occupancy without playing the move.
    #[inline]
    pub fn is_legal_full(&self, m: crate::types::Move, king: Square) -> bool {
        let (from, to) = (m.from(), m.to());
        let occ = (self.occupied() & !Bitboard::from_square(from)) | Bitboard::from_square(to);
        let ksq = if from == king { to } else { king };
        !self.attackers_to_king(ksq, !self.side_to_move(), occ, !Bitboard::from_square(to)).any()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cannon_screens_and_pins() {
        // Red king e0, red knight e2, black cannon e7 with the red pawn e3 between: two
        // screens, both blockers.
        let pos = Position::from_fen("3k5/9/4c4/9/9/9/4P4/4N4/9/4K4 w - - 0 1").expect("valid");
        let ks = pos.king_safety();
        assert!(!ks.in_check());
        assert!(ks.blockers.contains(Square::E2) && ks.blockers.contains(Square::E3));
        // Open line king-cannon: the squares between are screen squares.
        let pos = Position::from_fen("3k5/9/4c4/9/9/9/9/9/9/4K4 w - - 0 1").expect("valid");
        let ks = pos.king_safety();
        assert_eq!(ks.screen_squares.count(), 6);
        assert!(!ks.screen_squares.contains(Square::E7));
    }
}
