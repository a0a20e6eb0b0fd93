//! The xqfarm Xiangqi engine: rules (bitboard board, Zobrist hashing, legal move
//! generation, game end and Asian-rules repetition judgement), notation, evaluation (hand-crafted,
//! or a network: `nnue`), search, and the UCI/UCCI sessions of the `xqengine` binary.
//!
//! ```
//! use engine::{perft::perft, Position};
//!
//! let mut pos = Position::startpos();
//! assert_eq!(pos.legal_moves().len(), 44);
//! assert_eq!(perft(&mut pos, 3), 79_666);
//! let m = engine::notation::parse_move(&pos, "h2e2").unwrap();
//! pos.try_play(m).unwrap();
//! assert_eq!(pos.fen(), "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1");
//! ```

pub mod bench;
pub mod book;
pub mod ecco;
pub mod engine;
pub mod error;
pub mod eval;
pub mod eval_kind;
pub mod movegen;
pub mod nnue;
pub mod notation;
pub mod param_set;
pub mod perft;
pub mod pgn;
pub mod position;
pub mod rules;
pub mod search;
pub mod tablebase;
pub mod types;
pub mod ucci;
pub mod uci;

/// The version of the game rules this crate implements: move legality, how a game ends,
/// the repetition verdicts and the move limit. Bump it with any change that could judge one
/// game differently; the farm refuses a worker whose rules version is not the coordinator's.
pub const RULES_VERSION: u32 = 1;

pub use engine::Engine;
pub use error::{Error, IllegalMoveReason, MoveFault, NnueError, Result};
pub use eval_kind::{EvalKind, EvalSpec};
pub use param_set::ParamSet;
pub use position::{OpeningLine, Position, START_FEN};
pub use search::{Limits, SearchResult};
pub use types::{Bitboard, Color, Move, Piece, PieceKind, Square};
