//! Opening files in the formats engine developers have, read into the farm's suite lines
//! (`startpos moves ...`, `fen <FEN> moves ...`, [`crate::openings`]):
//! - a suite file, as `xqfarm openings generate` writes it;
//! - an EPD-like file of positions, one a line: a FEN, or EPD's first fields (board, side to
//!   move) with opcodes after them (`... w - - bm h2e2; id "x";`);
//! - a PGN file, whose games' first N plies are the openings.
//!
//! Bad entries of an EPD or PGN file are skipped and named (real collections have some); a
//! file with no usable opening is an error. Duplicates are dropped, the first kept.

use std::collections::HashSet;
use std::path::Path;
use std::str::FromStr;

use engine::OpeningLine;

use crate::error::{Error, Result};
use crate::openings::suite_lines;

/// How an opening file is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpeningFormat {
    /// The farm's suite lines.
    Suite,
    /// One position a line: a FEN or an EPD record.
    Epd,
    /// PGN games, each cut after its first N plies.
    Pgn,
}

impl OpeningFormat {
    pub const ALL: [OpeningFormat; 3] = [OpeningFormat::Suite, OpeningFormat::Epd, OpeningFormat::Pgn];

    pub fn as_str(self) -> &'static str {
        match self {
            OpeningFormat::Suite => "suite",
            OpeningFormat::Epd => "epd",
            OpeningFormat::Pgn => "pgn",
        }
    }

    /// By the file's extension: `.epd` and `.fen` are EPD, `.pgn` PGN, anything else a suite.
    pub fn of_path(path: &Path) -> OpeningFormat {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("epd" | "fen") => OpeningFormat::Epd,
            Some("pgn") => OpeningFormat::Pgn,
            _ => OpeningFormat::Suite,
        }
    }
}

impl FromStr for OpeningFormat {
    type Err = String;
    fn from_str(text: &str) -> std::result::Result<OpeningFormat, String> {
        OpeningFormat::ALL.into_iter().find(|f| f.as_str() == text).ok_or_else(|| {
            let known: Vec<&str> = OpeningFormat::ALL.iter().map(|f| f.as_str()).collect();
            format!("`{text}` is not an opening format (one of: {})", known.join(", "))
        })
    }
}

impl std::fmt::Display for OpeningFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An opening file's suite lines, and the entries skipped with why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpeningFile {
    pub lines: Vec<String>,
    /// `line 7: ...` or `game 12: ...`.
    pub skipped: Vec<String>,
}

/// Reads `text` (the file `source`, for errors) as `format`; `pgn_plies` cuts PGN games. A
/// suite's bad line is an error (the farm refuses it too); an EPD or PGN file's bad entries
/// are skipped and listed; no usable opening at all is an error naming the file.
pub fn read_openings(source: &str, text: &str, format: OpeningFormat, pgn_plies: usize) -> Result<OpeningFile> {
    let mut file = match format {
        OpeningFormat::Suite => {
            let lines = suite_lines(text)
                .map(|(n, line)| crate::openings::parse_opening(n, line).map(|_| line.to_owned()))
                .collect::<Result<_>>()?;
            OpeningFile { lines, skipped: Vec::new() }
        }
        OpeningFormat::Epd => epd_openings(text),
        OpeningFormat::Pgn => pgn_openings(text, pgn_plies),
    };
    let mut seen = HashSet::new();
    file.lines.retain(|line| seen.insert(line.clone()));
    if file.lines.is_empty() {
        let why = match file.skipped.first() {
            Some(first) => format!("{} entries, none usable (the first: {first})", file.skipped.len()),
            None => "it holds no entry".to_owned(),
        };
        return Err(Error::Opening { index: 0, text: source.to_owned(), reason: format!("no usable opening: {why}") });
    }
    Ok(file)
}

/// Shuffles `lines` reproducibly by `seed` (Fisher-Yates over SplitMix64), as fastchess's
/// `-openings order=random` with `-srand`.
pub fn shuffle(lines: &mut [String], seed: u64) {
    for i in (1..lines.len()).rev() {
        let j = (crate::spsa::mix(seed ^ (i as u64).rotate_left(32)) % (i as u64 + 1)) as usize;
        lines.swap(i, j);
    }
}

/// The FEN of an EPD record: a whole FEN (six fields), or the board and side to move of an
/// EPD record whose other fields are castling and en passant (`-` in Xiangqi) and opcodes.
fn epd_fen(record: &str) -> Option<String> {
    let record = record.split(';').next().unwrap_or("");
    let fields: Vec<&str> = record.split_whitespace().collect();
    let numeric = |i: usize| fields.get(i).is_some_and(|f| f.parse::<u32>().is_ok());
    match fields.len() {
        0 | 1 => None,
        n if n >= 6 && numeric(4) && numeric(5) => Some(fields[..6].join(" ")),
        _ => Some(format!("{} {} - - 0 1", fields[0], fields[1])),
    }
}

fn epd_openings(text: &str) -> OpeningFile {
    let mut file = OpeningFile::default();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some(fen) = epd_fen(line) else {
            file.skipped.push(format!("line {}: `{line}` is not a FEN or EPD record", n + 1));
            continue;
        };
        match OpeningLine::parse(&fen) {
            Ok(_) => file.lines.push(fen),
            Err(e) => file.skipped.push(format!("line {}: {e}", n + 1)),
        }
    }
    file
}

