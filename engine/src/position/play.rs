//! Checked move play: `try_play` explains why a move is refused.

use super::Position;
use crate::error::{Error, IllegalMoveReason, Result};
use crate::movegen::piece_targets;
use crate::types::Move;

impl Position {
    /// Why `m` is not legal here, or `None` if it is.
    pub fn illegal_reason(&self, m: Move) -> Option<IllegalMoveReason> {
        if m.is_null() {
            return Some(IllegalMoveReason::Null);
        }
        let (from, to) = (m.from(), m.to());
        let us = self.side_to_move();
        let Some(piece) = self.piece_at(from) else {
            return Some(IllegalMoveReason::NoPiece(from));
        };
        if piece.color != us {
            return Some(IllegalMoveReason::NotYourPiece { square: from, owner: piece.color, to_move: us });
        }
        if !piece_targets(self, from).contains(to) {
            return Some(IllegalMoveReason::CannotReach { piece, from, to });
        }
        if self.is_legal(m) {
            return None;
        }
        let mut after = self.clone();
        after.play_unchecked(m);
        if after.kings_facing() {
            Some(IllegalMoveReason::KingsFacing)
        } else {
            Some(IllegalMoveReason::KingInCheck(us))
        }
    }

    /// Plays `m` if it is legal; otherwise returns an error naming the move, the position
    /// and the reason, and leaves the position unchanged.
    pub fn try_play(&mut self, m: Move) -> Result<()> {
        match self.illegal_reason(m) {
            None => {
                self.play_unchecked(m);
                Ok(())
            }
            Some(reason) => Err(Error::IllegalMove { mv: m.to_string(), fen: self.fen(), reason }),
        }
    }
}
