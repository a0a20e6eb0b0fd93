//! The search's move picker: the hash move, then the captures that do not lose material
//! (static exchange >= 0, see `Position::see_ge`) by MVV-LVA, the two killers, quiet moves
//! by history, and last the losing captures (in the order they were met); in check, all
//! evasions (captures first, no exchange test). For quiescence, captures that lose material
//! are never returned, the hash move included (unless in check). Each stage is generated
//! only when reached, and every move it returns is legal.

use super::history::History;
use crate::movegen::{GenType, KingSafety, MAX_MOVES, MoveList, generate_pseudo, mvv_lva_value};
use crate::position::Position;
use crate::types::Move;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    TtMove,
    GenCaptures,
    Captures,
    Killer0,
    Killer1,
    GenQuiets,
    Quiets,
    BadCaptures,
    GenEvasions,
    Evasions,
    Done,
}

#[derive(Debug)]
pub struct MovePicker {
    stage: Stage,
    tt_move: Move,
    killers: [Move; 2],
    list: MoveList,
    scores: [i32; MAX_MOVES],
    next: usize,
    /// Losing captures, kept at the front of `list` (they overwrite moves already returned)
    /// until the quiets are done.
    bad_captures: usize,
    safety: KingSafety,
    captures_only: bool,
}

/// MVV-LVA order value of a capture.
#[inline]
pub fn capture_order(pos: &Position, m: Move) -> i32 {
    let victim = pos.piece_at(m.to()).map_or(0, |p| mvv_lva_value(p.kind));
    let attacker = pos.piece_at(m.from()).map_or(0, |p| mvv_lva_value(p.kind));
    victim * 16 - attacker
}

impl MovePicker {
    /// For the main search.
    pub fn new(pos: &Position, tt_move: Move, killers: [Move; 2]) -> MovePicker {
        Self::with_safety(pos, pos.king_safety(), tt_move, killers)
    }

    /// For the main search, with the position's king safety already computed.
    pub fn with_safety(pos: &Position, safety: KingSafety, tt_move: Move, killers: [Move; 2]) -> MovePicker {
        Self::build(pos, safety, tt_move, killers, false)
    }

    /// For quiescence: captures only (all evasions when in check).
    pub fn quiescence(pos: &Position, tt_move: Move) -> MovePicker {
        Self::quiescence_with(pos, pos.king_safety(), tt_move)
    }

    /// For quiescence, with the position's king safety already computed.
    pub fn quiescence_with(pos: &Position, safety: KingSafety, tt_move: Move) -> MovePicker {
        let tt_move = if pos.is_capture(tt_move) { tt_move } else { Move::NULL };
        Self::build(pos, safety, tt_move, [Move::NULL; 2], true)
    }

    fn build(pos: &Position, safety: KingSafety, tt_move: Move, killers: [Move; 2], captures_only: bool) -> MovePicker {
        debug_assert_eq!(safety.checkers, pos.checkers(), "king safety of another position: {}", pos.fen());
        let tt_ok = !tt_move.is_null()
            && pos.is_pseudo_legal(tt_move)
            && pos.is_legal_with(tt_move, &safety)
            && (!captures_only || safety.in_check() || pos.see_ge(tt_move, 0));
        MovePicker {
            stage: if tt_ok {
                Stage::TtMove
            } else if safety.in_check() {
                Stage::GenEvasions
            } else {
                Stage::GenCaptures
            },
            tt_move: if tt_ok { tt_move } else { Move::NULL },
            killers,
            list: MoveList::new(),
            scores: [0; MAX_MOVES],
            next: 0,
            bad_captures: 0,
            safety,
            captures_only,
        }
    }

    pub fn in_check(&self) -> bool {
        self.safety.in_check()
    }

