//! What a search is asked to do, what it reports while running, and what it returns.

use std::time::Duration;

use crate::types::Move;

/// Search limits as `go` gives them. Several may be set; the first one reached stops.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<Duration>,
    /// Remaining clock time of [Red, Black].
    pub time: [Option<Duration>; 2],
    /// Increment per move of [Red, Black].
    pub inc: [Duration; 2],
    pub movestogo: Option<u32>,
    /// Search until `stop` (or a mate is proven and `depth` is reached).
    pub infinite: bool,
}

impl Limits {
    pub fn depth(depth: u32) -> Limits {
        Limits { depth: Some(depth), ..Limits::default() }
    }

    pub fn nodes(nodes: u64) -> Limits {
        Limits { nodes: Some(nodes), ..Limits::default() }
    }

    pub fn movetime(ms: u64) -> Limits {
        Limits { movetime: Some(Duration::from_millis(ms)), ..Limits::default() }
    }

    /// Whether any clock-based limit is set.
    pub fn uses_time(&self) -> bool {
        self.movetime.is_some() || self.time.iter().any(Option::is_some)
    }
}

/// A search score: centipawns, or a mate distance in plies (positive: side to move mates).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    /// Mate in this many moves (UCI's `score mate N`: full moves, negative when mated).
    Mate(i32),
}

/// One line of progress (`info depth ... pv ...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info {
    pub depth: u32,
    pub seldepth: u32,
    pub score: Score,
    /// The raw internal score (side to move's view).
    pub value: i32,
    pub nodes: u64,
    pub nps: u64,
    pub time: Duration,
    /// Transposition-table fill in permille.
    pub hashfull: u32,
    pub pv: Vec<Move>,
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// `None` only when the side to move has no legal move.
    pub best_move: Option<Move>,
    pub ponder: Option<Move>,
    pub score: Score,
    pub value: i32,
    pub depth: u32,
    pub seldepth: u32,
    pub nodes: u64,
    pub time: Duration,
    pub pv: Vec<Move>,
    /// The endgame tables' verdict when the move came from them (the root was in a table).
    pub tablebase: Option<crate::tablebase::Value>,
    /// The opening book's entry when the move came from the book (`OwnBook`).
    pub book: Option<crate::book::BookMove>,
}
