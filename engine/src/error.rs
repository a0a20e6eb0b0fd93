//! The engine crate's error type.

use crate::position::FenError;
use crate::types::{Color, Piece, Square};

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a move cannot be played in a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMoveReason {
    #[error("the null move is not a move")]
    Null,
    #[error("there is no piece on {0}")]
    NoPiece(Square),
    #[error("the piece on {square} is {owner}'s, but {to_move} is to move")]
    NotYourPiece { square: Square, owner: Color, to_move: Color },
    #[error("a {piece} cannot move from {from} to {to}")]
    CannotReach { piece: Piece, from: Square, to: Square },
    #[error("it would leave the kings facing each other on an open file")]
    KingsFacing,
    #[error("it would leave the {0} king in check")]
    KingInCheck(Color),
}

/// Every error the engine library reports. Each message names the bad input.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("invalid FEN `{fen}`: {reason}")]
    Fen { fen: String, reason: FenError },
    #[error("illegal move {mv} in {fen}: {reason}")]
    IllegalMove { mv: String, fen: String, reason: IllegalMoveReason },
    #[error("cannot read move `{text}`: {reason}")]
    ParseMove { text: String, reason: String },
    /// An opening line whose setup is unreadable or leaves no move.
    #[error("opening `{text}`: {reason}")]
    Opening { text: String, reason: String },
    /// An opening line with a move that cannot be read or played (`index` counts from 0).
    #[error("opening `{text}`: move {index} `{mv}`: {reason}")]
    OpeningMove { text: String, index: usize, mv: String, reason: String },
    #[error("evaluation parameter `{key}`: {reason}")]
    Params { key: String, reason: String },
    #[error("search parameter `{key}`: {reason}")]
    SearchParam { key: String, reason: String },
    /// An opening book file or game (`what` names it).
    #[error("opening book {what}: {reason}")]
    Book { what: String, reason: String },
    /// A tablebase file, directory or set (`what` names it).
    #[error("tablebase {what}: {reason}")]
    Tablebase { what: String, reason: String },
    /// A PGN text that does not read; the message names the line.
    #[error("PGN {0}")]
    Pgn(String),
}
