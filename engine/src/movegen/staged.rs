//! The staged generator: captures first (most valuable victim, least valuable attacker),
//! then quiet moves; in check, evasions only. Each stage is generated only when the one
//! before it is used up, so a search that cuts off on a capture never generates quiets.
//! Every move it yields is legal.

use super::KingSafety;
use super::MoveList;
use super::generate::{GenType, generate_pseudo};
use crate::position::Position;
use crate::types::{Move, PieceKind};

/// Where the generator is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    Captures,
    Quiets,
    Evasions,
    Done,
}

/// Ordering value of a piece kind for MVV-LVA (king highest as a victim never happens).
#[inline]
pub const fn mvv_lva_value(kind: PieceKind) -> i32 {
    match kind {
        PieceKind::King => 0,
        PieceKind::Pawn => 1,
        PieceKind::Advisor | PieceKind::Bishop => 2,
        PieceKind::Knight | PieceKind::Cannon => 4,
        PieceKind::Rook => 9,
    }
}

#[derive(Debug)]
pub struct StagedMoves {
    stage: Stage,
    list: MoveList,
    next: usize,
    safety: KingSafety,
    captures_only: bool,
}

impl StagedMoves {
    /// All legal moves of `pos` in stages.
    pub fn new(pos: &Position) -> StagedMoves {
        Self::with_options(pos, false)
    }

    /// Captures only (evasions when in check): quiescence search.
    pub fn captures(pos: &Position) -> StagedMoves {
        Self::with_options(pos, true)
    }

    fn with_options(pos: &Position, captures_only: bool) -> StagedMoves {
        let safety = pos.king_safety();
        let in_check = safety.in_check();
        let mut s = StagedMoves {
            stage: if in_check { Stage::Evasions } else { Stage::Captures },
            list: MoveList::new(),
            next: 0,
            safety,
            captures_only,
        };
        s.fill(pos);
        s
    }

    pub fn stage(&self) -> Stage {
        self.stage
    }

    fn fill(&mut self, pos: &Position) {
        self.list.clear();
        self.next = 0;
        match self.stage {
            Stage::Captures => {
                generate_pseudo(pos, GenType::Captures, &mut self.list);
                let score = |m: Move| {
                    let victim = pos.piece_at(m.to()).map_or(0, |p| mvv_lva_value(p.kind));
                    let attacker = pos.piece_at(m.from()).map_or(0, |p| mvv_lva_value(p.kind));
                    victim * 16 - attacker
                };
                self.list.sort_by_key(|&m| std::cmp::Reverse(score(m)));
            }
            Stage::Quiets => generate_pseudo(pos, GenType::Quiets, &mut self.list),
            Stage::Evasions => generate_pseudo(pos, GenType::All, &mut self.list),
            Stage::Done => {}
        }
    }

    /// The next legal move with the stage it came from, or `None` when all are yielded.
    pub fn next(&mut self, pos: &Position) -> Option<(Move, Stage)> {
        loop {
            while self.next < self.list.len() {
                let m = self.list[self.next];
                self.next += 1;
                if pos.is_legal_with(m, &self.safety) {
                    return Some((m, self.stage));
                }
            }
            self.stage = match self.stage {
                Stage::Captures if !self.captures_only => Stage::Quiets,
                _ => Stage::Done,
            };
            if self.stage == Stage::Done {
                return None;
            }
            self.fill(pos);
        }
    }
}
