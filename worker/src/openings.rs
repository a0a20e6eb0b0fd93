//! Opening suites: one opening a line, either a FEN, or `startpos` / a FEN followed by
//! `moves m1 m2 ...` (UCI). `#` starts a comment. Each opening is played as a game pair
//! with colours swapped.
//!
//! `generate` builds a balanced suite: the common systems' first plies (中炮 against 屏风马
//! and 反宫马, 顺炮, 列炮, 仙人指路, 飞相局, 起马局, 过宫炮, 士角炮, ...) extended by random
//! legal plies, each kept only if a shallow search scores it within a margin for both sides.

use engine::notation::parse_uci;
use engine::{Engine, Limits, OpeningLine, Position};

use crate::error::{Error, Result};

/// One opening: a start position with the moves that lead into it (kept, so repetition
/// judgement and records see the whole game).
#[derive(Clone, Debug, PartialEq)]
pub struct Opening {
    pub text: String,
    pub position: Position,
}

/// Parses one opening line with the engine's parser ([`engine::OpeningLine`]); `index` is the
/// line's number in its suite, for the error.
pub fn parse_opening(index: usize, line: &str) -> Result<Opening> {
    let text = line.trim();
    let parsed = OpeningLine::parse(text).map_err(|e| Error::Opening {
        index,
        text: text.to_owned(),
        reason: match e {
            engine::Error::Opening { reason, .. } => reason,
            engine::Error::OpeningMove { index, mv, reason, .. } => format!("move {index} `{mv}`: {reason}"),
            other => other.to_string(),
        },
    })?;
    Ok(Opening { text: text.to_owned(), position: parsed.position })
}

/// A suite's opening lines with their line numbers (from 1); blank lines and `#` comments
/// are skipped. The one reader of suite text: [`parse_suite`] and the farm's suites use it.
pub fn suite_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.split('#').next().unwrap_or("").trim()))
        .filter(|(_, line)| !line.is_empty())
}

/// Parses a suite; blank lines and `#` comments are skipped. Errors name the line.
pub fn parse_suite(text: &str) -> Result<Vec<Opening>> {
    suite_lines(text).map(|(number, line)| parse_opening(number, line)).collect()
}

/// The systems the generator starts from (UCI plies from the start position).
const SYSTEMS: &[&str] = &[
    "h2e2 h9g7",                // 中炮对屏风马 (first step)
    "h2e2 h9g7 h0g2 b9c7",      // 中炮对屏风马
    "h2e2 b9c7 h0g2 h9g7",      // 中炮对屏风马 (other order)
    "h2e2 h9g7 h0g2 b7d7",      // 中炮对反宫马
    "h2e2 h7e7",                // 顺炮
    "h2e2 b7e7",                // 列炮
    "h2e2 h7e7 h0g2 h9g7",      // 顺炮直车
    "h2e2 c6c5",                // 中炮对进卒
    "g3g4 g6g5",                // 仙人指路对兵局
    "g3g4 b7c7",                // 仙人指路对卒底炮
    "g3g4 h9g7",                // 仙人指路对进马
    "c0e2 h7e7",                // 飞相对左中炮
    "c0e2 c6c5",                // 飞相对进卒
    "g0e2 h9g7",                // 飞相局
    "b0c2 h9g7",                // 起马局
    "h0g2 c6c5",                // 起马对挺卒
    "h2d2 h9g7",                // 过宫炮
    "b2f2 b9c7",                // 过宫炮 (other side)
    "h2f2 h9g7",                // 士角炮
    "c3c4 h9g7",                // 仙人指路 (c pawn)
    "b2e2 b9c7",                // 左中炮
    "h2e2 h9g7 h0g2 i9h9 i0h0", // 中炮直车对屏风马
];

/// Settings of `generate`.
#[derive(Clone, Copy, Debug)]
pub struct GenerateSettings {
    pub count: usize,
    /// Random plies added after the system's plies: 0..=extra.
    pub extra_plies: usize,
    /// Keep only openings whose shallow search score is within this margin.
    pub margin_cp: i32,
    pub depth: u32,
    pub seed: u64,
}

impl Default for GenerateSettings {
    fn default() -> Self {
        GenerateSettings { count: 2000, extra_plies: 4, margin_cp: 80, depth: 6, seed: 0x5eed }
    }
}

