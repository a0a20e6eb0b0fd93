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

/// Why a PGN game's move was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveFault {
    /// No notation the engine reads spells it (or it names no piece that can move so).
    Unreadable,
    /// It reads, but the move is illegal in the position.
    Illegal,
}

impl MoveFault {
    /// The words a summary counts refused games by.
    pub const fn as_str(self) -> &'static str {
        match self {
            MoveFault::Unreadable => "unknown notation",
            MoveFault::Illegal => "illegal move",
        }
    }
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
    /// A PGN game's `[FEN]` tag that does not read.
    #[error("the FEN tag `{fen}`: {reason}")]
    PgnFen { fen: String, reason: String },
    /// A PGN game's move that does not read or is illegal where it stands: `ply` counts the
    /// game's moves from 1, `number` is the move number a PGN writes (`3.` for Red, `3...` for
    /// Black).
    #[error("move {number}{} `{text}` ({color}): {reason}", if *color == Color::Red { "." } else { "..." })]
    PgnMove { ply: usize, number: u32, color: Color, text: String, fault: MoveFault, reason: String },
    /// A network file (`path`) that cannot be read or is refused.
    #[error("network file {path}: {reason}")]
    Network { path: String, reason: NnueError },
}

/// Why a network file's bytes are refused (see `nnue::network` for the format). Each names
/// the field and its byte offset.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NnueError {
    #[error("truncated: the {what} need bytes {start}..{end}, but the file has {len}")]
    Truncated { what: &'static str, start: usize, end: usize, len: usize },
    #[error("{extra} bytes after the checksum (from byte {offset}): not this format")]
    TrailingBytes { offset: usize, extra: usize },
    #[error("magic {found:?} at byte 0 is not `XQNN`: not a network file")]
    Magic { found: [u8; 4] },
    #[error("format version {found} (byte 4); this engine reads version {expected}")]
    Version { found: u32, expected: u32 },
    #[error("architecture {found} (byte 8); this engine runs architecture {expected}")]
    Architecture { found: u32, expected: u32 },
    #[error("{field} is {found} (byte {offset}); this architecture needs {expected}")]
    Header { field: &'static str, offset: usize, found: u32, expected: u32 },
    #[error("hidden size {found} (byte 16) is not a multiple of 16 in 16..=1024")]
    Hidden { found: u64 },
    #[error(
        "checksum {stored:#018x} at byte {offset} does not match the content's {computed:#018x}: the file is corrupt"
    )]
    Checksum { offset: usize, stored: u64, computed: u64 },
    #[error("output weight {index} (byte {offset}) is {value}, outside -127..=127")]
    OutputWeight { index: usize, offset: usize, value: i16 },
    #[error("the {what} have {found} values; a hidden size of {hidden} needs {expected}")]
    Shape { what: &'static str, found: usize, expected: usize, hidden: usize },
    #[error("cannot read: {0}")]
    Io(String),
}
