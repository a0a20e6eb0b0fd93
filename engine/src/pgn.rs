//! PGN, both ways, in one place beside [`crate::notation`] (the web's downloads and play page,
//! `xqfarm export pgn`, and imports read and write it here).
//!
//! Written xqbase style, as DhtmlXQ and XQStudio read it: tags `Game`, `Event`, `Round`, `Red`,
//! `Black`, `Result`, `FEN`, `Format` (Chinese, WXF or ICCS), `Termination` and the ECCO
//! opening; the players' ids in `RedId`/`BlackId`; an opening suite's moves marked `{book}`.
//!
//! Read into its tag pairs and move words ([`PgnText`]), in any notation the engine reads (the
//! caller replays the words, guessing the notation per move, so mixed sources read too),
//! including traditional characters (車 馬 砲 俥 傌 帥 將 進 後) and full-width digits. The
//! reader skips comments (`{..}`, `;..`), variations (`(..)`), NAGs (`$1`), annotation marks
//! (`!?`) and move numbers (`1.`, `1...`, `１．`).

use std::fmt::Write as _;

use crate::ecco;
use crate::error::Error;
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

/// A PGN game's text as read: its tag pairs and its move words, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnText {
    pub tags: Vec<(String, String)>,
    /// The movetext's moves, without numbers, comments, variations, NAGs and the result.
    pub moves: Vec<String>,
}

impl PgnText {
    /// The first tag of that name (case-insensitive).
    pub fn tag(&self, key: &str) -> Option<&str> {
        find_tag(&self.tags, key)
    }
}

/// The value of the first tag named `key` (case-insensitive) among `tags`.
pub fn find_tag<'a>(tags: &'a [(String, String)], key: &str) -> Option<&'a str> {
    tags.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.as_str())
}

/// Reads the first game of a PGN text into its tags and move words; a malformed tag pair is an
/// error naming its line.
pub fn read_text(text: &str) -> Result<PgnText, Error> {
    let (tags, movetext) = split_tags(text)?;
    Ok(PgnText { tags, moves: move_tokens(&movetext) })
}

/// The tag pairs at the head of the text and the movetext after them.
fn split_tags(text: &str) -> Result<(Vec<(String, String)>, String), Error> {
    let text = text.trim_start_matches('\u{feff}');
    let mut tags = Vec::new();
    let mut movetext = String::new();
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if movetext.trim().is_empty() && trimmed.starts_with('[') {
            tags.push(parse_tag(trimmed).ok_or_else(|| {
                Error::Pgn(format!("line {}: `{trimmed}` is not a tag pair like [Red \"name\"]", n + 1))
            })?);
        } else {
            movetext.push_str(line);
            movetext.push('\n');
        }
    }
    Ok((tags, movetext))
}

fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?.trim();
    let (key, rest) = inner.split_once(char::is_whitespace)?;
    let value = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    Some((key.to_owned(), value.replace("\\\"", "\"").replace("\\\\", "\\")))
}

/// The moves of a movetext, without comments, variations, numbers and results.
fn move_tokens(movetext: &str) -> Vec<String> {
    let mut plain = String::with_capacity(movetext.len());
    let (mut brace, mut paren, mut line_comment) = (false, 0usize, false);
    for c in movetext.chars() {
        match c {
            '\n' if line_comment => {
                line_comment = false;
                plain.push(' ');
            }
            _ if line_comment => {}
            '}' if brace => brace = false,
            _ if brace => {}
            '{' => brace = true,
            '(' | '（' => paren += 1,
            ')' | '）' if paren > 0 => paren -= 1,
            _ if paren > 0 => {}
            ';' => line_comment = true,
            _ => plain.push(c),
        }
    }
    plain.split_whitespace().filter_map(move_token).collect()
}

/// One whitespace-separated word as a move, or `None` for a number, a result or a NAG.
fn move_token(word: &str) -> Option<String> {
    if matches!(word, "1-0" | "0-1" | "1/2-1/2" | "½-½" | "*") || word.starts_with('$') {
        return None;
    }
    let word = strip_move_number(word).trim_end_matches(['!', '?']);
    (!word.is_empty()).then(|| word.to_owned())
}

fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || ('０'..='９').contains(&c)
}

fn is_number_dot(c: char) -> bool {
    matches!(c, '.' | '．' | '、' | '…')
}

/// `12.`, `12...`, `１．` and `3.C2.5` lose their number; `3.4` (a WXF pawn move without its
/// letter) and `5+1` do not.
fn strip_move_number(word: &str) -> &str {
    let digits_end = word.char_indices().find(|&(_, c)| !is_digit(c)).map_or(word.len(), |(i, _)| i);
    if digits_end == 0 {
        return word.trim_start_matches(is_number_dot);
    }
    let rest = &word[digits_end..];
    if !rest.starts_with(is_number_dot) {
        return word;
    }
    let after = rest.trim_start_matches(is_number_dot);
    if after.starts_with(is_digit) { word } else { after }
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

    #[test]
    fn numbers_are_not_mistaken_for_pawn_moves() {
        assert_eq!(strip_move_number("12."), "");
        assert_eq!(strip_move_number("12..."), "");
        assert_eq!(strip_move_number("3.C2.5"), "C2.5");
        assert_eq!(strip_move_number("3.4"), "3.4");
        assert_eq!(strip_move_number("5+1"), "5+1");
        assert_eq!(strip_move_number("１．炮二平五"), "炮二平五");
        assert_eq!(strip_move_number("..."), "");
    }

    #[test]
    fn tags_and_move_words_without_comments_variations_and_numbers() {
        let text = "\u{feff}[Game \"Chinese Chess\"]\n[Red \"a \\\"b\\\"\"]\n\n\
                    １． 砲二平五 {中炮} 馬８進７ ; 屏風馬\n\
                    ２．傌二進三 (２．傌八進七) 車９平８!? $1\n3.C2.5 1-0\n";
        let read = read_text(text).expect("reads");
        assert_eq!(read.tag("red"), Some("a \"b\""));
        assert_eq!(read.tag("Black"), None);
        assert_eq!(read.moves, ["砲二平五", "馬８進７", "傌二進三", "車９平８", "C2.5"]);
        let err = read_text("[Red \"x\"\n1. C2.5").expect_err("an unclosed tag").to_string();
        assert!(err.contains("line 1") && err.contains("[Red \"x\""), "{err}");
    }
}