/// Builds a suite of distinct, balanced openings (as `startpos moves ...` lines).
pub fn generate(settings: &GenerateSettings) -> Vec<String> {
    let mut rng = settings.seed | 1;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut engine = Engine::new();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut attempts = 0;
    while out.len() < settings.count && attempts < settings.count * 50 {
        attempts += 1;
        let system = SYSTEMS[(next() % SYSTEMS.len() as u64) as usize];
        let mut pos = Position::startpos();
        let mut moves: Vec<String> = Vec::new();
        for m in system.split_whitespace() {
            let Ok(mv) = parse_uci(m) else { break };
            if pos.try_play(mv).is_err() {
                break;
            }
            moves.push(m.to_owned());
        }
        let extra = (next() % (settings.extra_plies as u64 + 1)) as usize;
        for _ in 0..extra {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let mv = legal[(next() % legal.len() as u64) as usize];
            pos.play_unchecked(mv);
            moves.push(mv.to_string());
        }
        if !seen.insert(pos.key()) || !pos.has_legal_move() {
            continue;
        }
        engine.new_game();
        engine.set_position(pos.clone());
        let r = engine.go(&Limits::depth(settings.depth), |_| {});
        if matches!(r.score, engine::search::Score::Cp(cp) if cp.abs() <= settings.margin_cp) {
            out.push(format!("startpos moves {}", moves.join(" ")));
        }
    }
    // Shuffle (Fisher-Yates): in generation order, lines of few random plies come a little
    // earlier (a short line is found before its duplicates are refused: 4.9 against 5.1 plies
    // in the first quarter of a 3,000-line suite), and a sequential match plays a prefix.
    for i in (1..out.len()).rev() {
        out.swap(i, (next() % (i as u64 + 1)) as usize);
    }
    out
}

/// Settings of [`from_book`].
#[derive(Clone, Copy, Debug)]
pub struct BookSuiteSettings {
    pub count: usize,
    /// Each line follows the book for at most this many plies (fewer where the book ends).
    pub plies: usize,
    /// Keep only lines whose shallow search score is within this margin.
    pub margin_cp: i32,
    pub depth: u32,
}

/// A line being followed through the book: how often the book's games went this way (the
/// product of each move's share of its position's games), and where it is.
struct BookLine {
    share: f64,
    moves: Vec<String>,
    pos: Position,
}

