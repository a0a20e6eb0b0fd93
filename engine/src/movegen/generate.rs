//! Pseudo-legal generation by kind (captures, quiets, all) and the legality filter.

use super::attacks::{self, ADVISOR_STEPS, KING_STEPS, PAWN_STEPS};
use super::MoveList;
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

/// Appends the pseudo-legal moves of the side to move (piece rules obeyed; the own king
/// may be left attacked) of the given type.
pub fn generate_pseudo(pos: &Position, kind: GenType, list: &mut MoveList) {
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
        push_targets(list, from, attacks::rook_attacks(from, occ) & target);
    }
    for from in mine(PieceKind::Cannon) {
        if kind != GenType::Captures {
            push_targets(list, from, attacks::rook_attacks(from, occ) & !occ);
        }
        if kind != GenType::Quiets {
            push_targets(list, from, attacks::cannon_attacks(from, occ) & theirs);
        }
    }
    for from in mine(PieceKind::Knight) {
        push_targets(list, from, attacks::knight_attacks(from, occ) & target);
    }
    for from in mine(PieceKind::Pawn) {
        push_targets(list, from, PAWN_STEPS[us.index()][from.index()] & target);
    }
    for from in mine(PieceKind::Bishop) {
        push_targets(list, from, attacks::bishop_attacks(from, occ) & target);
    }
    for from in mine(PieceKind::Advisor) {
        push_targets(list, from, ADVISOR_STEPS[from.index()] & target);
    }
    let king = pos.king(us);
    push_targets(list, king, KING_STEPS[king.index()] & target);
}

/// The pseudo-legal targets of the piece on `from` (empty if there is none of the side to
/// move), with all piece rules applied.
pub fn piece_targets(pos: &Position, from: Square) -> Bitboard {
    let Some(p) = pos.piece_at(from) else { return Bitboard::EMPTY };
    let occ = pos.occupied();
    let ours = pos.by_color(p.color);
    let theirs = pos.by_color(!p.color);
    match p.kind {
        PieceKind::King => KING_STEPS[from.index()] & !ours,
        PieceKind::Advisor => ADVISOR_STEPS[from.index()] & !ours,
        PieceKind::Bishop => attacks::bishop_attacks(from, occ) & !ours,
        PieceKind::Knight => attacks::knight_attacks(from, occ) & !ours,
        PieceKind::Rook => attacks::rook_attacks(from, occ) & !ours,
        PieceKind::Cannon => {
            (attacks::rook_attacks(from, occ) & !occ) | (attacks::cannon_attacks(from, occ) & theirs)
        }
        PieceKind::Pawn => PAWN_STEPS[p.color.index()][from.index()] & !ours,
    }
}

impl Position {
    /// Whether pseudo-legal `m` (of the side to move) leaves its own king safe, flying
    /// general included.
    #[inline]
    pub fn is_legal(&self, m: Move) -> bool {
        let us = self.side_to_move();
        self.is_legal_fast(m, self.king(us), self.in_check())
    }

    /// `is_legal` with the king square and check status computed once per node. Most moves
    /// are decided without computing attacks: when not in check, a non-king move can only
    /// expose the king if it leaves the king's rank or file (opening a rook or king line, or
    /// removing a cannon screen's partner), lands on it (a new cannon screen), or leaves a
    /// square diagonally next to the king (a knight's leg).
    #[inline]
    pub fn is_legal_fast(&self, m: Move, king: Square, in_check: bool) -> bool {
        let (from, to) = (m.from(), m.to());
        if !in_check && from != king {
            let (kf, kr) = (king.file(), king.rank());
            let on_line = |s: Square| s.file() == kf || s.rank() == kr;
            let leg = (from.file() - kf).abs() == 1 && (from.rank() - kr).abs() == 1;
            if !on_line(from) && !on_line(to) && !leg {
                return true;
            }
        }
        let us = self.side_to_move();
        let occ = (self.occupied() & !Bitboard::from_square(from)) | Bitboard::from_square(to);
        let ksq = if from == king { to } else { king };
        !self.attackers_to_king(ksq, !us, occ, !Bitboard::from_square(to)).any()
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

    /// All legal moves of the side to move.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        generate_pseudo(self, GenType::All, &mut list);
        let king = self.king(self.side_to_move());
        let in_check = self.in_check();
        list.retain(|m| self.is_legal_fast(m, king, in_check));
        list
    }

    /// Legal moves of the given type.
    pub fn legal_moves_of(&self, kind: GenType) -> MoveList {
        let mut list = MoveList::new();
        generate_pseudo(self, kind, &mut list);
        let king = self.king(self.side_to_move());
        let in_check = self.in_check();
        list.retain(|m| self.is_legal_fast(m, king, in_check));
        list
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self) -> bool {
        let mut list = MoveList::new();
        generate_pseudo(self, GenType::All, &mut list);
        let king = self.king(self.side_to_move());
        let in_check = self.in_check();
        list.iter().any(|&m| self.is_legal_fast(m, king, in_check))
    }
}
