//! PGN, both ways, in one place beside [`crate::notation`] (the web's downloads and play page,
//! `xqfarm export pgn`, and imports read and write it here).
//!
//! Written xqbase style, as DhtmlXQ and XQStudio read it: tags `Game`, `Event`, `Round`, `Red`,
//! `Black`, `Result`, `FEN`, `Format` (Chinese, WXF or ICCS), `Termination` and the ECCO
//! opening; the players' ids in `RedId`/`BlackId`; an opening suite's moves marked `{book}`.
//!
//! Read one game ([`read_text`]) or every game of an archive ([`read_games`]) into tag pairs
//! and move words ([`PgnText`]), in any notation the engine reads (the words are replayed
//! guessing the notation per move, so mixed sources read too), including traditional
//! characters (車 馬 砲 俥 傌 帥 將 進 後), full-width letters, digits and signs (`Ｃ２＝５`) and
//! `=` for sideways. The reader skips comments (`{..}`, `;..`), variations (`(..)`), NAGs
//! (`$1`), annotation marks (`!?`) and move numbers (`1.`, `1...`, `１．`). [`replay`] plays a
//! game's words as they were played, refusing only an illegal move, and notes where our rules
//! would have ended it.

mod read;
mod replay;

use std::fmt::Write as _;

pub use read::{PgnText, find_tag, read_games, read_text};
pub use replay::{Replay, RulesEnd, replay, start_position};

use crate::ecco;
use crate::notation::{Notation, parse_uci, write_move};
use crate::position::Position;
use crate::types::{Color, Move};

/// What a PGN of one farm game says about it.
#[derive(Clone, Debug)]
pub struct PgnGame<'a> {
    pub event: String,
    pub round: String,
    pub red_name: &'a str,
    pub red_id: &'a str,
    pub black_name: &'a str,
    pub black_id: &'a str,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'a str,
    pub termination: &'a str,
    /// Where the game began: the opening line's start.
    pub start_fen: &'a str,
    /// The opening suite's moves (UCI), which the players did not choose: written with a
    /// `{book}` comment each, as cutechess and fastchess mark theirs.
    pub book_moves: &'a [String],
    /// The players' moves after the book's, in UCI coordinates as the farm stores them.
    pub moves: &'a [String],
}

/// The tag value with PGN's escapes.
fn tag(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The notation's name in the `[Format]` tag.
pub fn format_name(notation: Notation) -> &'static str {
    match notation {
        Notation::Wxf => "WXF",
        Notation::Chinese => "Chinese",
        Notation::Iccs => "ICCS",
        Notation::Uci => "UCI",
    }
}

/// Appends the game to `out`, one full move a line; tags with nothing to say (no round, no ids,
/// no termination yet) are left out. A start FEN or a move that does not replay is an error
/// naming it (the farm's games were refereed, so this means a damaged store).
pub fn write_game(out: &mut String, g: &PgnGame<'_>, notation: Notation) -> Result<(), String> {
    let mut pos = Position::from_fen(g.start_fen).map_err(|e| format!("start FEN `{}`: {e}", g.start_fen))?;
    let opening = ecco_of(&pos, g.book_moves.iter().chain(g.moves));
    let mut tags = String::new();
    let mut put = |name: &str, value: &str| {
        if !value.is_empty() {
            let _ = writeln!(tags, "[{name} \"{}\"]", tag(value));
        }
    };
    put("Game", "Chinese Chess");
    put("Event", &g.event);
    put("Round", &g.round);
    put("Red", g.red_name);
    put("RedId", g.red_id);
    put("Black", g.black_name);
    put("BlackId", g.black_id);
    put("Result", g.result);
    put("FEN", g.start_fen);
    put("Format", format_name(notation));
    put("Termination", g.termination);
    if let Some(o) = opening {
        put("ECCO", o.code);
        put("Opening", o.name);
        put("Variation", o.variation);
    }
    out.push_str(&tags);
    out.push('\n');
    let mut line = String::new();
    let book = g.book_moves.len();
    for (i, m) in g.book_moves.iter().chain(g.moves).enumerate() {
        let mv = parse_uci(m).map_err(|e| format!("move {} `{m}`: {e}", i + 1))?;
        if !pos.is_legal_move(mv) {
            return Err(format!("move {} `{m}` is illegal in {}", i + 1, pos.fen()));
        }
        if pos.side_to_move() == Color::Red {
            let _ = write!(line, "{}. ", pos.fullmove());
        } else if i == 0 {
            let _ = write!(line, "{}. ... ", pos.fullmove());
        }
        line.push_str(&write_move(&pos, mv, notation));
        if i < book {
            line.push_str(" {book}");
        }
        pos.play_unchecked(mv);
        if pos.side_to_move() == Color::Red {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        } else {
            line.push(' ');
        }
    }
    let _ = writeln!(out, "{line}{}\n", g.result);
    Ok(())
}

