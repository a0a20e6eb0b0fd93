//! One move of a repetition cycle, classified from the mover's side (RULES.md, repetition
//! step 3): a check, a chase of some opponent pieces, or idle. And the piece identities that
//! let the judge intersect chased sets while the chased pieces move.
//!
//! A piece is *really threatened* by a side when one of that side's pieces could capture it
//! legally and either the capturer is worth less (K > R > N = C > B = A > P) or the target has
//! no true protector: no piece of its own that could then legally recapture. Kings and pawns
//! on their own side of the river are never threatened in this sense (a threat to the king is
//! a check). A move *chases* the opponent pieces that are really threatened after it and were
//! not before it. Comparing the threatened sets covers every way a move can start a threat:
//! the moved piece's own attack, a discovered rook, cannon or king line, a new cannon screen,
//! an unblocked horse leg or elephant eye, and also a move that makes an existing attack real
//! (pinning the only protector, unpinning the attacker).

use crate::position::Position;
use crate::types::{Bitboard, Color, Move, PieceKind, Square};

/// How one move of a cycle counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveClass {
    /// The opponent's king is attacked after the move.
    Check,
    /// Not a check; these opponent pieces (their squares after the move) are newly, really
    /// threatened. Never empty.
    Chase(Bitboard),
    /// Anything else.
    Idle,
}

/// The rank used to compare a capturer with its target: K > R > N = C > B = A > P.
pub const fn chase_value(kind: PieceKind) -> u8 {
    match kind {
        PieceKind::Pawn => 1,
        PieceKind::Advisor | PieceKind::Bishop => 2,
        PieceKind::Knight | PieceKind::Cannon => 3,
        PieceKind::Rook => 4,
        PieceKind::King => 5,
    }
}

/// Classifies legal move `m` of the side to move in `before`; `None` if `m` is not legal.
pub fn classify(before: &Position, m: Move) -> Option<MoveClass> {
    if !before.is_pseudo_legal(m) || !before.is_legal(m) {
        return None;
    }
    let mover = before.side_to_move();
    let threatened_before = threatened(before, mover);
    let mut after = before.clone();
    after.play_unchecked(m);
    Some(classify_played(&after, mover, threatened_before))
}

/// Classifies the move `mover` just played to reach `after`, given what `mover` really
/// threatened before it (`threatened(before, mover)`).
pub fn classify_played(after: &Position, mover: Color, threatened_before: Bitboard) -> MoveClass {
    if after.is_king_attacked(!mover) {
        return MoveClass::Check;
    }
    let chased = threatened(after, mover) & !threatened_before;
    if chased.any() { MoveClass::Chase(chased) } else { MoveClass::Idle }
}

/// The opponent pieces that `by` really threatens in `pos`, whoever is to move.
pub fn threatened(pos: &Position, by: Color) -> Bitboard {
    let them = !by;
    let occ = pos.occupied();
    let uncrossed_pawns = pos.pieces(them, PieceKind::Pawn) & own_half(them);
    let targets = pos.by_color(them) & !pos.by_kind(PieceKind::King) & !uncrossed_pawns;
    let mut out = Bitboard::EMPTY;
    for to in targets {
        let Some(target) = pos.piece_at(to) else {
            continue;
        };
        for from in pos.attackers_to(to, by, occ) {
            let Some(attacker) = pos.piece_at(from) else {
                continue;
            };
            if !capture_is_legal(pos, from, to) {
                continue;
            }
            if chase_value(attacker.kind) < chase_value(target.kind) || !has_true_protector(pos, from, to) {
                out = out.with(to);
                break;
            }
        }
    }
    out
}

/// Ranks 0-4 for Red, 5-9 for Black.
fn own_half(color: Color) -> Bitboard {
    const RED_HALF: Bitboard = Bitboard((1u128 << 45) - 1);
    match color {
        Color::Red => RED_HALF,
        Color::Black => !RED_HALF,
    }
}

/// Whether the piece on `from` may capture on `to` without leaving its own king attacked
/// (flying general included), whichever side is to move.
fn capture_is_legal(pos: &Position, from: Square, to: Square) -> bool {
    let Some(piece) = pos.piece_at(from) else {
        return false;
    };
    let king = if piece.kind == PieceKind::King { to } else { pos.king(piece.color) };
    let occ = pos.occupied().without(from);
    !pos.attackers_to_king(king, !piece.color, occ, !Bitboard::from_square(to)).any()
}

/// Whether, after the piece on `from` captures on `to`, a piece of the captured side could
/// legally recapture. Pinned protectors and recaptures into the flying general are false.
fn has_true_protector(pos: &Position, from: Square, to: Square) -> bool {
    let (Some(capturer), Some(victim)) = (pos.piece_at(from), pos.piece_at(to)) else {
        return false;
    };
    let defender = victim.color;
    let occ = pos.occupied().without(from);
    let capturer_gone = !Bitboard::from_square(from);
    pos.attackers_to(to, defender, occ).into_iter().any(|protector| {
        let is_king = pos.piece_at(protector).is_some_and(|p| p.kind == PieceKind::King);
        let king = if is_king { to } else { pos.king(defender) };
        !pos.attackers_to_king(king, capturer.color, occ.without(protector), capturer_gone).any()
    })
}

/// Identities (0..32) given to the pieces of a position and carried through moves, so that a
/// chased piece is recognised after it has moved. Chased sets become masks of identities.
#[derive(Clone, Debug)]
pub struct PieceIds {
    by_square: [u8; 90],
}

