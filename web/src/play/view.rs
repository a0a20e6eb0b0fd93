//! The JSON the play routes answer with: a session's `PlayState` (see the contract).

use std::collections::BTreeMap;

use engine::{Color, Square};

use super::game::{PlayedMove, verdict_text};
use super::limit::LimitSpec;
use super::sessions::{Seat, Session};

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PieceOn {
    pub square: String,
    pub piece: String,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Verdict {
    pub result: &'static str,
    pub reason: &'static str,
    pub text: String,
}

/// A seat as shown: `{"human": true}` or `{"engine", "name", "limit"}`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(untagged)]
pub enum SideState {
    Human { human: bool },
    Engine { engine: String, name: String, limit: LimitSpec, thinking: bool },
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PlayState {
    pub id: String,
    pub start_fen: String,
    pub fen: String,
    pub side_to_move: &'static str,
    pub pieces: Vec<PieceOn>,
    pub moves: Vec<PlayedMove>,
    pub redo: Vec<String>,
    pub legal: BTreeMap<String, Vec<String>>,
    pub check: Option<String>,
    pub last_move: Option<String>,
    pub result: Option<Verdict>,
    pub red: SideState,
    pub black: SideState,
    pub engine_to_move: bool,
    /// The book's moves here (`serve --book`), most played first; empty without a book.
    pub book: Vec<BookRow>,
}

/// A book move as the page lists it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BookRow {
    pub uci: String,
    pub wxf: String,
    pub chinese: String,
    pub games: u32,
    /// The mover's score in those games, 0..1.
    pub score: f64,
}

/// The book's moves in `pos`, as the page lists them.
pub fn book_rows(book: &engine::book::Book, pos: &engine::Position) -> Vec<BookRow> {
    use engine::notation::{Notation, write_move};
    book.moves(pos)
        .into_iter()
        .map(|m| BookRow {
            uci: m.mv.to_string(),
            wxf: write_move(pos, m.mv, Notation::Wxf),
            chinese: write_move(pos, m.mv, Notation::Chinese),
            games: m.games,
            score: m.score(),
        })
        .collect()
}

pub fn color_name(color: Color) -> &'static str {
    match color {
        Color::Red => "red",
        Color::Black => "black",
    }
}

fn side_state(seat: &Seat) -> SideState {
    match seat {
        Seat::Human => SideState::Human { human: true },
        Seat::Engine { id, name, limit, player } => SideState::Engine {
            engine: id.clone(),
            name: name.clone(),
            limit: limit.spec(),
            thinking: player.is_none(),
        },
    }
}

/// The state of `session` as the page draws it.
pub fn play_state(session: &Session, book: Option<&engine::book::Book>) -> PlayState {
    let game = &session.game;
    let pos = game.position();
    let outcome = game.outcome();
    let pieces = Square::all()
        .filter_map(|sq| pos.piece_at(sq).map(|p| PieceOn { square: sq.to_string(), piece: p.char().to_string() }))
        .collect();
    let result = outcome.is_over().then(|| Verdict {
        result: outcome.result.as_str(),
        reason: outcome.reason.as_str(),
        text: verdict_text(outcome),
    });
    PlayState {
        id: session.id.clone(),
        start_fen: game.start().fen(),
        fen: pos.fen(),
        side_to_move: color_name(pos.side_to_move()),
        pieces,
        moves: game.played().to_vec(),
        redo: game.redo_moves().map(|m| m.to_string()).collect(),
        legal: game.legal_by_square(),
        check: game.check_square(),
        last_move: game.moves().last().map(ToString::to_string),
        result,
        red: side_state(session.seat(Color::Red)),
        black: side_state(session.seat(Color::Black)),
        engine_to_move: !outcome.is_over() && session.seat(pos.side_to_move()).is_engine(),
        book: match book {
            Some(book) if !outcome.is_over() => book_rows(book, pos),
            _ => Vec::new(),
        },
    }
}
