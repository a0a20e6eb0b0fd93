//! Pseudo-legal generation by kind (captures, quiets, all) and the legality filter.

use super::MoveList;
use super::attacks::{self, ADVISOR_STEPS, KING_STEPS, PAWN_STEPS};
use crate::position::Position;
use crate::types::{Bitboard, Move, PieceKind, Square};

/// Which pseudo-legal moves to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenType {
    /// Moves that capture an enemy piece.
    Captures,
    /// Moves to an empty square.
    Quiets,
    /// Both.
    All,
}

#[inline]
fn push_targets(list: &mut MoveList, from: Square, targets: Bitboard) {
    for to in targets {
        list.push(Move::new(from, to));
    }
}

/// Calls `visit(from, targets)` for every piece of the side to move with its pseudo-legal
/// targets of the given type (piece rules obeyed; the own king may be left attacked).
#[inline]
fn for_each_piece_targets(pos: &Position, kind: GenType, mut visit: impl FnMut(Square, Bitboard)) {
    let us = pos.side_to_move();
    let occ = pos.occupied();
    let ours = pos.by_color(us);
    let theirs = pos.by_color(!us);
    let target = match kind {
        GenType::Captures => theirs,
        GenType::Quiets => !occ,
        GenType::All => !ours,
    };
    let mine = |k: PieceKind| ours & pos.by_kind(k);

    for from in mine(PieceKind::Rook) {
        visit(from, attacks::rook_attacks(from, occ) & target);
    }
    for from in mine(PieceKind::Cannon) {
        let mut t = Bitboard::EMPTY;
        if kind != GenType::Captures {
            t |= attacks::rook_attacks(from, occ) & !occ;
        }
        if kind != GenType::Quiets {
            t |= attacks::cannon_attacks(from, occ) & theirs;
        }
        visit(from, t);
    }
    for from in mine(PieceKind::Knight) {
        visit(from, attacks::knight_attacks(from, occ) & target);
    }
    for from in mine(PieceKind::Pawn) {
        visit(from, PAWN_STEPS[us.index()][from.index()] & target);
    }
    for from in mine(PieceKind::Bishop) {
        visit(from, attacks::bishop_attacks(from, occ) & target);
    }
    for from in mine(PieceKind::Advisor) {
        visit(from, ADVISOR_STEPS[from.index()] & target);
    }
    let king = pos.king(us);
    visit(king, KING_STEPS[king.index()] & target);
}

/// Appends the pseudo-legal moves of the side to move of the given type.
pub fn generate_pseudo(pos: &Position, kind: GenType, list: &mut MoveList) {
    for_each_piece_targets(pos, kind, |from, targets| push_targets(list, from, targets));
}

/// The number of legal moves, without building a list (perft's bulk count at the last
/// ply): see `KingSafety` for why most moves need no attack test.
pub fn count_legal(pos: &Position) -> usize {
    let ks = pos.king_safety();
    let mut count = 0;
    if ks.in_check() {
        for_each_piece_targets(pos, GenType::All, |from, targets| {
            for to in targets {
                count += usize::from(pos.is_legal_full(Move::new(from, to), ks.king));
            }
        });
        return count;
    }
    for_each_piece_targets(pos, GenType::All, |from, targets| {
        if from == ks.king || ks.blockers.contains(from) {
            for to in targets {
                count += usize::from(pos.is_legal_full(Move::new(from, to), ks.king));
            }
        } else {
            count += (targets & !ks.screen_squares).count() as usize;
        }
    });
    count
}

/// The pseudo-legal targets of the piece on `from` (empty if there is none of the side to
/// move), with all piece rules applied.
pub fn piece_targets(pos: &Position, from: Square) -> Bitboard {
    let Some(p) = pos.piece_at(from) else {
        return Bitboard::EMPTY;
    };
    let occ = pos.occupied();
    let ours = pos.by_color(p.color);
    let theirs = pos.by_color(!p.color);
    match p.kind {
        PieceKind::King => KING_STEPS[from.index()] & !ours,
        PieceKind::Advisor => ADVISOR_STEPS[from.index()] & !ours,
        PieceKind::Bishop => attacks::bishop_attacks(from, occ) & !ours,
        PieceKind::Knight => attacks::knight_attacks(from, occ) & !ours,
        PieceKind::Rook => attacks::rook_attacks(from, occ) & !ours,
        PieceKind::Cannon => (attacks::rook_attacks(from, occ) & !occ) | (attacks::cannon_attacks(from, occ) & theirs),
        PieceKind::Pawn => PAWN_STEPS[p.color.index()][from.index()] & !ours,
    }
}

impl Position {
    /// Whether pseudo-legal `m` (of the side to move) leaves its own king safe, flying
    /// general included.
    #[inline]
    pub fn is_legal(&self, m: Move) -> bool {
        self.is_legal_with(m, &self.king_safety())
    }

    /// Whether `m` is pseudo-legal for the side to move here (for moves from outside the
    /// generator: hash moves, killers, user input).
    pub fn is_pseudo_legal(&self, m: Move) -> bool {
        if m.is_null() {
            return false;
        }
        match self.piece_at(m.from()) {
            Some(p) if p.color == self.side_to_move() => piece_targets(self, m.from()).contains(m.to()),
            _ => false,
        }
    }

    /// Whether `m` is a legal move here (for moves from outside the generator).
    pub fn is_legal_move(&self, m: Move) -> bool {
        self.is_pseudo_legal(m) && self.is_legal(m)
    }

    /// All legal moves of the side to move.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        generate_pseudo(self, GenType::All, &mut list);
        let ks = self.king_safety();
        list.retain(|m| self.is_legal_with(m, &ks));
        list
    }

    /// Legal moves of the given type.
    pub fn legal_moves_of(&self, kind: GenType) -> MoveList {
        let mut list = MoveList::new();
        generate_pseudo(self, kind, &mut list);
        let ks = self.king_safety();
        list.retain(|m| self.is_legal_with(m, &ks));
        list
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self) -> bool {
        let mut list = MoveList::new();
        generate_pseudo(self, GenType::All, &mut list);
        let ks = self.king_safety();
        list.iter().any(|&m| self.is_legal_with(m, &ks))
    }
}
