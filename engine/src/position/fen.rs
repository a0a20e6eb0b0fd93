//! FEN text -> `Setup` (placement and counters, unchecked) -> validated `Position`, and back.

use std::fmt::Write as _;

use super::Position;
use crate::types::{Color, Piece, PieceKind, Square};

/// Why a FEN was refused. Each variant names the offending part.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    #[error("empty FEN")]
    Empty,
    #[error("{0} ranks instead of 10")]
    RankCount(usize),
    #[error("rank {rank} has {files} files instead of 9")]
    FileCount { rank: i32, files: usize },
    #[error("unknown piece letter {0}")]
    UnknownPiece(char),
    #[error("side to move must be w, r or b, not `{0}`")]
    SideToMove(String),
    #[error("{field} must be a non-negative integer, not `{value}`")]
    Counter { field: &'static str, value: String },
    #[error("{0} has no king")]
    MissingKing(Color),
    #[error("{color} has {count} kings")]
    ExtraKing { color: Color, count: u32 },
    #[error("{color} has {count} {kind}s, more than the {max} a side can have")]
    TooMany { color: Color, kind: PieceKind, count: u32, max: u32 },
    #[error("a {piece} on {square}, a square {kind}s can never reach", kind = piece.kind)]
    ImpossibleSquare { piece: Piece, square: Square },
    #[error("the side not to move ({0}) is in check")]
    SideNotToMoveInCheck(Color),
    #[error("the kings face each other on an open file")]
    KingsFacing,
}

/// A placement with side to move and counters, as read from a FEN, not yet validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub board: [Option<Piece>; 90],
    pub side_to_move: Color,
    pub rule60: u32,
    pub fullmove: u32,
}

impl Setup {
    /// Reads the FEN fields. Fields 3-4 are ignored; missing trailing fields default
    /// (Red to move, counters 0 and 1).
    pub fn parse(fen: &str) -> Result<Setup, FenError> {
        let mut fields = fen.split_ascii_whitespace();
        let placement = fields.next().ok_or(FenError::Empty)?;
        let ranks: Vec<&str> = placement.split('/').collect();
        if ranks.len() != 10 {
            return Err(FenError::RankCount(ranks.len()));
        }
        let mut board = [None; 90];
        for (i, text) in ranks.iter().enumerate() {
            let rank = 9 - i as i32;
            let mut file = 0usize;
            for c in text.chars() {
                if let Some(d) = c.to_digit(10) {
                    if d == 0 {
                        return Err(FenError::UnknownPiece(c));
                    }
                    file += d as usize;
                } else {
                    let piece = Piece::from_char(c).ok_or(FenError::UnknownPiece(c))?;
                    if file < 9 {
                        let sq = Square::new(file as i32, rank).ok_or(FenError::FileCount { rank, files: file + 1 })?;
                        board[sq.index()] = Some(piece);
                    }
                    file += 1;
                }
            }
            if file != 9 {
                return Err(FenError::FileCount { rank, files: file });
            }
        }
        let side_to_move = match fields.next() {
            None | Some("w" | "r" | "W" | "R") => Color::Red,
            Some("b" | "B") => Color::Black,
            Some(other) => return Err(FenError::SideToMove(other.to_owned())),
        };
        let _castling = fields.next();
        let _en_passant = fields.next();
        let rule60 = parse_counter(fields.next(), "the no-capture ply counter", 0)?;
        let fullmove = parse_counter(fields.next(), "the move number", 1)?.max(1);
        Ok(Setup { board, side_to_move, rule60, fullmove })
    }

    /// Writes the FEN (`w` for Red, `- -` for the unused fields).
    pub fn fen(&self) -> String {
        let mut out = String::with_capacity(80);
        for rank in (0..10).rev() {
            let mut empty = 0;
            for file in 0..9 {
                let idx = (rank * 9 + file) as usize;
                match self.board[idx] {
                    Some(p) => {
                        if empty > 0 {
                            let _ = write!(out, "{empty}");
                            empty = 0;
                        }
                        out.push(p.char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                let _ = write!(out, "{empty}");
            }
            if rank > 0 {
                out.push('/');
            }
        }
        let _ = write!(out, " {} - - {} {}", self.side_to_move.fen_char(), self.rule60, self.fullmove);
        out
    }
}

/// The largest FEN move number accepted (2^30).
const MAX_FULLMOVE: u32 = 1 << 30;

fn parse_counter(field: Option<&str>, name: &'static str, default: u32) -> Result<u32, FenError> {
    match field {
        None | Some("-") => Ok(default),
        Some(s) => s.parse().map_err(|_| FenError::Counter { field: name, value: s.to_owned() }),
    }
}

impl Position {
    /// Parses and validates a FEN.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        Position::from_setup(&Setup::parse(fen)?)
    }

    /// The setup this position was made from (history dropped).
    pub fn to_setup(&self) -> Setup {
        Setup { board: self.board, side_to_move: self.side_to_move, rule60: self.rule60(), fullmove: self.fullmove() }
    }

    /// The FEN of the current position.
    pub fn fen(&self) -> String {
        self.to_setup().fen()
    }

    /// Validates a setup into a position (see `validate.rs` for the checks).
    pub fn from_setup(setup: &Setup) -> Result<Position, FenError> {
        // Twice the move number must fit the ply counter with room for play to go on
        // (a huge number read from a FEN would otherwise overflow it).
        if setup.fullmove > MAX_FULLMOVE {
            let value = setup.fullmove.to_string();
            return Err(FenError::Counter { field: "the move number (at most 2^30)", value });
        }
        super::validate::check_placement(setup)?;
        let mut pos = Position::empty(setup.side_to_move);
        for sq in Square::all() {
            if let Some(p) = setup.board[sq.index()] {
                pos.put(p, sq);
            }
        }
        pos.key = pos.compute_key();
        pos.rule60 = u16::try_from(setup.rule60).unwrap_or(u16::MAX);
        pos.game_ply = (setup.fullmove.saturating_sub(1)) * 2 + u32::from(setup.side_to_move == Color::Black);
        super::validate::check_position(&pos)?;
        Ok(pos)
    }
}
