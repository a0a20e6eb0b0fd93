//! The arbiter: the verdict on the position reached, and the repetition judgement the
//! search also uses.
//!
//! Order of the checks in `judge`: (1) no legal move: the side to move loses (checkmate, or
//! stalemate, which also loses); (2) the third occurrence of the position: the Asian-rules
//! verdict; (3) 120 plies without a capture: a draw. A mate on the 120th ply therefore wins.
//!
//! The repetition span: when the position occurs for the n-th time, the judged moves are
//! those from its FIRST counted occurrence to now (for n = 3, both cycles, however different
//! they are). A side is blamed only if it checked, or chased the same piece, on every move
//! since the position first stood on the board; the last cycle alone could blame a side for
//! a stretch of checks after a first cycle of quiet moves.

use super::chase::{MoveClass, PieceIds, classify_played, threatened};
use super::outcome::{Outcome, Reason};
use super::verdict::{CycleMove, CycleVerdict, SideClass, Violation, cycle_verdict};
use crate::position::Position;
use crate::types::Color;

/// Plies without a capture after which the game is drawn (Pikafish's rule 60, in plies).
pub const MOVE_LIMIT_PLIES: u32 = 120;

/// How often a position must occur for the arbiter to judge it.
pub const ARBITER_OCCURRENCES: usize = 3;

/// A repetition's judgement, for the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepetitionVerdict {
    Draw,
    /// This side broke the rules (perpetual check or chase) and loses.
    Loses(Color),
}

/// The arbiter's verdict on `pos` after the moves in its history.
pub fn judge(pos: &Position) -> Outcome {
    let us = pos.side_to_move();
    if !pos.has_legal_move() {
        let reason = if pos.in_check() { Reason::Checkmate } else { Reason::Stalemate };
        return Outcome::loss(us, reason);
    }
    if let Some(outcome) = repetition_outcome(pos, ARBITER_OCCURRENCES) {
        return outcome;
    }
    if pos.rule60() >= MOVE_LIMIT_PLIES {
        return Outcome::draw(Reason::MoveLimit);
    }
    Outcome::ONGOING
}

/// The judgement when the current position occurs for the `occurrences`-th time (counting
/// itself) in the history; `None` if it does not (or `occurrences < 2`). The search asks with
/// 2 (first repetition on the path), the arbiter with 3.
pub fn repetition_verdict(pos: &Position, occurrences: usize) -> Option<RepetitionVerdict> {
    judge_repetition(pos, occurrences).map(|(verdict, _)| verdict)
}

/// `repetition_verdict` as an `Outcome` (result and reason).
pub fn repetition_outcome(pos: &Position, occurrences: usize) -> Option<Outcome> {
    judge_repetition(pos, occurrences).map(|(verdict, reason)| match verdict {
        RepetitionVerdict::Draw => Outcome::draw(reason),
        RepetitionVerdict::Loses(loser) => Outcome::loss(loser, reason),
    })
}

fn judge_repetition(pos: &Position, occurrences: usize) -> Option<(RepetitionVerdict, Reason)> {
    let span = repetition_span(pos, occurrences)?;
    let (m, o) = classify_span(pos, span);
    let first_mover = pos.side_to_move();
    Some(match cycle_verdict(m, o) {
        CycleVerdict::Draw => (RepetitionVerdict::Draw, Reason::Repetition),
        CycleVerdict::FirstMoverLoses(v) => (RepetitionVerdict::Loses(first_mover), reason(v)),
        CycleVerdict::SecondMoverLoses(v) => (RepetitionVerdict::Loses(!first_mover), reason(v)),
    })
}

const fn reason(v: Violation) -> Reason {
    match v {
        Violation::PerpetualCheck => Reason::PerpetualCheck,
        Violation::PerpetualChase => Reason::PerpetualChase,
    }
}

/// How many plies back the `occurrences`-th occurrence of the current position stands
/// (the current one counting as the first), looking only at even distances and never past
/// a null move or a capture (a capture changes the material, so nothing before it repeats).
/// Only keys are compared: this is the cheap path taken on every call.
pub fn repetition_span(pos: &Position, occurrences: usize) -> Option<usize> {
    if occurrences < 2 {
        return None;
    }
    let key = pos.key();
    let mut found = 1;
    for (i, st) in pos.history().iter().rev().enumerate() {
        if st.mv.is_null() || st.captured.is_some() {
            return None;
        }
        let back = i + 1;
        if back % 2 == 0 && st.key == key {
            found += 1;
            if found == occurrences {
                return Some(back);
            }
        }
    }
    None
}

