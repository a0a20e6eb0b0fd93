//! ECCO, the Chinese opening classification xqbase publishes (codes A00-E99): which opening a
//! game from the initial position is, by its first ten rounds.
//!
//! A = openings other than the central cannon and the pawn (horse, elephant, advisor, side
//! cannons...), B = central cannon against defences other than the screen horses, C = central
//! cannon against the screen horses (屏风马), D = same- and opposite-direction cannons
//! (顺炮, 列炮), E = the pawn opening (仙人指路).
//!
//! ```
//! use engine::ecco;
//!
//! let opening = ecco::classify_wxf(&["C2.5", "H8+7", "H2+3", "H2+3"]);
//! assert_eq!(opening.code, "C00");
//! assert_eq!(opening.name, "中炮对屏风马");
//!
//! // The same opening on the other wing is the same opening.
//! assert_eq!(ecco::classify_wxf(&["C8.5", "H2+3", "H8+7", "H8+7"]).code, "C00");
//! ```
//!
//! The classifier is the published decision tree (see `tree.rs`); [`codes`] lists every code it
//! can give, 260 of the 500 the scheme reserves (the others are unassigned).

mod names;
mod tree;

/// How many plies of a game the classification reads (ten rounds).
pub const PLIES: usize = tree::PLIES;

use crate::notation::{Notation, write_move};
use crate::position::{Position, START_FEN};
use crate::types::Move;

/// An ECCO opening: its code, the opening's name and, for a subdivision, the variation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Opening {
    /// `A00`..`E99`.
    pub code: &'static str,
    /// The opening, as in `中炮过河车互进七兵对屏风马平炮兑车`.
    pub name: &'static str,
    /// The variation within it, as in `红左边炮对黑退边炮上右士`; empty for none.
    pub variation: &'static str,
}

/// Every code the classifier can give, ascending.
pub fn codes() -> impl Iterator<Item = &'static str> {
    names::TABLE.iter().map(|&(code, _, _)| code)
}

/// The opening with ECCO code `code`, if the classifier can give it.
pub fn opening(code: &str) -> Option<Opening> {
    let at = names::TABLE.binary_search_by(|&(c, _, _)| c.cmp(code)).ok()?;
    let (code, name, variation) = names::TABLE[at];
    Some(Opening { code, name, variation })
}

/// The opening of a game from the initial position, given its moves in WXF (Red's first,
/// alternating), as [`crate::notation`] writes them (`C2.5`, `H8+7`); the letters may also be
/// lower case or `N`/`B`. Only the first ten rounds count, and nothing is checked: a move that
/// is not one of the definition's just matches none of its patterns.
pub fn classify_wxf<S: AsRef<str>>(moves: &[S]) -> Opening {
    let mut plies: Vec<String> = moves.iter().take(tree::PLIES).map(|m| normalise(m.as_ref())).collect();
    // The definition is written for a Red first move on Red's right wing (files 1-4) or on
    // the central file; a game that starts on the left wing is read as its mirror image.
    if plies.first().is_some_and(|m| matches!(m.as_bytes().get(1), Some(b'6'..=b'9'))) {
        plies = plies.iter().map(|m| mirror(m)).collect();
    }
    let code = tree::Game::new(plies).code();
    // Every code of the tree is in the table (a unit test checks it); were one missing, the
    // reference falls back to its first entry, and so do we rather than panic.
    opening(code).unwrap_or(Opening { code: "A00", name: names::TABLE[0].1, variation: "" })
}

/// The opening of the game `moves` played from `start`, or `None` when `start` is not the
/// initial position (ECCO classifies only whole games). The moves are read up to the first
/// one that is illegal where it is played.
pub fn classify(start: &Position, moves: &[Move]) -> Option<Opening> {
    if !is_initial(start) {
        return None;
    }
    let mut pos = start.clone();
    let mut wxf = Vec::with_capacity(tree::PLIES);
    for &m in moves.iter().take(tree::PLIES) {
        if pos.illegal_reason(m).is_some() {
            break;
        }
        wxf.push(write_move(&pos, m, Notation::Wxf));
        pos.play_unchecked(m);
    }
    Some(classify_wxf(&wxf))
}