/// The ECCO opening of a game from `start` (`None` unless it is the initial position), by its
/// first moves as far as they read and replay.
pub fn ecco_of<'a>(start: &Position, moves: impl Iterator<Item = &'a String>) -> Option<ecco::Opening> {
    let moves: Vec<Move> = moves.take(ecco::PLIES).map_while(|m| parse_uci(m).ok()).collect();
    ecco::classify(start, &moves)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_ids_have_tags_of_their_own_and_moves_are_numbered() {
        let moves = vec!["h2e2".to_string(), "h9g7".to_string(), "h0g2".to_string()];
        let g = PgnGame {
            event: "xqfarm run 3".into(),
            round: "1.2".into(),
            red_name: "tuned \"v2\"",
            red_id: "aaaa",
            black_name: "base",
            black_id: "bbbb",
            result: "1-0",
            termination: "checkmate",
            start_fen: crate::START_FEN,
            book_moves: &[],
            moves: &moves,
        };
        let mut out = String::new();
        write_game(&mut out, &g, Notation::Chinese).expect("writes");
        assert!(out.contains("[Red \"tuned \\\"v2\\\"\"]\n[RedId \"aaaa\"]"), "{out}");
        assert!(out.contains("[Format \"Chinese\"]"), "{out}");
        assert!(out.contains("\n\n1. 炮二平五 马８进７\n2. 马二进三 1-0\n"), "{out}");
        let mut wxf = String::new();
        write_game(&mut wxf, &g, Notation::Wxf).expect("writes");
        assert!(wxf.contains("1. C2.5 H8+7\n2. H2+3 1-0"), "{wxf}");
    }

    /// A game from the start with no names, ids, event or termination.
    fn unnamed<'a>(book_moves: &'a [String], moves: &'a [String], result: &'a str) -> PgnGame<'a> {
        PgnGame {
            event: String::new(),
            round: String::new(),
            red_name: "",
            red_id: "",
            black_name: "",
            black_id: "",
            result,
            termination: "",
            start_fen: crate::START_FEN,
            book_moves,
            moves,
        }
    }

    #[test]
    fn the_opening_suites_moves_come_first_marked_as_book() {
        let book = vec!["h2e2".to_string(), "h9g7".to_string()];
        let moves = vec!["h0g2".to_string()];
        let g = unnamed(&book, &moves, "1-0");
        let mut out = String::new();
        write_game(&mut out, &g, Notation::Wxf).expect("writes");
        assert!(out.contains("\n1. C2.5 {book} H8+7 {book}\n2. H2+3 1-0\n"), "{out}");
        // The opening, classified over the book's moves and the players' alike.
        let expected = ecco::classify_wxf(&["C2.5", "H8+7", "H2+3"]);
        assert!(out.contains(&format!("[ECCO \"{}\"]\n[Opening \"{}\"]", expected.code, expected.name)), "{out}");
        // A book move that does not replay is named by its ply in the whole game.
        let bad = vec!["h2e2".to_string(), "h2e2".to_string()];
        let err =
            write_game(&mut String::new(), &PgnGame { book_moves: &bad, ..g }, Notation::Wxf).expect_err("illegal");
        assert!(err.contains("move 2 `h2e2`"), "{err}");
    }

    #[test]
    fn a_move_that_does_not_replay_is_named() {
        let moves = vec!["h2e2".to_string(), "a0a5".to_string()];
        let g = unnamed(&[], &moves, "*");
        let err = write_game(&mut String::new(), &g, Notation::Wxf).expect_err("illegal");
        assert!(err.contains("move 2 `a0a5`"), "{err}");
    }
}
