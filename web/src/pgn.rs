//! A farm game as PGN (xqbase style, as DhtmlXQ and XQStudio read it): the one writer behind
//! the web's downloads and `xqfarm export pgn`. Variants appear by name in `[Red]`/`[Black]`,
//! their content ids in `[RedId]`/`[BlackId]`.

use std::fmt::Write as _;

use engine::Position;
use engine::notation::{Notation, parse_uci, write_move};

/// The `[Event]` and `[Round]` of a run's games: `xqfarm run N` and `pair.game` for most runs;
/// for a tournament its name and `round.game`, the game numbered within its match (a match's
/// games in recording order: pass them in game id order).
#[derive(Clone, Debug)]
pub struct EventRound {
    run: u64,
    /// A tournament's name and each match's (pairing's) round.
    tournament: Option<(String, Vec<u32>)>,
    /// Games seen so far per match.
    seen: std::collections::HashMap<u32, u32>,
}

impl EventRound {
    pub fn new(run: u64, run_name: &str, draw: Option<&proto::domain::TournamentDraw>) -> EventRound {
        let tournament = draw.map(|d| (run_name.to_owned(), d.matches.iter().map(|m| m.m.round).collect()));
        EventRound { run, tournament, seen: std::collections::HashMap::new() }
    }

    /// The headers of the next game (`pairing`: its pair's pairing).
    pub fn next(&mut self, pairing: u32, pair_index: u64, game_in_pair: u8) -> (String, String) {
        match &self.tournament {
            Some((name, rounds)) => {
                let n = self.seen.entry(pairing).or_insert(0);
                *n += 1;
                let round = rounds.get(pairing as usize).map_or_else(|| "?".to_owned(), u32::to_string);
                (name.clone(), format!("{round}.{n}"))
            }
            None => (format!("xqfarm run {}", self.run), format!("{pair_index}.{}", game_in_pair + 1)),
        }
    }
}

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
        if pos.side_to_move() == engine::Color::Red {
            let _ = write!(line, "{}. ", pos.fullmove());
        } else if i == 0 {
            let _ = write!(line, "{}. ... ", pos.fullmove());
        }
        line.push_str(&write_move(&pos, mv, notation));
        if i < book {
            line.push_str(" {book}");
        }
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

/// The ECCO opening of a game from `start` (`None` unless it is the initial position), by its
/// first moves as far as they read and replay.
pub fn ecco_of<'a>(start: &Position, moves: impl Iterator<Item = &'a String>) -> Option<engine::ecco::Opening> {
    let moves: Vec<engine::Move> = moves.take(engine::ecco::PLIES).map_while(|m| parse_uci(m).ok()).collect();
    engine::ecco::classify(start, &moves)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tournament_game_is_headed_by_its_name_and_round_dot_game() {
        use proto::domain::{Match, MatchRow, MatchStage, TournamentDraw};
        let m = |pairing, round| MatchRow {
            pairing,
            m: Match { round, slot: 0, a: 0, b: 1, stage: MatchStage::Main, pairs: 2 },
            armageddon_red_points: None,
        };
        let draw = TournamentDraw { matches: vec![m(0, 1), m(1, 1), m(2, 2)], byes: vec![], names: vec![] };
        let mut h = EventRound::new(7, "Spring swiss", Some(&draw));
        assert_eq!(h.next(1, 0, 0), ("Spring swiss".into(), "1.1".into()));
        assert_eq!(h.next(1, 0, 1), ("Spring swiss".into(), "1.2".into()));
        assert_eq!(h.next(2, 5, 0), ("Spring swiss".into(), "2.1".into()));
        assert_eq!(h.next(1, 3, 0), ("Spring swiss".into(), "1.3".into()));
        let mut other = EventRound::new(7, "an sprt", None);
        assert_eq!(other.next(0, 4, 1), ("xqfarm run 7".into(), "4.2".into()));
    }

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

    #[test]
    fn the_opening_suites_moves_come_first_marked_as_book() {
        let book = vec!["h2e2".to_string(), "h9g7".to_string()];
        let moves = vec!["h0g2".to_string()];
        let g = PgnGame {
            event: String::new(),
            round: String::new(),
            red_name: "",
            red_id: "",
            black_name: "",
            black_id: "",
            result: "1-0",
            termination: "",
            start_fen: engine::START_FEN,
            book_moves: &book,
            moves: &moves,
        };
        let mut out = String::new();
        write_game(&mut out, &g, Notation::Wxf).expect("writes");
        assert!(out.contains("\n1. C2.5 {book} H8+7 {book}\n2. H2+3 1-0\n"), "{out}");
        // The opening, classified over the book's moves and the players' alike.
        let expected = engine::ecco::classify_wxf(&["C2.5", "H8+7", "H2+3"]);
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
            book_moves: &[],
            moves: &moves,
        };
        let err = write_game(&mut String::new(), &g, Notation::Wxf).expect_err("illegal");
        assert!(err.contains("move 2 `a0a5`"), "{err}");
    }
}
