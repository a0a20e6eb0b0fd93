//! A play session's game as PGN, both ways, over `engine::pgn`: written in Chinese, WXF or
//! ICCS, and read from any notation the engine reads (the guess is per move), replayed into a
//! session's game, naming an illegal move by its move number and text.

use engine::notation::Notation;
use engine::pgn::{PgnGame, read_text, replay, write_game};

use super::error::{PlayError, PlayResult};
use super::game::Game;

/// The players' names written into the `Red` and `Black` tags.
#[derive(Clone, Debug, Default)]
pub struct PgnNames {
    pub red: String,
    pub black: String,
}

/// The game as PGN in `notation`, with the result the rules give now (`*` while it goes on),
/// by the farm's one PGN writer (`engine::pgn`).
pub fn write(game: &Game, names: &PgnNames, notation: Notation) -> String {
    let outcome = game.outcome();
    let moves: Vec<String> = game.moves().iter().map(|m| m.to_string()).collect();
    let start = game.start().fen();
    let pgn = PgnGame {
        event: "xqfarm play".into(),
        round: String::new(),
        red_name: &names.red,
        red_id: "",
        black_name: &names.black,
        black_id: "",
        result: outcome.result.as_str(),
        termination: if outcome.is_over() { outcome.reason.as_str() } else { "" },
        start_fen: &start,
        book_moves: &[],
        moves: &moves,
    };
    let mut out = String::new();
    // A session's moves were played by the rules, so they always replay.
    if let Err(e) = write_game(&mut out, &pgn, notation) {
        tracing::warn!(error = %e, "a play session's game did not replay");
    }
    out
}

/// A PGN as read: its tags and its game.
#[derive(Clone, Debug)]
pub struct ReadPgn {
    pub tags: Vec<(String, String)>,
    pub game: Game,
}

impl ReadPgn {
    pub fn tag(&self, key: &str) -> Option<&str> {
        engine::pgn::find_tag(&self.tags, key)
    }
}

/// Reads the first game of a PGN text by the engine's one reader and replay
/// (`engine::pgn::replay`), as the importer does: full-width WXF (`Ｃ２＝５`) reads, and a game the
/// players went on with after our rules would have ended it loads as played.
pub fn read(text: &str) -> PlayResult<ReadPgn> {
    let invalid = |e: engine::Error| match e {
        engine::Error::Pgn(why) => PlayError::InvalidPgn(why),
        other => PlayError::InvalidPgn(other.to_string()),
    };
    let text = read_text(text).map_err(invalid)?;
    let played = replay(&text).map_err(invalid)?;
    let mut game = Game::new(&played.start);
    for m in played.moves {
        game.play_recorded(m)?;
    }
    Ok(ReadPgn { tags: text.tags, game })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // in tests a panic is the failure report
mod tests {
    use super::*;

    fn game(moves: &str) -> Game {
        let mut g = Game::startpos();
        for m in moves.split_whitespace() {
            g.play_text(m).unwrap();
        }
        g
    }

    #[test]
    fn written_in_each_notation_and_read_back() {
        let g = game("h2e2 h9g7 h0g2 i9h9 i0h0 b9c7");
        for notation in [Notation::Chinese, Notation::Wxf, Notation::Iccs] {
            let text = write(&g, &PgnNames { red: "me".into(), black: "xq".into() }, notation);
            let back = read(&text).unwrap();
            assert_eq!(back.game.moves(), g.moves(), "{notation}:\n{text}");
            assert_eq!(back.tag("Red"), Some("me"));
        }
        let chinese = write(&g, &PgnNames::default(), Notation::Chinese);
        assert!(chinese.contains("1. 炮二平五 马８进７\n2. 马二进三 车９平８\n"), "{chinese}");
        assert!(chinese.contains("[Format \"Chinese\"]"));
    }

    #[test]
    fn a_game_starting_with_black_writes_an_ellipsis() {
        let mut g = Game::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1").unwrap();
        g.play_text("h9g7").unwrap();
        g.play_text("h0g2").unwrap();
        let text = write(&g, &PgnNames::default(), Notation::Wxf);
        assert!(text.contains("1. ... H8+7\n2. H2+3 *"), "{text}");
        assert_eq!(read(&text).unwrap().game.moves(), g.moves());
    }

    #[test]
    fn reads_traditional_characters_comments_and_numbers() {
        let text = "[Game \"Chinese Chess\"]\n[Result \"*\"]\n\n\
                    １． 砲二平五 {中炮} 馬８進７ ; 屏風馬\n\
                    ２．傌二進三 (２．傌八進七) 車９平８!? $1\n3.俥一平二 *\n";
        let read = read(text).unwrap();
        let uci: Vec<_> = read.game.moves().iter().map(ToString::to_string).collect();
        assert_eq!(uci, ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0"]);
    }

    #[test]
    fn an_illegal_move_is_named_by_number_and_text() {
        let err = read("1. C2.5 H8+7 2. R1+3 *").unwrap_err().to_string();
        assert!(err.starts_with("move 2. `R1+3` (Red): "), "{err}");
        let err = read("1. 炮二平五 马８进７ 2. 马二进三 炮８进９ *").unwrap_err().to_string();
        assert!(err.starts_with("move 2... `炮８进９` (Black): "), "{err}");
        let err = read("[FEN \"9/9/9/9/9/9/9/9/9/9 w - - 0 1\"]\n*").unwrap_err().to_string();
        assert!(err.contains("the FEN tag"), "{err}");
        let err = read("1. C2.5 X8+7 *").unwrap_err().to_string();
        assert!(err.starts_with("move 1... `X8+7` (Black): "), "{err}");
        assert!(read("[Red \"x\"\n1. C2.5").unwrap_err().to_string().contains("line 1"));
    }

    #[test]
    fn full_width_wxf_and_sideways_signs_read() {
        let text = "[Format \"WXF\"]\n1. Ｃ２＝５ Ｈ８＋７ 2. H2+3 R9=8 3. ＋Ｃ．４ *\n";
        // `＋Ｃ．４` is refused for the right reason only: there is one cannon on file 5.
        let err = read(text).unwrap_err().to_string();
        assert!(err.starts_with("move 3. `＋Ｃ．４` (Red): "), "{err}");
        let read = read("1. Ｃ２＝５ Ｈ８＋７ 2. H2+3 R9=8 *").unwrap();
        let uci: Vec<_> = read.game.moves().iter().map(ToString::to_string).collect();
        assert_eq!(uci, ["h2e2", "h9g7", "h0g2", "i9h9"]);
    }

    #[test]
    fn a_game_continued_after_a_repetition_loads_as_played() {
        // The start position stands a third time after ply 8 (a draw by our rules); Red went on.
        let text = "1. R1+1 R9+1 2. R1-1 R9-1 3. R1+1 R9+1 4. R1-1 R9-1 5. C2.5 *";
        let read = read(text).unwrap();
        assert_eq!(read.game.moves().len(), 9);
        assert_eq!(read.game.moves()[8].to_string(), "h2e2");
        assert!(!read.game.outcome().is_over(), "the game goes on from where the players left it");
    }
}