fn pgn_openings(text: &str, plies: usize) -> OpeningFile {
    let mut file = OpeningFile::default();
    for (index, game) in engine::pgn::read_games(text).enumerate() {
        let number = index + 1;
        let game = match game {
            Ok(game) => game,
            Err(e) => {
                file.skipped.push(format!("game {number}: {e}"));
                continue;
            }
        };
        match pgn_line(&game, plies) {
            Ok(line) => file.lines.push(line),
            Err(why) => file.skipped.push(format!("game {number}: {why}")),
        }
    }
    file
}

/// A game's first `plies` moves from its start (its FEN tag, or the initial position) as a
/// suite line; a game shorter than that, or with a move that does not replay, is refused.
fn pgn_line(game: &engine::pgn::PgnText, plies: usize) -> std::result::Result<String, String> {
    let (mut position, head) = match game.tag("FEN") {
        Some(fen) => {
            let position = engine::Position::from_fen(fen).map_err(|e| format!("the FEN tag: {e}"))?;
            (position, format!("fen {fen}"))
        }
        None => (engine::Position::startpos(), "startpos".to_owned()),
    };
    if game.moves.len() < plies {
        return Err(format!("{} plies, fewer than the {plies} asked", game.moves.len()));
    }
    let mut line = head;
    if plies > 0 {
        line.push_str(" moves");
    }
    for (i, text) in game.moves.iter().take(plies).enumerate() {
        let m = engine::notation::parse_move(&position, text).map_err(|e| format!("move {} `{text}`: {e}", i + 1))?;
        line.push(' ');
        line.push_str(&m.to_string());
        position.play_unchecked(m);
    }
    OpeningLine::parse(&line).map_err(|e| e.to_string())?;
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

    #[test]
    fn epd_records_fens_and_bad_lines() {
        let text = format!(
            "# a comment\n{START}\n\
             rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - bm h9g7; id \"central cannon\";\n\
             not a fen\n\
             rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w\n\
             {START}\n"
        );
        let file = read_openings("book.epd", &text, OpeningFormat::Epd, 0).expect("usable openings");
        assert_eq!(
            file.lines,
            [START, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 0 1"],
            "the duplicates go (the short record is the start position too)"
        );
        assert_eq!(file.skipped.len(), 1, "{:?}", file.skipped);
        assert!(file.skipped[0].starts_with("line 4: "), "{:?}", file.skipped);
        let error = read_openings("bad.epd", "junk\n9/9 w\n", OpeningFormat::Epd, 0).expect_err("nothing usable");
        let text = error.to_string();
        assert!(text.contains("bad.epd") && text.contains("no usable opening: 2 entries"), "{text}");
    }

    #[test]
    fn pgn_games_cut_after_n_plies_in_any_notation() {
        let text = "[Event \"a\"]\n[Format \"WXF\"]\n\n1. C2.5 H8+7 2. H2+3 R9.8 1-0\n\n\
                    [Event \"b\"]\n\n1. 炮二平五 马８进７ 2. 马二进三 *\n\n\
                    [Event \"short\"]\n\n1. h2e2 1/2-1/2\n\n\
                    [Event \"illegal\"]\n\n1. a0a5 h9g7 0-1\n";
        let file = read_openings("games.pgn", text, OpeningFormat::Pgn, 2).expect("openings");
        assert_eq!(file.lines, ["startpos moves h2e2 h9g7"], "games a and b open alike: one line");
        assert_eq!(file.skipped.len(), 2, "{:?}", file.skipped);
        assert!(file.skipped[0].starts_with("game 3: 1 plies, fewer than the 2"), "{:?}", file.skipped);
        assert!(file.skipped[1].starts_with("game 4: move 1 `a0a5`"), "{:?}", file.skipped);
        let three = read_openings("games.pgn", text, OpeningFormat::Pgn, 3).expect("openings");
        assert_eq!(three.lines, ["startpos moves h2e2 h9g7 h0g2"]);
    }

    #[test]
    fn a_suite_is_read_as_the_farm_reads_it_and_formats_follow_extensions() {
        let file = read_openings("s.txt", "startpos moves h2e2\n# x\n\n", OpeningFormat::Suite, 8).expect("a suite");
        assert_eq!(file.lines, ["startpos moves h2e2"]);
        let error = read_openings("s.txt", "startpos moves a0a5\n", OpeningFormat::Suite, 8).expect_err("bad");
        assert!(error.to_string().contains("a0a5"), "{error}");
        assert_eq!(OpeningFormat::of_path(Path::new("a/b.EPD")), OpeningFormat::Epd);
        assert_eq!(OpeningFormat::of_path(Path::new("b.pgn")), OpeningFormat::Pgn);
        assert_eq!(OpeningFormat::of_path(Path::new("b.txt")), OpeningFormat::Suite);
        assert_eq!("pgn".parse::<OpeningFormat>(), Ok(OpeningFormat::Pgn));
        let mut lines: Vec<String> = (0..6).map(|i| i.to_string()).collect();
        shuffle(&mut lines, 7);
        assert_eq!(lines, ["0", "1", "5", "4", "3", "2"], "a golden order: a seed replays the same suite order");
        assert!("xml".parse::<OpeningFormat>().unwrap_err().contains("suite, epd, pgn"));
    }
}
