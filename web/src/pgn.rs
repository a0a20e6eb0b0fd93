//! A farm game as PGN (xqbase style, as DhtmlXQ and XQStudio read it): the one writer behind
//! the web's downloads and `xqfarm export pgn`. Variants appear by name in `[Red]`/`[Black]`,
//! their content ids in `[RedId]`/`[BlackId]`.

use std::fmt::Write as _;

use engine::Position;
use engine::notation::{Notation, parse_uci, write_move};

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
    pub start_fen: &'a str,
    /// UCI coordinates, as the farm stores them.
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
    out.push_str(&tags);
    out.push('\n');
    let mut line = String::new();
    for (i, m) in g.moves.iter().enumerate() {
        let mv = parse_uci(m).map_err(|e| format!("move {} `{m}`: {e}", i + 1))?;
        if !pos.is_legal_move(mv) {
            return Err(format!("move {} `{m}` is illegal in {}", i + 1, pos.fen()));
        }
        if pos.side_to_move() == engine::Color::Red {
            let _ = write!(line, "{}. ", pos.fullmove());
        } else if i == 0 {
            let _ = write!(line, "{}. ... ", pos.fullmove());
        }
        line.push_str(&write_move(&pos, mv, notation));
        pos.play_unchecked(mv);
        if pos.side_to_move() == engine::Color::Red {
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
            start_fen: engine::START_FEN,
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

    #[test]
    fn a_move_that_does_not_replay_is_named() {
        let moves = vec!["h2e2".to_string(), "a0a5".to_string()];
        let g = PgnGame {
            event: String::new(),
            round: String::new(),
            red_name: "",
            red_id: "",
            black_name: "",
            black_id: "",
            result: "*",
            termination: "",
            start_fen: engine::START_FEN,
            moves: &moves,
        };
        let err = write_game(&mut String::new(), &g, Notation::Wxf).expect_err("illegal");
        assert!(err.contains("move 2 `a0a5`"), "{err}");
    }
}
