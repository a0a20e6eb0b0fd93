//! Reading PGN texts: one game ([`read_text`]) or every game of a file of thousands
//! ([`read_games`]), each into its tag pairs and move words ([`PgnText`]).
//!
//! Games are split as archives write them: a tag section starts a game (a `[` line after a
//! game's movetext starts the next one), and a result (`1-0`, `0-1`, `1/2-1/2`, `*`) ends one,
//! so movetexts without tags, one after another, split too. Comments (`{..}`, `;..`) and
//! variations (`(..)`) may span lines; a `[` inside them starts nothing. The reader works line
//! by line over the text's slices and allocates only the tags and the move words it keeps.

use crate::error::Error;

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
/// error naming its line. A text with no game reads as no tags and no moves.
pub fn read_text(text: &str) -> Result<PgnText, Error> {
    read_games(text).next().unwrap_or_else(|| Ok(PgnText::default()))
}

/// Each game of a PGN text (a file of many games), in order: its tags and move words, or
/// why that game could not be split from the text (an error naming the game's number and line).
///
/// A game with a malformed tag pair is an error; the games after it are still read.
pub fn read_games(text: &str) -> impl Iterator<Item = Result<PgnText, Error>> + '_ {
    Games { lines: text.trim_start_matches('\u{feff}').lines().enumerate(), pending: None, number: 0 }
}

/// The splitter behind [`read_games`].
struct Games<'a> {
    lines: std::iter::Enumerate<std::str::Lines<'a>>,
    /// A tag line read past the end of the previous game: the first line of the next one.
    pending: Option<(usize, &'a str)>,
    /// Games returned so far.
    number: usize,
}

/// What the movetext scanner carries from one line to the next.
#[derive(Default)]
struct Movetext {
    /// Inside `{..}`.
    brace: bool,
    /// Depth of `(..)`.
    paren: usize,
    /// A move word or a result was read.
    started: bool,
    /// The result that ended the game was read.
    ended: bool,
}

impl Movetext {
    /// Whether a `[` line now starts the next game's tags rather than continuing a comment.
    fn outside_comments(&self) -> bool {
        !self.brace && self.paren == 0
    }
}

impl Iterator for Games<'_> {
    type Item = Result<PgnText, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let number = self.number + 1;
        let mut game = PgnText::default();
        let mut bad_tag: Option<Error> = None;
        let mut scan = Movetext::default();
        let mut any = false;
        while let Some((n, line)) = self.pending.take().or_else(|| self.lines.next()) {
            let trimmed = line.trim();
            if trimmed.starts_with('[') && scan.outside_comments() {
                if scan.started {
                    // The next game's tags: this game had no result to end it.
                    self.pending = Some((n, line));
                    break;
                }
                any = true;
                match parse_tag(trimmed) {
                    Some(tag) => game.tags.push(tag),
                    None if bad_tag.is_none() => {
                        bad_tag = Some(Error::Pgn(format!(
                            "game {number}, line {}: `{trimmed}` is not a tag pair like [Red \"name\"]",
                            n + 1
                        )));
                    }
                    None => {}
                }
                continue;
            }
            if trimmed.starts_with('%') && scan.outside_comments() {
                // PGN's escape line: for other programs, never a move.
                continue;
            }
            scan_line(line, &mut scan, &mut game.moves);
            any |= scan.started;
            if scan.ended {
                break;
            }
        }
        if !any {
            // The loop stops early only after a tag or a move: the text is done.
            return None;
        }
        self.number = number;
        Some(match bad_tag {
            Some(e) => Err(e),
            None => Ok(game),
        })
    }
}

/// Reads one line of movetext into `moves`, carrying comments and variations in `scan`; stops
/// at the game's result.
fn scan_line(line: &str, scan: &mut Movetext, moves: &mut Vec<String>) {
    let mut word_start: Option<usize> = None;
    let mut flush = |from: Option<usize>, to: usize, scan: &mut Movetext| {
        let Some(from) = from else { return };
        let word = &line[from..to];
        if is_result(word) {
            scan.started = true;
            scan.ended = true;
        } else if let Some(m) = move_word(word) {
            scan.started = true;
            moves.push(m.to_owned());
        }
    };
    for (i, c) in line.char_indices() {
        if scan.ended {
            return;
        }
        if scan.brace {
            if c == '}' {
                scan.brace = false;
            }
            continue;
        }
        if scan.paren > 0 {
            match c {
                '(' | '（' => scan.paren += 1,
                ')' | '）' => scan.paren -= 1,
                '{' => scan.brace = true,
                _ => {}
            }
            continue;
        }
        match c {
            '{' | '(' | '（' | ';' => {
                flush(word_start.take(), i, scan);
                match c {
                    '{' => scan.brace = true,
                    ';' => return,
                    _ => scan.paren += 1,
                }
            }
            _ if c.is_whitespace() => flush(word_start.take(), i, scan),
            _ => {
                word_start.get_or_insert(i);
            }
        }
    }
    if !scan.ended {
        flush(word_start, line.len(), scan);
    }
}

fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?.trim();
    let (key, rest) = inner.split_once(char::is_whitespace)?;
    let value = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    let value = if value.contains('\\') { value.replace("\\\"", "\"").replace("\\\\", "\\") } else { value.to_owned() };
    Some((key.to_owned(), value))
}

/// PGN's game terminations, and the forms Chinese sources print.
fn is_result(word: &str) -> bool {
    matches!(word, "1-0" | "0-1" | "1/2-1/2" | "½-½" | "*" | "１－０" | "０－１")
}

/// One whitespace-separated word as a move, or `None` for a number or a NAG.
fn move_word(word: &str) -> Option<&str> {
    if word.starts_with('$') {
        return None;
    }
    let word = strip_move_number(word).trim_end_matches(['!', '?']);
    (!word.is_empty()).then_some(word)
}

fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || ('０'..='９').contains(&c)
}

fn is_number_dot(c: char) -> bool {
    matches!(c, '.' | '．' | '、' | '…')
}

/// `12.`, `12...`, `１．` and `3.C2.5` lose their number; `3.4` (a WXF pawn move without its
/// letter) and `5+1` do not.
pub(super) fn strip_move_number(word: &str) -> &str {
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
#[allow(clippy::unwrap_used)] // in tests a panic is the failure report
mod tests {
    use super::*;

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
        let read = read_text(text).unwrap();
        assert_eq!(read.tag("red"), Some("a \"b\""));
        assert_eq!(read.tag("Black"), None);
        assert_eq!(read.moves, ["砲二平五", "馬８進７", "傌二進三", "車９平８", "C2.5"]);
        let err = read_text("[Red \"x\"\n1. C2.5").unwrap_err().to_string();
        assert!(err.contains("game 1, line 1") && err.contains("[Red \"x\""), "{err}");
        assert_eq!(read_text("").unwrap(), PgnText::default());
    }

    fn moves_of(text: &str) -> Vec<Vec<String>> {
        read_games(text).map(|g| g.unwrap().moves).collect()
    }

    #[test]
    fn a_file_of_games_splits_at_each_tag_section_and_result() {
        let text = "[Event \"a\"]\n[Result \"1-0\"]\n\n1. C2.5 H8+7 1-0\n\n\
                    [Event \"b\"]\n\n1. P7+1 *\n\
                    [Event \"c\"]\n1. H2+3\n\
                    [Event \"d\"]\n\n1. 炮二平五 {a comment\n[with a bracket] over lines} 马８进７ (2. 车一平二\n[not a tag]) 0-1\n\
                    1. C8.5 1/2-1/2 {stray}\n\n1. R1+1\n";
        let games: Vec<PgnText> = read_games(text).map(Result::unwrap).collect();
        let events: Vec<Option<&str>> = games.iter().map(|g| g.tag("Event")).collect();
        assert_eq!(events, [Some("a"), Some("b"), Some("c"), Some("d"), None, None]);
        assert_eq!(
            moves_of(text),
            [
                vec!["C2.5", "H8+7"],
                vec!["P7+1"],
                vec!["H2+3"],
                vec!["炮二平五", "马８进７"],
                vec!["C8.5"],
                vec!["R1+1"]
            ]
        );
        assert_eq!(games[0].tag("Result"), Some("1-0"));
        assert_eq!(read_games("\n\n  \n").count(), 0);
        assert_eq!(read_games("1-0 {only a result}\n").map(|g| g.unwrap().moves.len()).collect::<Vec<_>>(), [0]);
    }

    #[test]
    fn a_bad_tag_names_its_game_and_line_and_the_next_games_still_read() {
        let text = "[Event \"a\"]\n1. C2.5 *\n\n[Event \"b\n1. H2+3 *\n\n[Event \"c\"]\n1. R1+1 *\n";
        let read: Vec<Result<PgnText, Error>> = read_games(text).collect();
        assert_eq!(read.len(), 3);
        let err = read[1].as_ref().unwrap_err().to_string();
        assert!(err.contains("game 2, line 4") && err.contains("[Event \"b"), "{err}");
        assert_eq!(read[2].as_ref().unwrap().moves, ["R1+1"]);
        assert_eq!(read[2].as_ref().unwrap().tag("event"), Some("c"));
    }
}
