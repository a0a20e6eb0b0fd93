//! The search: iterative deepening with aspiration windows over a principal variation
//! search (see `alphabeta.rs`), with its transposition table, move ordering memory and
//! time manager in files of their own.

mod alphabeta;
pub mod history;
pub mod limits;
pub mod movepick;
pub mod params;
pub mod score;
pub mod timeman;
pub mod tt;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use alphabeta::Searcher;
pub use history::History;
pub use limits::{Info, Limits, Score, SearchResult};
pub use params::{LmrTable, SEARCH_PARAMS, SearchParamSpec, SearchParams};
use score::{DECISIVE, INFINITE, MAX_PLY, to_uci};

pub use timeman::{DEFAULT_MOVE_OVERHEAD, TimeManager};
pub use tt::TranspositionTable;

use crate::eval::Params;
use crate::position::Position;
use crate::types::Move;

/// Everything one search needs besides the position.
#[derive(Debug)]
pub struct SearchContext<'a> {
    pub params: &'a Params,
    pub search: &'a SearchParams,
    /// Built from `search` (see [`LmrTable::new`]).
    pub lmr: &'a LmrTable,
    pub tt: &'a mut TranspositionTable,
    pub history: &'a mut History,
    pub stop: &'a AtomicBool,
    pub move_overhead: Duration,
    /// Endgame tables: WDL in the search, the best move by DTC at the root.
    pub tb: Option<&'a crate::tablebase::Tablebases>,
    /// The evaluation: the hand-crafted one with `params`, or a network.
    pub eval: &'a crate::EvalKind,
}

/// Searches `pos` within `limits`, calling `on_info` after every completed iteration.
/// `root_moves` restricts the moves considered at the root (empty: all legal moves).
pub fn think(
    pos: &Position,
    limits: &Limits,
    root_moves: &[Move],
    ctx: SearchContext<'_>,
    mut on_info: impl FnMut(&Info),
) -> SearchResult {
    let start = Instant::now();
    let tm = TimeManager::new(limits, pos.side_to_move(), ctx.move_overhead, start, ctx.search);
    let legal = pos.legal_moves();
    let moves: Vec<Move> = if root_moves.is_empty() {
        legal.to_vec()
    } else {
        legal.iter().copied().filter(|m| root_moves.contains(m)).collect()
    };
    ctx.tt.new_search();
    ctx.history.new_search();
    let mut result = SearchResult {
        best_move: moves.first().copied(),
        ponder: None,
        score: to_uci(if moves.is_empty() { score::mated_in(0) } else { 0 }),
        value: if moves.is_empty() { score::mated_in(0) } else { 0 },
        depth: 0,
        seldepth: 0,
        nodes: 0,
        time: Duration::ZERO,
        pv: moves.first().copied().into_iter().collect(),
        tablebase: None,
        book: None,
    };
    if moves.is_empty() {
        wait_if_infinite(limits, ctx.stop);
        return result;
    }
    // A root in the endgame tables plays their move: the shortest win to conversion, a
    // drawing move, or the longest resistance.
    if let Some(tb) = ctx.tb
        && let Ok(Some(best)) = tb.best_move(pos)
        && moves.contains(&best.mv)
    {
        let value = match best.value.wdl {
            crate::tablebase::Wdl::Win => score::TB_WIN,
            crate::tablebase::Wdl::Draw => score::DRAW,
            crate::tablebase::Wdl::Loss => -score::TB_WIN,
        };
        result = SearchResult {
            best_move: Some(best.mv),
            score: to_uci(value),
            value,
            depth: 1,
            pv: vec![best.mv],
            time: start.elapsed(),
            tablebase: Some(best.value),
            ..result
        };
        wait_if_infinite(limits, ctx.stop);
        return result;
    }

    let mut s =
        Searcher::new(pos.clone(), ctx.params, (ctx.search, ctx.lmr), ctx.tt, ctx.history, ctx.stop, limits, tm, moves);
    s.tb = ctx.tb;
    if let crate::EvalKind::Nnue(net) = ctx.eval {
        s.nnue = Some(crate::nnue::AccumulatorStack::new(std::sync::Arc::clone(net), pos));
    }
    let max_depth = limits.depth.map_or(MAX_PLY as i32 - 8, |d| (d as i32).clamp(1, MAX_PLY as i32 - 8));
    let mut prev: i32 = 0;
    for depth in 1..=max_depth {
        s.seldepth = 0;
        let sp = ctx.search;
        let mut delta = sp.asp_delta;
        let (mut alpha, mut beta) = if depth >= sp.asp_min_depth && prev.abs() < DECISIVE {
            (prev - delta, prev + delta)
        } else {
            (-INFINITE, INFINITE)
        };
        let value = loop {
            let v = s.search(alpha, beta, depth, 0, true, true);
            if s.stopped {
                break v;
            }
            if v <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (v - delta).max(-INFINITE);
            } else if v >= beta {
                beta = (v + delta).min(INFINITE);
            } else {
                break v;
            }
            delta += delta * sp.asp_widen / 100;
            if delta > 600 {
                alpha = -INFINITE;
                beta = INFINITE;
            }
        };
        // An interrupted iteration is trusted only for its best move, and only if the
        // search got that far (its PV starts with a fully searched root move).
        if s.stopped && (depth > 1 || s.pv_len[0] == 0) {
            break;
        }
        prev = value;
        let pv = s.root_pv();
        let elapsed = start.elapsed();
        result = SearchResult {
            best_move: pv.first().copied().or(result.best_move),
            ponder: pv.get(1).copied(),
            score: to_uci(value),
            value,
            depth: depth as u32,
            seldepth: s.seldepth as u32,
            nodes: s.nodes,
            time: elapsed,
            pv: pv.clone(),
            tablebase: None,
            book: None,
        };
        on_info(&Info {
            depth: depth as u32,
            seldepth: s.seldepth as u32,
            score: result.score,
            value,
            nodes: s.nodes,
            nps: nps(s.nodes, elapsed),
            time: elapsed,
            hashfull: s.tt.hashfull(),
            pv,
        });
        if s.stopped {
            break;
        }
        if !limits.infinite {
            if s.tm.should_stop_iterating() {
                break;
            }
            // A proven mate needs no deeper look unless a depth was asked for.
            if let Score::Mate(n) = result.score
                && limits.depth.is_none()
                && depth > 2 * n.abs() + 4
            {
                break;
            }
        }
    }
    result.nodes = s.nodes;
    result.time = start.elapsed();
    wait_if_infinite(limits, ctx.stop);
    result
}