/// The placement and side to move of the initial position (the counters do not matter).
fn is_initial(pos: &Position) -> bool {
    let fen = pos.fen();
    fen.split(' ').take(2).eq(START_FEN.split(' ').take(2))
}

/// One move in the definition's spelling: upper case, `N` for the horse and `B` for the
/// elephant, `.` for sideways.
fn normalise(wxf: &str) -> String {
    let mut out: Vec<u8> = wxf.trim().bytes().map(|c| c.to_ascii_uppercase()).collect();
    match out.first_mut() {
        Some(c @ b'H') => *c = b'N',
        Some(c @ b'E') => *c = b'B',
        _ => {}
    }
    for c in &mut out {
        if *c == b'=' {
            *c = b'.';
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The same move played on the other wing: files `f` become `10 - f`. The number after the
/// direction is a file for a sideways move and for the diagonal movers (horse, elephant,
/// advisor), a number of ranks otherwise. Signs (`R+.3`) stay; tandem pawns (`3+.4`) have
/// their file first.
fn mirror(wxf: &str) -> String {
    let flip = |c: u8| if (b'1'..=b'9').contains(&c) { b'0' + 10 - (c - b'0') } else { c };
    let mut out = wxf.as_bytes().to_vec();
    if out.len() != 4 {
        return wxf.to_owned();
    }
    out[0] = flip(out[0]);
    out[1] = flip(out[1]);
    if out[2] == b'.' || matches!(out[0], b'N' | b'B' | b'A') {
        out[3] = flip(out[3]);
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // in tests a panic is the failure report
mod tests {
    use super::*;
    use crate::notation::parse_move_as;

    fn play(wxf: &str) -> (Position, Vec<Move>) {
        let start = Position::startpos();
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for text in wxf.split_whitespace() {
            let m = parse_move_as(&pos, text, Notation::Wxf).unwrap();
            pos.try_play(m).unwrap();
            moves.push(m);
        }
        (start, moves)
    }

    /// The game with every move on the other wing, written by our own WXF writer.
    fn mirrored(moves: &[Move]) -> Vec<String> {
        let mut pos = Position::startpos();
        moves
            .iter()
            .map(|&m| {
                let m = Move::new(m.from().mirror(), m.to().mirror());
                let text = write_move(&pos, m, Notation::Wxf);
                pos.try_play(m).unwrap();
                text
            })
            .collect()
    }

    #[test]
    fn the_table_is_sorted_well_formed_and_unique() {
        let all: Vec<&str> = codes().collect();
        assert_eq!(all.len(), 260);
        assert!(all.windows(2).all(|w| w[0] < w[1]), "ascending, no repeats");
        for code in &all {
            let b = code.as_bytes();
            assert!(b.len() == 3 && (b'A'..=b'E').contains(&b[0]) && b[1..].iter().all(u8::is_ascii_digit), "{code}");
            assert_eq!(opening(code).unwrap().code, *code);
        }
        assert_eq!(opening("A09"), None);
        assert_eq!(opening("F00"), None);
    }

    #[test]
    fn every_code_the_tree_names_is_in_the_table() {
        // The tree's source names its codes as string literals: each must be a table entry
        // and each entry must appear, so `codes()` lists exactly what the tree can give.
        let source = include_str!("tree.rs");
        let mut named: Vec<&str> = source
            .split('"')
            .filter(|s| {
                s.len() == 3 && s.as_bytes()[0].is_ascii_uppercase() && s[1..].bytes().all(|c| c.is_ascii_digit())
            })
            .collect();
        named.push("A00");
        named.sort_unstable();
        named.dedup();
        assert_eq!(named, codes().collect::<Vec<_>>());
    }

    #[test]
    fn the_empty_game_is_other_openings() {
        let none: [&str; 0] = [];
        let opening = classify_wxf(&none);
        assert_eq!((opening.code, opening.name, opening.variation), ("A00", "其他开局", ""));
        assert_eq!(classify(&Position::startpos(), &[]), Some(opening));
    }

    #[test]
    fn names_and_variations_come_from_the_table() {
        let line = "C2.5 H8+7 H2+3 R9.8 R1.2 P7+1 R2+6 H2+3 P7+1 C8.9 R2.3 C9-1 H8+7 A4+5 C8.9 R1.2";
        let opening = classify_wxf(&line.split(' ').collect::<Vec<_>>());
        assert_eq!(opening.code, "C46");
        assert_eq!(opening.name, "中炮过河车互进七兵对屏风马平炮兑车");
        assert_eq!(opening.variation, "红左边炮对黑退边炮上右士右直车");
    }

    #[test]
    fn a_mirrored_game_is_the_same_opening() {
        for line in [
            "C2.5 H8+7 H2+3 R9.8 R1.2 P7+1 R2+6 H2+3 P7+1 C8.9 R2.3 C9-1 H8+7 A4+5 C8.9",
            "P3+1 C8.7 C8.5 E7+5 H8+7 R1+1 R9.8 R1.8 H2+3 H8+6",
            "E3+5 C8.4 H2+3 H8+7 R1.2 R9.8",
            "C2.6 C8.5 H2+3 H8+7 R1.2 R9+1",
            "C2.5 C8.5 H2+3 H8+7 R1.2 R9+1 P3+1",
        ] {
            let (start, moves) = play(line);
            let plain = classify(&start, &moves).unwrap();
            let other_wing = mirrored(&moves);
            assert_ne!(other_wing[0], line.split(' ').next().unwrap(), "the mirror starts elsewhere");
            assert_eq!(classify_wxf(&other_wing), plain, "{line} against {other_wing:?}");
        }
    }

    #[test]
    fn a_game_from_another_position_has_no_code() {
        let after_one = Position::from_fen(crate::notation::test_support::START_AFTER_C2_5).unwrap();
        assert_eq!(classify(&after_one, &[]), None);
        let endgame = Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1").unwrap();
        assert_eq!(classify(&endgame, &[]), None);
        // The counters are not the position: a start FEN with other counters still counts.
        let counters =
            Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 3 7").unwrap();
        assert!(classify(&counters, &[]).is_some());
    }

    #[test]
    fn reading_stops_at_the_first_illegal_move() {
        let (start, mut moves) = play("C2.5 H8+7");
        let legal = classify(&start, &moves).unwrap();
        moves.insert(1, moves[0]); // Red's cannon again, now Black's turn: illegal
        moves.push(moves[2]);
        assert_eq!(classify(&start, &moves), classify(&start, &moves[..1]));
        assert_ne!(classify(&start, &moves), Some(legal));
    }

    #[test]
    fn moves_past_ten_rounds_do_not_count() {
        let line =
            "C2.5 H8+7 H2+3 R9.8 R1.2 P7+1 R2+6 H2+3 P7+1 C8.9 R2.3 C9-1 H8+7 A4+5 C8.9 A6+5 A6+5 R1.2 P3+1 P3+1";
        let twenty: Vec<&str> = line.split(' ').collect();
        let mut more = twenty.clone();
        more.extend(["R1.2", "X9-9", ""]);
        assert_eq!(classify_wxf(&more), classify_wxf(&twenty));
    }

    #[test]
    fn spelling_is_normalised_and_garbage_is_no_pattern() {
        assert_eq!(classify_wxf(&["c2=5", "n8+7"]), classify_wxf(&["C2.5", "H8+7"]));
        assert_eq!(classify_wxf(&["", "C2.5"]).code, "A00");
        assert_eq!(classify_wxf(&["C2.5", "炮８平５"]).code, "B00");
        assert_eq!(classify_wxf(&["C9.5"]).code, classify_wxf(&["C1.5"]).code);
    }

    #[test]
    fn mirror_flips_files_but_not_rank_counts_or_signs() {
        assert_eq!(mirror("C8.5"), "C2.5");
        assert_eq!(mirror("N2+3"), "N8+7");
        assert_eq!(mirror("R1+1"), "R9+1");
        assert_eq!(mirror("A6+5"), "A4+5");
        assert_eq!(mirror("R+.3"), "R+.7");
        assert_eq!(mirror("C--1"), "C--1");
        assert_eq!(mirror("3+.4"), "7+.6");
        assert_eq!(mirror("炮"), "炮");
    }
}
