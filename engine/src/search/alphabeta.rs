//! The recursive search: principal variation search with a transposition table, null-move
//! pruning (with verification at high depth), reverse futility pruning, late-move
//! reductions and pruning, static exchange pruning near the leaves (captures that lose more
//! than `see_capture_margin` per ply, quiets that lose more than `see_quiet_margin` per ply
//! squared), futility pruning of quiet moves when the static evaluation plus
//! `fp_base + fp_margin`·depth cannot reach alpha, check extension, mate-distance pruning, and quiescence on the captures that do
//! not lose material (all evasions in check). The rules score inside the tree: repetitions
//! by the Asian-rules verdict, the 120-ply natural limit, and no legal move = a loss.
//!
//! With a network (`EvalKind::Nnue`) every move, null move and take-back goes through
//! `play`, `play_null` and `undo`, which keep the accumulator stack in step with the position.

use std::sync::atomic::{AtomicBool, Ordering};

use super::history::History;
use super::limits::Limits;
use super::movepick::MovePicker;
use super::params::{LmrTable, SearchParams};
use super::score::*;
use super::timeman::TimeManager;
use super::tt::{Bound, TranspositionTable, TtHit};
use crate::eval::{Params, evaluate};
use crate::movegen::{KingSafety, MoveList};
use crate::nnue::AccumulatorStack;
use crate::position::Position;
use crate::rules::{RepetitionVerdict, repetition_verdict};
use crate::tablebase::{Tablebases, Wdl};
use crate::types::{Move, PieceKind};

/// Plies without a capture after which the game is drawn.
const NATURAL_LIMIT: u32 = 120;

/// The stored score, if its bound decides this window.
#[inline]
fn tt_cutoff(h: &TtHit, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
    let v = from_tt(h.value, ply);
    let decides = match h.bound {
        Bound::Exact => true,
        Bound::Lower => v >= beta,
        Bound::Upper => v <= alpha,
        Bound::None => false,
    };
    decides.then_some(v)
}

pub(crate) struct Searcher<'a> {
    pub pos: Position,
    pub params: &'a Params,
    pub sp: &'a SearchParams,
    pub lmr: &'a LmrTable,
    pub tt: &'a mut TranspositionTable,
    pub history: &'a mut History,
    pub stop: &'a AtomicBool,
    pub limits: &'a Limits,
    pub tm: TimeManager,
    pub nodes: u64,
    pub seldepth: usize,
    pub stopped: bool,
    pub root_moves: Vec<Move>,
    pub pv: Vec<[Move; MAX_PLY + 1]>,
    pub pv_len: [usize; MAX_PLY + 1],
    eval_stack: [i32; MAX_PLY + 2],
    /// The king safety last computed at each ply, with the key of its position: a node's
    /// parent computes it to see whether its move gives check, and the node reuses it for its
    /// own check test and move picker (a key that differs means another position: computed).
    safety: [Option<(u64, KingSafety)>; MAX_PLY + 2],
    /// Endgame tables probed (WDL) at nodes a capture just reached.
    pub tb: Option<&'a Tablebases>,
    /// Probes that found a value.
    pub tb_hits: u64,
    /// The network's accumulators along the current path, when the search evaluates with a
    /// network (`None`: the hand-crafted evaluation).
    pub nnue: Option<AccumulatorStack>,
}