/// Replays the last `span` plies (an even number, no null move, no capture) and folds each
/// side's moves into its class: (M's, O's), M being the side to move now, which also made
/// the first move of the span.
fn classify_span(pos: &Position, span: usize) -> (SideClass, SideClass) {
    let history = pos.history();
    let moves = &history[history.len() - span..];
    let mut board = pos.clone();
    for _ in 0..span {
        board.undo();
    }
    let mut ids = PieceIds::new(&board);
    let mut classes = Vec::with_capacity(span);
    for st in moves {
        let mover = board.side_to_move();
        let before = threatened(&board, mover);
        board.play_unchecked(st.mv);
        ids.apply(st.mv);
        classes.push(match classify_played(&board, mover, before) {
            MoveClass::Check => CycleMove::Check,
            MoveClass::Chase(squares) => CycleMove::Chase(ids.mask(squares)),
            MoveClass::Idle => CycleMove::Idle,
        });
    }
    debug_assert_eq!(board.key(), pos.key(), "replaying the span returns to the position");
    let m = SideClass::of(classes.iter().step_by(2).copied());
    let o = SideClass::of(classes.iter().skip(1).step_by(2).copied());
    (m, o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::GameResult;
    use crate::types::Move;

    fn play(fen: &str, moves: &str) -> Position {
        let mut pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        for text in moves.split_whitespace() {
            let (a, b) = text.split_at(2);
            let m = Move::new(a.parse().expect("square"), b.parse().expect("square"));
            pos.try_play(m).unwrap_or_else(|e| panic!("{e}"));
        }
        pos
    }

    const KNIGHTS: &str = "b0c2 b9c7 c2b0 c7b9";
    const START: &str = crate::position::START_FEN;

    #[test]
    fn counts_occurrences() {
        let pos = play(START, KNIGHTS);
        assert_eq!(repetition_span(&pos, 2), Some(4));
        assert_eq!(repetition_span(&pos, 3), None);
        assert_eq!(repetition_verdict(&pos, 2), Some(RepetitionVerdict::Draw));
        assert_eq!(repetition_verdict(&pos, 3), None);
        assert_eq!(judge(&pos), Outcome::ONGOING);
        let pos = play(START, &format!("{KNIGHTS} {KNIGHTS}"));
        assert_eq!(repetition_span(&pos, 3), Some(8));
        assert_eq!(judge(&pos), Outcome::draw(Reason::Repetition));
        assert_eq!(repetition_span(&pos, 1), None);
    }

    #[test]
    fn null_move_and_capture_stop_the_scan() {
        let mut pos = play(START, KNIGHTS);
        pos.play_null();
        pos.play_null();
        assert_eq!(repetition_span(&pos, 2), None);
        // A capture ends the history that can repeat.
        let pos = play(START, &format!("h2h9 i9h9 {KNIGHTS}"));
        assert_eq!(repetition_span(&pos, 2), Some(4));
        let pos = play(START, &format!("h2h9 i9h9 {KNIGHTS} {KNIGHTS}"));
        assert_eq!(repetition_span(&pos, 3), Some(8));
        assert_eq!(repetition_span(&pos, 4), None);
    }

    #[test]
    fn perpetual_check_loses_for_the_checker() {
        let fen = "R8/4k4/9/9/9/9/9/9/9/3K5 w - - 0 1";
        let cycle = "a9a8 e8e9 a8a9 e9e8";
        let pos = play(fen, cycle);
        assert_eq!(repetition_verdict(&pos, 2), Some(RepetitionVerdict::Loses(Color::Red)));
        let pos = play(fen, &format!("{cycle} {cycle}"));
        assert_eq!(judge(&pos), Outcome::loss(Color::Red, Reason::PerpetualCheck));
        assert_eq!(judge(&pos).result, GameResult::BlackWins);
    }
}