impl PieceIds {
    const NONE: u8 = u8::MAX;

    /// Numbers the pieces of `pos` in square order (at most 32 pieces, so a `u32` mask).
    pub fn new(pos: &Position) -> PieceIds {
        let mut by_square = [Self::NONE; 90];
        for (id, sq) in pos.occupied().into_iter().enumerate() {
            by_square[sq.index()] = id as u8;
        }
        PieceIds { by_square }
    }

    /// Follows move `m`: the moved piece keeps its identity, a captured one loses it.
    pub fn apply(&mut self, m: Move) {
        if m.is_null() {
            return;
        }
        self.by_square[m.to().index()] = self.by_square[m.from().index()];
        self.by_square[m.from().index()] = Self::NONE;
    }

    /// The identities of the pieces on `squares`.
    pub fn mask(&self, squares: Bitboard) -> u32 {
        squares
            .into_iter()
            .filter_map(|sq| match self.by_square[sq.index()] {
                Self::NONE => None,
                id => Some(1u32 << (id & 31)),
            })
            .fold(0, |acc, bit| acc | bit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    fn mv(text: &str) -> Move {
        let (a, b) = text.split_at(2);
        Move::new(a.parse().expect("square"), b.parse().expect("square"))
    }

    fn class(fen: &str, m: &str) -> MoveClass {
        classify(&pos(fen), mv(m)).unwrap_or_else(|| panic!("{m} illegal in {fen}"))
    }

    const fn sq(s: Square) -> Bitboard {
        Bitboard::from_square(s)
    }

    #[test]
    fn check_beats_chase() {
        // The rook checks along rank 8 and also attacks the loose knight on a9: a check.
        assert_eq!(class("n8/4k4/R8/9/9/9/9/9/9/3K5 w - - 0 1", "a7a8"), MoveClass::Check);
    }

    #[test]
    fn lower_value_attacker_chases_a_protected_piece() {
        // Cannon a2 attacks rook a8 over the pawn a6; the knight b6 protects a8.
        let fen = "4k4/r8/9/1n7/p8/9/9/2C6/9/3K5 w - - 0 1";
        assert_eq!(class(fen, "c2a2"), MoveClass::Chase(sq(Square::A8)));
    }

    #[test]
    fn equal_value_needs_an_unprotected_target() {
        let protected = "4k4/c8/9/1n7/p8/9/9/2C6/9/3K5 w - - 0 1";
        assert_eq!(class(protected, "c2a2"), MoveClass::Idle);
        let loose = "4k4/c8/9/9/p8/9/9/2C6/9/3K5 w - - 0 1";
        assert_eq!(class(loose, "c2a2"), MoveClass::Chase(sq(Square::A8)));
    }

    #[test]
    fn pinned_protector_is_false() {
        // Rook a6-a8 attacks cannon c8; knight e7 protects it unless rook e2 pins it.
        let true_protector = "4k4/2c6/4n4/R8/9/9/9/9/9/3K5 w - - 0 1";
        assert_eq!(class(true_protector, "a6a8"), MoveClass::Idle);
        let pinned = "4k4/2c6/4n4/R8/9/9/9/4R4/9/3K5 w - - 0 1";
        assert_eq!(class(pinned, "a6a8"), MoveClass::Chase(sq(Square::C8)));
    }

    #[test]
    fn king_and_uncrossed_pawn_are_never_threatened() {
        let p = pos("4k4/9/9/2p6/9/9/9/2R6/9/3K5 w - - 0 1");
        assert_eq!(threatened(&p, Color::Red), Bitboard::EMPTY);
        // The same pawn across the river is.
        let p = pos("4k4/9/9/9/9/2p6/9/2R6/9/3K5 w - - 0 1");
        assert_eq!(threatened(&p, Color::Red), sq(Square::C4));
    }

    #[test]
    fn illegal_capture_is_no_threat() {
        // The red rook d2 is pinned by rook d9 against king d0: its attack on the loose knight
        // a2 does not count. It does threaten the rook d9 along the pin: the black king's
        // recapture would face the red king, so it is a false protector.
        let p = pos("3rk4/9/9/9/9/9/9/n2R5/9/3K5 w - - 0 1");
        assert_eq!(threatened(&p, Color::Red), sq(Square::D9));
    }

    #[test]
    fn discovered_attack_chases() {
        // Moving the knight off c4 opens the rook's file towards the loose cannon c8.
        assert_eq!(class("4k4/2c6/9/9/9/2N6/9/9/9/2RK5 w - - 0 1", "c4e5"), MoveClass::Chase(sq(Square::C8)));
    }

    #[test]
    fn an_old_threat_is_not_a_chase() {
        // The rook already attacks the loose knight; a king move changes nothing.
        assert_eq!(class("4k4/9/2n6/9/9/9/9/9/9/2RK5 w - - 0 1", "d0d1"), MoveClass::Idle);
    }

    #[test]
    fn ids_follow_moves() {
        let p = pos("4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1");
        let mut ids = PieceIds::new(&p);
        let rook = ids.mask(sq(Square::A0));
        assert_ne!(rook, 0);
        ids.apply(mv("a0a5"));
        assert_eq!(ids.mask(sq(Square::A5)), rook);
        assert_eq!(ids.mask(sq(Square::A0)), 0);
    }
}