    /// Picks the best-scored remaining move of the list (selection: cheap when a cutoff
    /// comes early).
    fn pick_best(&mut self) -> Option<Move> {
        let n = self.list.len();
        if self.next >= n {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..n {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.list.swap(self.next, best);
        self.scores.swap(self.next, best);
        let m = self.list[self.next];
        self.next += 1;
        Some(m)
    }

    /// Generates `kind` after the losing captures kept so far, and scores it.
    fn fill(&mut self, pos: &Position, kind: GenType, history: &History) {
        self.list.truncate(self.bad_captures);
        self.next = self.bad_captures;
        generate_pseudo(pos, kind, &mut self.list);
        let side = pos.side_to_move();
        for i in self.next..self.list.len() {
            let m = self.list[i];
            self.scores[i] = if pos.is_capture(m) { 1 << 20 | capture_order(pos, m) } else { history.score(side, m) };
        }
    }

    /// The next legal move, best first, or `None`.
    pub fn next(&mut self, pos: &Position, history: &History) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = if self.safety.in_check() { Stage::GenEvasions } else { Stage::GenCaptures };
                    return Some(self.tt_move);
                }
                Stage::GenCaptures => {
                    self.fill(pos, GenType::Captures, history);
                    self.stage = Stage::Captures;
                }
                Stage::Captures => match self.pick_best() {
                    Some(m) if m != self.tt_move && pos.is_legal_with(m, &self.safety) => {
                        if pos.see_ge(m, 0) {
                            return Some(m);
                        }
                        // `next` is past `m`, so the slot it writes is one already used.
                        self.list[self.bad_captures] = m;
                        self.bad_captures += 1;
                    }
                    Some(_) => {}
                    None => self.stage = if self.captures_only { Stage::Done } else { Stage::Killer0 },
                },
                Stage::Killer0 | Stage::Killer1 => {
                    let k = self.killers[usize::from(self.stage == Stage::Killer1)];
                    self.stage = if self.stage == Stage::Killer0 { Stage::Killer1 } else { Stage::GenQuiets };
                    if self.is_fresh_quiet(pos, k) {
                        return Some(k);
                    }
                }
                Stage::GenQuiets => {
                    self.fill(pos, GenType::Quiets, history);
                    self.stage = Stage::Quiets;
                }
                Stage::Quiets => match self.pick_best() {
                    Some(m)
                        if m != self.tt_move
                            && m != self.killers[0]
                            && m != self.killers[1]
                            && pos.is_legal_with(m, &self.safety) =>
                    {
                        return Some(m);
                    }
                    Some(_) => {}
                    None => {
                        self.stage = Stage::BadCaptures;
                        self.next = 0;
                    }
                },
                Stage::BadCaptures => {
                    if self.next < self.bad_captures {
                        self.next += 1;
                        return Some(self.list[self.next - 1]);
                    }
                    self.stage = Stage::Done;
                }
                Stage::GenEvasions => {
                    self.fill(pos, GenType::All, history);
                    self.stage = Stage::Evasions;
                }
                Stage::Evasions => match self.pick_best() {
                    Some(m) if m != self.tt_move && pos.is_legal_with(m, &self.safety) => {
                        return Some(m);
                    }
                    Some(_) => {}
                    None => self.stage = Stage::Done,
                },
                Stage::Done => return None,
            }
        }
    }

    fn is_fresh_quiet(&self, pos: &Position, k: Move) -> bool {
        !k.is_null()
            && k != self.tt_move
            && !pos.is_capture(k)
            && pos.is_pseudo_legal(k)
            && pos.is_legal_with(k, &self.safety)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn test_positions() -> Vec<Position> {
        let extra = [
            "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
            "3ak1b2/4a4/2n1b1R2/p1N1pc2p/7r1/2PN1r3/P3P3P/3RB4/4A4/1C2KAB1c w - - 0 1",
        ];
        crate::bench::BENCH_FENS.iter().chain(extra.iter()).map(|f| Position::from_fen(f).expect("valid")).collect()
    }

    fn drain(pos: &Position, mut picker: MovePicker) -> Vec<Move> {
        let history = History::default();
        let mut seen = Vec::new();
        while let Some(m) = picker.next(pos, &history) {
            seen.push(m);
        }
        seen
    }

    #[test]
    fn yields_each_legal_move_once() {
        let mut bad_captures_seen = 0;
        for pos in test_positions() {
            let fen = pos.fen();
            let moves = pos.legal_moves();
            let legal: HashSet<Move> = moves.iter().copied().collect();
            let quiets: Vec<Move> = moves.iter().copied().filter(|&m| !pos.is_capture(m)).collect();
            let bad: Vec<Move> = moves.iter().copied().filter(|&m| pos.is_capture(m) && !pos.see_ge(m, 0)).collect();
            bad_captures_seen += bad.len();
            // A quiet hash move that is also a killer, and a losing capture as the hash move.
            let mut tt_moves = vec![quiets[0]];
            tt_moves.extend(bad.first());
            for tt in tt_moves {
                let killers = [quiets[0], quiets[quiets.len() - 1]];
                let seen = drain(&pos, MovePicker::new(&pos, tt, killers));
                assert_eq!(seen.len(), legal.len(), "{fen}");
                assert_eq!(seen.iter().copied().collect::<HashSet<_>>(), legal, "{fen}");
                assert_eq!(seen[0], tt, "{fen}");
                if pos.in_check() {
                    continue;
                }
                // After the hash move: winning or even captures, quiets, losing captures.
                let class = |m: Move| match (pos.is_capture(m), pos.see_ge(m, 0)) {
                    (true, true) => 0,
                    (false, _) => 1,
                    (true, false) => 2,
                };
                let classes: Vec<i32> = seen[1..].iter().map(|&m| class(m)).collect();
                assert!(classes.windows(2).all(|w| w[0] <= w[1]), "{fen}: {seen:?}");
                let good: Vec<i32> =
                    seen[1..].iter().filter(|&&m| class(m) == 0).map(|&m| capture_order(&pos, m)).collect();
                assert!(good.windows(2).all(|w| w[0] >= w[1]), "{fen}: good captures by MVV-LVA");
            }
        }
        assert!(bad_captures_seen > 10, "the positions have losing captures: {bad_captures_seen}");
    }

    #[test]
    fn quiescence_yields_the_captures_that_do_not_lose() {
        for pos in test_positions() {
            let fen = pos.fen();
            let legal = pos.legal_moves();
            let expected: HashSet<Move> = if pos.in_check() {
                legal.iter().copied().collect()
            } else {
                legal.iter().copied().filter(|&m| pos.is_capture(m) && pos.see_ge(m, 0)).collect()
            };
            // The hash move is a losing capture where there is one: it is not returned.
            let tt = legal.iter().copied().find(|&m| pos.is_capture(m) && !pos.see_ge(m, 0)).unwrap_or(Move::NULL);
            let seen = drain(&pos, MovePicker::quiescence(&pos, tt));
            assert_eq!(seen.len(), expected.len(), "{fen}");
            assert_eq!(seen.into_iter().collect::<HashSet<_>>(), expected, "{fen}");
        }
    }
}