/// A balanced suite from a book's main lines: lines are followed from the start position
/// most played first (best-first by the share of the book's games that went each way), each
/// ending after `plies` plies or where the book has no move. A line is kept when its last
/// position is new (by key) and a shallow search scores it within the margin, as
/// [`generate`] keeps its lines. Returns `startpos moves ...` lines, most played first.
pub fn from_book(book: &engine::book::Book, settings: &BookSuiteSettings) -> Vec<String> {
    let mut engine = Engine::new();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut frontier = vec![BookLine { share: 1.0, moves: Vec::new(), pos: Position::startpos() }];
    // Expanding a position costs one book lookup; a balance check one search. Bounded so a
    // book of mostly unbalanced lines cannot run for ever.
    let mut checks = 0;
    while out.len() < settings.count && checks < settings.count.saturating_mul(50) {
        // The most played line so far (the frontier stays small: a few moves per position).
        let Some(best) = (0..frontier.len()).max_by(|&a, &b| frontier[a].share.total_cmp(&frontier[b].share)) else {
            break;
        };
        let line = frontier.swap_remove(best);
        let moves = if line.moves.len() < settings.plies { book.moves(&line.pos) } else { Vec::new() };
        let total: u64 = moves.iter().map(|m| u64::from(m.games)).sum();
        if moves.is_empty() || total == 0 {
            if line.moves.is_empty() || !seen.insert(line.pos.key()) || !line.pos.has_legal_move() {
                continue;
            }
            checks += 1;
            engine.new_game();
            engine.set_position(line.pos.clone());
            let r = engine.go(&Limits::depth(settings.depth), |_| {});
            if matches!(r.score, engine::search::Score::Cp(cp) if cp.abs() <= settings.margin_cp) {
                out.push(format!("startpos moves {}", line.moves.join(" ")));
            }
            continue;
        }
        for m in moves {
            let mut pos = line.pos.clone();
            pos.play_unchecked(m.mv);
            let mut next = line.moves.clone();
            next.push(m.mv.to_string());
            frontier.push(BookLine { share: line.share * f64::from(m.games) / total as f64, moves: next, pos });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fens_and_move_lists_and_names_bad_lines() {
        let suite = parse_suite("# comment\nstartpos moves h2e2 h9g7\n\n4k4/9/9/9/9/9/5p3/4B4/3N5/4K4 w - - 0 1\n")
            .expect("valid suite");
        assert_eq!(suite.len(), 2);
        assert_eq!(suite[0].position.history().len(), 2);
        match parse_suite("startpos moves h2e2 h2e2\n") {
            Err(Error::Opening { index: 1, reason, .. }) => assert!(reason.contains("move 1"), "{reason}"),
            other => panic!("expected an opening error, got {other:?}"),
        }
        assert!(parse_suite("9/9 w\n").is_err());
    }

    #[test]
    fn systems_are_legal() {
        for s in SYSTEMS {
            parse_opening(0, &format!("startpos moves {s}")).unwrap_or_else(|e| panic!("{s}: {e}"));
        }
    }

    #[test]
    fn generated_openings_are_distinct_and_balanced() {
        let lines = generate(&GenerateSettings { count: 12, depth: 3, ..GenerateSettings::default() });
        assert_eq!(lines.len(), 12);
        let suite = parse_suite(&lines.join("\n")).expect("generated lines parse");
        let keys: std::collections::HashSet<u64> = suite.iter().map(|o| o.position.key()).collect();
        assert_eq!(keys.len(), 12);
    }

    #[test]
    fn a_suite_from_a_book_follows_its_most_played_lines() {
        use engine::book::BookBuilder;
        use engine::rules::GameResult;
        let line = |text: &str| text.split_whitespace().map(|m| parse_uci(m).expect("uci")).collect::<Vec<_>>();
        let mut b = BookBuilder::new(4);
        let start = Position::startpos();
        // 中炮对屏风马 five times, 仙人指路 twice, 飞相 once (dropped: fewer than 2 games).
        for _ in 0..5 {
            b.add_game(&start, &line("h2e2 h9g7 h0g2 i9h9"), GameResult::Draw).expect("legal");
        }
        for _ in 0..2 {
            b.add_game(&start, &line("g3g4 c6c5 b2c2 b9c7"), GameResult::RedWins).expect("legal");
        }
        b.add_game(&start, &line("c0e2 h7e7"), GameResult::Draw).expect("legal");
        let book = b.finish(2);
        let settings = BookSuiteSettings { count: 10, plies: 4, margin_cp: 10_000, depth: 1 };
        // The book merges mirror images, so a line may come out on the other wing, whole.
        let mirrored = |line: &str| -> String {
            line.chars().map(|c| if ('a'..='i').contains(&c) { (b'a' + b'i' - c as u8) as char } else { c }).collect()
        };
        let matches = |got: &[String], expected: &[&str]| {
            got.len() == expected.len()
                && got.iter().zip(expected).all(|(g, e)| {
                    let e = format!("startpos moves {e}");
                    *g == e || *g == format!("startpos moves {}", mirrored(&e["startpos moves ".len()..]))
                })
        };
        let suite = from_book(&book, &settings);
        assert!(matches(&suite, &["h2e2 h9g7 h0g2 i9h9", "g3g4 c6c5 b2c2 b9c7"]), "{suite:?}");
        // Shorter lines stop where asked; every line parses as a suite line.
        let short = from_book(&book, &BookSuiteSettings { plies: 2, ..settings });
        assert!(matches(&short, &["h2e2 h9g7", "g3g4 c6c5"]), "{short:?}");
        assert_eq!(parse_suite(&short.join("\n")).expect("lines parse").len(), 2);
        // A margin no line meets keeps none; an empty book gives none.
        assert!(from_book(&book, &BookSuiteSettings { margin_cp: -1, ..settings }).is_empty());
        assert!(from_book(&BookBuilder::new(4).finish(1), &settings).is_empty());
    }
}
