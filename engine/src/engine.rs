//! The library API beneath the text protocols: the farm's workers play games in-process
//! through it, with no text parsing.
//!
//! ```
//! use engine::{Engine, Limits, Position};
//!
//! let mut engine = Engine::new();
//! engine.set_position(Position::startpos());
//! let result = engine.go(&Limits::nodes(20_000), |_info| {});
//! assert!(result.best_move.is_some());
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::book::Book;
use crate::eval::Params;
use crate::eval_kind::EvalKind;
use crate::nnue::Network;
use crate::param_set::ParamSet;
use crate::position::Position;
use crate::search::{
    self, History, Info, Limits, LmrTable, SearchContext, SearchParams, SearchResult, TranspositionTable,
};
use crate::tablebase::Tablebases;
use crate::types::Move;

/// Default transposition table size in MiB (the `Hash` option).
pub const DEFAULT_HASH_MIB: usize = 16;

/// A single-threaded engine: a position, parameters and the search state that persists
/// between moves of one game (hash table, history) until `new_game`.
#[derive(Debug)]
pub struct Engine {
    pos: Position,
    params: Params,
    search: SearchParams,
    lmr: LmrTable,
    tt: TranspositionTable,
    history: History,
    stop: Arc<AtomicBool>,
    hash_mib: usize,
    move_overhead: Duration,
    banmoves: Vec<Move>,
    tablebases: Option<Arc<Tablebases>>,
    /// The opening book (`BookFile`) and whether to play from it (`OwnBook`).
    book: Option<Arc<Book>>,
    own_book: bool,
    /// xorshift64 state for the book's weighted pick.
    random: u64,
    /// The evaluation the search calls (the `Eval` option).
    eval: EvalKind,
    /// The network loaded from `EvalFile`, used when `Eval` is `nnue`.
    network: Option<Arc<Network>>,
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new()
    }
}

impl Engine {
    /// Default parameters, default hash size, the start position.
    pub fn new() -> Engine {
        Engine::with_params(Params::default())
    }

    /// The given evaluation weights, default search parameters.
    pub fn with_params(params: Params) -> Engine {
        Engine::with_param_set(ParamSet::new(params, SearchParams::default()))
    }