/// The quiescence score of `pos` (side to move's view): captures resolved, all evasions in
/// check. A position is "quiet" for tuning when this equals the static evaluation. Labelling
/// many positions, use one `Quiescence`: this allocates and clears its tables on every call.
pub fn quiescence(pos: &Position, params: &Params) -> i32 {
    Quiescence::new().score(pos, params)
}

/// Quiescence scores of many positions with one set of tables (the import and the workers
/// label every recorded position). Each score is the one a fresh table gives (`quiescence`):
/// the table is emptied after each position in the time its writes took, and the reduction
/// table is built once.
#[derive(Debug)]
pub struct Quiescence {
    tt: TranspositionTable,
    history: History,
    sp: SearchParams,
    lmr: LmrTable,
}

impl Default for Quiescence {
    fn default() -> Quiescence {
        Quiescence::new()
    }
}

impl Quiescence {
    pub fn new() -> Quiescence {
        let sp = SearchParams::default();
        let lmr = LmrTable::new(&sp);
        Quiescence { tt: TranspositionTable::logging_writes(1), history: History::default(), sp, lmr }
    }

    /// The quiescence score of `pos` from the side to move's view.
    pub fn score(&mut self, pos: &Position, params: &Params) -> i32 {
        let stop = AtomicBool::new(false);
        let limits = Limits::default();
        let tm = TimeManager::new(&limits, pos.side_to_move(), Duration::ZERO, Instant::now(), &self.sp);
        let value = {
            let mut s = Searcher::new(
                pos.clone(),
                params,
                (&self.sp, &self.lmr),
                &mut self.tt,
                &mut self.history,
                &stop,
                &limits,
                tm,
                Vec::new(),
            );
            s.qsearch(-INFINITE, INFINITE, 0)
        };
        self.tt.clear_written();
        value
    }
}

/// UCI: under `go infinite` the best move is sent only after `stop`.
fn wait_if_infinite(limits: &Limits, stop: &AtomicBool) {
    if limits.infinite {
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

pub fn nps(nodes: u64, elapsed: Duration) -> u64 {
    (nodes as f64 / elapsed.as_secs_f64().max(1e-6)) as u64
}