impl<'a> Searcher<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        pos: Position,
        params: &'a Params,
        (sp, lmr): (&'a SearchParams, &'a LmrTable),
        tt: &'a mut TranspositionTable,
        history: &'a mut History,
        stop: &'a AtomicBool,
        limits: &'a Limits,
        tm: TimeManager,
        root_moves: Vec<Move>,
    ) -> Searcher<'a> {
        Searcher {
            pos,
            params,
            sp,
            lmr,
            tt,
            history,
            stop,
            limits,
            tm,
            nodes: 0,
            seldepth: 0,
            stopped: false,
            root_moves,
            pv: vec![[Move::NULL; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            eval_stack: [0; MAX_PLY + 2],
            safety: [None; MAX_PLY + 2],
            tb: None,
            tb_hits: 0,
            nnue: None,
        }
    }

    /// The principal variation found by the last completed root search.
    pub fn root_pv(&self) -> Vec<Move> {
        self.pv[0][..self.pv_len[0]].to_vec()
    }

    /// The side to move's king safety at `ply` (the current position), computed once.
    #[inline]
    fn safety(&mut self, ply: usize) -> KingSafety {
        let key = self.pos.key();
        match self.safety[ply] {
            Some((k, safety)) if k == key => safety,
            _ => {
                let safety = self.pos.king_safety();
                self.safety[ply] = Some((key, safety));
                safety
            }
        }
    }

    #[inline]
    fn check_stop(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.limits.nodes.is_some_and(|n| self.nodes >= n)
            || (self.nodes & 1023 == 0 && (self.stop.load(Ordering::Relaxed) || self.tm.out_of_time()))
        {
            self.stopped = true;
        }
        self.stopped
    }

    #[inline]
    fn play(&mut self, m: Move) {
        if let Some(acc) = &mut self.nnue {
            acc.push_move(&self.pos, m);
        }
        self.pos.play_unchecked(m);
        self.nodes += 1;
    }

    #[inline]
    fn play_null(&mut self) {
        if let Some(acc) = &mut self.nnue {
            acc.push_null();
        }
        self.pos.play_null();
        self.nodes += 1;
    }

    /// Takes back `play` or `play_null`.
    #[inline]
    fn undo(&mut self) {
        if let Some(acc) = &mut self.nnue {
            acc.pop();
        }
        self.pos.undo();
    }

    #[inline]
    fn eval(&mut self) -> i32 {
        match &mut self.nnue {
            None => evaluate(&self.pos, self.params),
            Some(acc) => acc.evaluate(self.pos.side_to_move()),
        }
    }

    /// A quick look for an earlier occurrence of this position on the path (even distance
    /// of at least 4 plies, within the plies since the last capture, no null move between).
    fn repeats(&self) -> bool {
        let hist = self.pos.history();
        let key = self.pos.key();
        let window = (self.pos.rule60() as usize).min(hist.len());
        let mut back = 1;
        while back <= window {
            let st = &hist[hist.len() - back];
            if st.mv.is_null() {
                return false;
            }
            if back >= 4 && back % 2 == 0 && st.key == key {
                return true;
            }
            back += 1;
        }
        false
    }

    /// The score the rules give this node before any search, if they decide it.
    fn rule_score(&self, ply: usize) -> Option<i32> {
        if self.repeats() {
            return Some(match repetition_verdict(&self.pos, 2) {
                Some(RepetitionVerdict::Loses(c)) if c == self.pos.side_to_move() => rep_lost_in(ply),
                Some(RepetitionVerdict::Loses(_)) => -rep_lost_in(ply),
                Some(RepetitionVerdict::Draw) | None => DRAW,
            });
        }
        if self.pos.rule60() >= NATURAL_LIMIT {
            return Some(if self.pos.has_legal_move() { DRAW } else { mated_in(ply) });
        }
        None
    }

    fn has_pieces(&self) -> bool {
        let us = self.pos.side_to_move();
        (self.pos.pieces(us, PieceKind::Rook)
            | self.pos.pieces(us, PieceKind::Knight)
            | self.pos.pieces(us, PieceKind::Cannon))
        .any()
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        self.pv[ply][ply] = m;
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    pub fn search(
        &mut self,
        mut alpha: i32,
        mut beta: i32,
        depth: i32,
        ply: usize,
        pv_node: bool,
        null_ok: bool,
    ) -> i32 {
        let root = ply == 0;
        self.pv_len[ply] = ply;
        if depth <= 0 {
            return self.qsearch(alpha, beta, ply);
        }
        if self.check_stop() {
            return DRAW;
        }
        self.seldepth = self.seldepth.max(ply);
        if !root {
            if let Some(v) = self.rule_score(ply) {
                return v;
            }
            if ply >= MAX_PLY - 1 {
                return if self.pos.in_check() { DRAW } else { self.eval() };
            }
            // Mate-distance pruning (the repetition band lies beyond the mate band).
            alpha = alpha.max(rep_lost_in(ply));
            beta = beta.min(-rep_lost_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }

        let key = self.pos.key();
        let hit = self.tt.probe(key);
        let tt_move = hit.map_or(Move::NULL, |h| h.mv);
        if let Some(h) = hit
            && !pv_node
            && h.depth >= depth
            && let Some(v) = tt_cutoff(&h, ply, alpha, beta)
        {
            return v;
        }

        // Endgame tables, where a capture has just entered one (a position reached without a
        // capture from one in a table was itself in it, and its root answered from it).
        if let Some(tb) = self.tb
            && ply > 0
            && self.pos.rule60() == 0
            && let Ok(Some(v)) = tb.probe(&self.pos)
        {
            self.tb_hits += 1;
            return match v.wdl {
                Wdl::Win => TB_WIN - ply as i32,
                Wdl::Draw => DRAW,
                Wdl::Loss => -TB_WIN + ply as i32,
            };
        }

        let safety = self.safety(ply);
        let in_check = safety.in_check();
        let static_eval = if in_check { -INFINITE } else { hit.map_or_else(|| self.eval(), |h| h.eval) };
        self.eval_stack[ply] = static_eval;
        let improving = ply >= 2 && !in_check && static_eval > self.eval_stack[ply - 2];

        if !pv_node && !in_check && beta.abs() < DECISIVE {
            // Reverse futility: far above beta with little depth left.
            let sp = self.sp;
            let margin = sp.rfp_margin * depth - if improving { sp.rfp_improving } else { 0 };
            if depth <= sp.rfp_depth && static_eval - margin >= beta {
                return static_eval;
            }
            // Null move: give the opponent a free move; if we still beat beta, cut.
            if null_ok && depth >= sp.nmp_min_depth && static_eval >= beta && self.has_pieces() {
                let r = sp.nmp_base + depth / sp.nmp_depth_div;
                self.play_null();
                let v = -self.search(-beta, -beta + 1, depth - r - 1, ply + 1, false, false);
                self.undo();
                if self.stopped {
                    return DRAW;
                }
                if v >= beta {
                    let v = if v >= DECISIVE { beta } else { v };
                    if depth < sp.nmp_verify_depth {
                        return v;
                    }
                    // Verification against zugzwang-like positions: the same reduced
                    // search without the null move.
                    let verified = self.search(beta - 1, beta, depth - r - 1, ply, false, false);
                    if verified >= beta {
                        return v;
                    }
                }
            }
        }

        let side = self.pos.side_to_move();
        let mut picker = MovePicker::with_safety(&self.pos, safety, tt_move, self.history.killers(ply));
        let mut best = -INFINITE;
        let mut best_move = Move::NULL;
        let mut moves_tried = 0usize;
        let mut quiets_tried = MoveList::new();
        let killers = self.history.killers(ply);

        while let Some(m) = picker.next(&self.pos, self.history) {
            if root && !self.root_moves.contains(&m) {
                continue;
            }
            moves_tried += 1;
            let capture = self.pos.is_capture(m);
            // Near the leaves, unless the move checks: late-move pruning of quiet moves, and
            // static exchange pruning of moves that lose material (decided before the move
            // is played, since it reads the position before it).
            let sp = self.sp;
            let prunable = !root && !pv_node && !in_check && best > -DECISIVE;
            let late_quiet = prunable
                && !capture
                && depth <= sp.lmp_depth
                && moves_tried > (sp.lmp_base + depth * depth * sp.lmp_scale) as usize;
            // Futility: a quiet move cannot lift a static evaluation this far below alpha.
            let futile = prunable
                && !late_quiet
                && !capture
                && depth <= sp.fp_depth
                && static_eval + sp.fp_base + sp.fp_margin * depth <= alpha;
            let see_losing = prunable
                && !late_quiet
                && !futile
                && depth <= sp.see_prune_depth
                && !self.pos.see_ge(
                    m,
                    if capture { -sp.see_capture_margin * depth } else { -sp.see_quiet_margin * depth * depth },
                );
            self.play(m);
            let gives_check = self.safety(ply + 1).in_check();
            if (late_quiet || futile || see_losing) && !gives_check {
                self.undo();
                // The pruned move was counted as a node: keep a node limit exact.
                if self.check_stop() {
                    return DRAW;
                }
                continue;
            }

            let extension = i32::from(gives_check && ply < 2 * MAX_PLY / 3);
            let new_depth = depth - 1 + extension;
            let v = if moves_tried == 1 {
                -self.search(-beta, -alpha, new_depth, ply + 1, pv_node, true)
            } else {
                let mut r = 0;
                if depth >= self.sp.lmr_min_depth && !capture && !in_check && !gives_check {
                    r = self.lmr.get(depth, moves_tried);
                    r -= i32::from(pv_node);
                    r += i32::from(!improving);
                    r -= i32::from(killers.contains(&m));
                    r -= self.history.score(side, m) / self.sp.lmr_history_div;
                    r = r.clamp(0, (new_depth - 1).max(0));
                }
                let mut v = -self.search(-alpha - 1, -alpha, new_depth - r, ply + 1, false, true);
                if v > alpha && r > 0 {
                    v = -self.search(-alpha - 1, -alpha, new_depth, ply + 1, false, true);
                }
                if v > alpha && v < beta && pv_node {
                    v = -self.search(-beta, -alpha, new_depth, ply + 1, true, true);
                }
                v
            };
            self.undo();
            if self.stopped {
                return DRAW;
            }
            if v > best {
                best = v;
                if v > alpha {
                    best_move = m;
                    alpha = v;
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if v >= beta {
                        if !capture {
                            self.history.reward(side, ply, m, &quiets_tried, depth, self.sp);
                        }
                        break;
                    }
                }
            }
            if !capture {
                quiets_tried.push(m);
            }
        }

        if moves_tried == 0 {
            // Checkmate and stalemate both lose in Xiangqi.
            return mated_in(ply);
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if !best_move.is_null() && pv_node {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(key, best_move, to_tt(best, ply), static_eval, depth, bound);
        best
    }

    pub fn qsearch(&mut self, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv_len[ply] = ply;
        if self.check_stop() {
            return DRAW;
        }
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY - 1 {
            return self.eval();
        }
        let key = self.pos.key();
        let hit = self.tt.probe(key);
        if let Some(v) = hit.and_then(|h| tt_cutoff(&h, ply, alpha, beta)) {
            return v;
        }
        let safety = self.safety(ply);
        let mut picker = MovePicker::quiescence_with(&self.pos, safety, hit.map_or(Move::NULL, |h| h.mv));
        let in_check = picker.in_check();
        let static_eval;
        let mut best;
        if in_check {
            static_eval = -INFINITE;
            best = -INFINITE;
        } else {
            static_eval = hit.map_or_else(|| self.eval(), |h| h.eval);
            if static_eval >= beta {
                return static_eval;
            }
            alpha = alpha.max(static_eval);
            best = static_eval;
        }
        let mut best_move = Move::NULL;
        while let Some(m) = picker.next(&self.pos, self.history) {
            self.play(m);
            let v = -self.qsearch(-beta, -alpha, ply + 1);
            self.undo();
            if self.stopped {
                return DRAW;
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    best_move = m;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        if in_check && best == -INFINITE {
            return mated_in(ply);
        }
        let bound = if best >= beta { Bound::Lower } else { Bound::Upper };
        self.tt.store(key, best_move, to_tt(best, ply), static_eval, 0, bound);
        best
    }
}