    /// The given evaluation weights and search parameters.
    pub fn with_param_set(set: ParamSet) -> Engine {
        Engine {
            pos: Position::startpos(),
            params: set.eval,
            lmr: LmrTable::new(&set.search),
            search: set.search,
            tt: TranspositionTable::new(DEFAULT_HASH_MIB),
            history: History::default(),
            stop: Arc::new(AtomicBool::new(false)),
            hash_mib: DEFAULT_HASH_MIB,
            move_overhead: search::DEFAULT_MOVE_OVERHEAD,
            banmoves: Vec::new(),
            tablebases: None,
            book: None,
            own_book: false,
            random: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0x9e37_79b9_7f4a_7c15, |d| d.as_nanos() as u64)
                | 1,
            eval: EvalKind::Hce,
            network: None,
        }
    }

    /// The position to search next (its move history is used for repetitions).
    pub fn set_position(&mut self, pos: Position) {
        self.pos = pos;
        self.banmoves.clear();
    }

    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// New evaluation parameters; the hash table is cleared since it stores evaluations.
    pub fn set_params(&mut self, params: Params) {
        self.params = params;
        self.tt.clear();
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Mutable parameters (for `setoption`); clears the hash table.
    pub fn params_mut(&mut self) -> &mut Params {
        self.tt.clear();
        &mut self.params
    }

    pub fn search_params(&self) -> &SearchParams {
        &self.search
    }

    /// New search parameters (the hash table stays: it holds no search constants).
    pub fn set_search_params(&mut self, search: SearchParams) {
        self.lmr = LmrTable::new(&search);
        self.search = search;
    }

    /// Sets one search parameter by key or `search.<key>` name, checked against its range.
    pub fn set_search_param(&mut self, name: &str, value: i64) -> crate::Result<()> {
        let mut search = self.search.clone();
        search.set(name, value)?;
        self.set_search_params(search);
        Ok(())
    }

    /// Both kinds of parameters at once (a variant's parameter file).
    pub fn set_param_set(&mut self, set: ParamSet) {
        self.set_params(set.eval);
        self.set_search_params(set.search);
    }

    /// Resizes (and clears) the hash table.
    pub fn set_hash(&mut self, mib: usize) {
        self.hash_mib = mib.max(1);
        self.tt.resize(self.hash_mib);
    }

    pub fn hash_mib(&self) -> usize {
        self.hash_mib
    }

    pub fn clear_hash(&mut self) {
        self.tt.clear();
    }

    pub fn set_move_overhead(&mut self, overhead: Duration) {
        self.move_overhead = overhead;
    }

    pub fn move_overhead(&self) -> Duration {
        self.move_overhead
    }

    /// Endgame tables for the search (`None`: none, and the search is exactly as without).
    pub fn set_tablebases(&mut self, tablebases: Option<Arc<Tablebases>>) {
        self.tablebases = tablebases;
        self.tt.clear();
    }

    /// The evaluation the search calls; the hash table is cleared since it stores
    /// evaluations. A network given here also becomes [`Engine::network`].
    pub fn set_eval(&mut self, eval: EvalKind) {
        if let EvalKind::Nnue(net) = &eval {
            self.network = Some(Arc::clone(net));
        }
        self.eval = eval;
        self.tt.clear();
    }

    pub fn eval_kind(&self) -> &EvalKind {
        &self.eval
    }

    /// The loaded network (`EvalFile`). While the network evaluates, the new one takes its
    /// place (`None`: back to the hand-crafted evaluation); otherwise it waits for `Eval nnue`.
    pub fn set_network(&mut self, network: Option<Arc<Network>>) {
        self.network = network;
        if let EvalKind::Nnue(_) = self.eval {
            self.set_eval(self.network.clone().map_or(EvalKind::Hce, EvalKind::Nnue));
        }
    }

    pub fn network(&self) -> Option<&Arc<Network>> {
        self.network.as_ref()
    }

    /// The static evaluation of the current position by the chosen evaluation, in
    /// centipawns from the side to move's view.
    pub fn static_eval(&self) -> i32 {
        self.eval.evaluate(&self.pos, &self.params)
    }

    pub fn tablebases(&self) -> Option<&Arc<Tablebases>> {
        self.tablebases.as_ref()
    }

    /// The opening book (`None`: none) and whether `go` plays from it.
    pub fn set_book(&mut self, book: Option<Arc<Book>>, own_book: bool) {
        self.book = book;
        self.own_book = own_book;
    }

    pub fn book(&self) -> Option<&Arc<Book>> {
        self.book.as_ref()
    }

    pub fn own_book(&self) -> bool {
        self.own_book
    }

    fn next_random(&mut self) -> f64 {
        let mut x = self.random;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.random = x;
        (x >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Moves the next search must not play (UCCI's `banmoves`); reset by `set_position`.
    pub fn set_banmoves(&mut self, moves: Vec<Move>) {
        self.banmoves = moves;
    }

    /// Forgets everything learnt in the previous game: after this, a search with a node
    /// limit gives the same result as in a fresh engine.
    pub fn new_game(&mut self) {
        self.tt.clear();
        self.history.clear();
        self.stop.store(false, Ordering::Relaxed);
    }

    /// A handle that stops a running `go` from another thread.
    pub fn stop_handle(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Searches the current position. A stop requested before or during the search ends
    /// it; the stop flag is cleared when `go` returns.
    pub fn go(&mut self, limits: &Limits, on_info: impl FnMut(&Info)) -> SearchResult {
        let random = if self.own_book { self.next_random() } else { 0.0 };
        if self.own_book
            && let Some(book) = self.book.clone()
            && let Some(pick) = book.pick(&self.pos, random)
            && !self.banmoves.contains(&pick.mv)
        {
            self.stop.store(false, Ordering::Relaxed);
            return SearchResult {
                best_move: Some(pick.mv),
                ponder: None,
                score: search::Score::Cp(0),
                value: 0,
                depth: 0,
                seldepth: 0,
                nodes: 0,
                time: Duration::ZERO,
                pv: vec![pick.mv],
                tablebase: None,
                book: Some(pick),
            };
        }
        let legal = self.pos.legal_moves();
        let root_moves: Vec<Move> = if self.banmoves.is_empty() {
            Vec::new()
        } else {
            let allowed: Vec<Move> = legal.iter().copied().filter(|m| !self.banmoves.contains(m)).collect();
            // Banning every move leaves nothing to do: ignore the ban rather than resign.
            if allowed.is_empty() { Vec::new() } else { allowed }
        };
        let ctx = SearchContext {
            params: &self.params,
            search: &self.search,
            lmr: &self.lmr,
            tt: &mut self.tt,
            history: &mut self.history,
            stop: &self.stop,
            move_overhead: self.move_overhead,
            tb: self.tablebases.as_deref(),
            eval: &self.eval,
        };
        let result = search::think(&self.pos, limits, &root_moves, ctx, on_info);
        self.stop.store(false, Ordering::Relaxed);
        result
    }
}
