//! WXF notation: piece letter, the piece's file, direction, then the destination file or the
//! number of ranks: `C2.5`, `H8+7`, `R1+1`. Files count 1-9 from the mover's right.
//!
//! Written (one canonical form per move):
//! - letters `K A E H R C P` (the WXF's elephant and horse); `+` forward, `-` backward, `.` sideways;
//! - two like pieces on one file: `+` (front) or `-` (rear) replaces the file: `R+.3`, `C--1`;
//!   advisors and bishops keep their file digit (`A6+5`, `E7-5`), since the direction already
//!   tells which of the two moves;
//! - three pawns on a file: `P+` (front), `P3` (the middle one, by its file), `P-` (rear);
//! - pawns stacked on two files ("tandem", two or more on each): the file digit replaces the
//!   letter, `3+.4`, `3-.4`; a middle one of three is still `P3`;
//! - four or five pawns on a file, front to rear: `++ P+ P3 P- --` (four: `++ P+ P- --`),
//!   as in `++.4` or `--+1`.
//!
//! Read, besides the above: letters in either case, `B` for bishop and `N` for knight (FEN letters), `=`
//! for sideways, the sign before the letter (`+R.3`), the letter with the tandem form
//! (`P3+.4`, `R9+.3`) and with `++`/`--` (`P++.4`), pawns without their letter (`3+1`), the
//! signed form of advisors and bishops (`A-+5`), and
//! the plain file form where a sign would be written (`R9.3`) when only one of the
//! pieces on that file has such a move. For an odd stack of pawns the file form means the
//! middle one. Only a move legal in the position is returned.

use super::describe::{self, Direction, Origin, Pattern, Pick, Selector};
use crate::position::Position;
use crate::types::{Move, PieceKind};

pub fn write(pos: &Position, m: Move) -> String {
    let Some(d) = describe::describe(pos, m) else {
        return m.to_string();
    };
    let letter = letter(d.kind);
    let head = match d.origin {
        Origin::File(file) => format!("{letter}{file}"),
        Origin::Stack { file, index, count, tandem } => {
            let from_rear = count - 1 - index;
            let sign = match (count >= 4, index, from_rear) {
                (true, 0, _) => Some("++"),
                (true, _, 0) => Some("--"),
                (true, 1, _) | (false, 0, _) => Some("+"),
                (true, _, 1) | (false, _, 0) => Some("-"),
                _ => None,
            };
            match sign {
                None => format!("{letter}{file}"),
                Some(double @ ("++" | "--")) => double.to_owned(),
                Some(single) if tandem => format!("{file}{single}"),
                Some(single) => format!("{letter}{single}"),
            }
        }
    };
    let op = match d.direction {
        Direction::Forward => '+',
        Direction::Backward => '-',
        Direction::Sideways => '.',
    };
    format!("{head}{op}{}", d.arg)
}

/// Reads a legal move of `pos` (the tests' way in; the notation module reads by [`pattern`]).
#[cfg(test)]
pub fn parse(pos: &Position, text: &str) -> Result<Move, String> {
    describe::find(pos, &pattern(text)?)
}

/// What the text says about its move, before the position is asked which move that is.
pub fn pattern(text: &str) -> Result<Pattern, String> {
    if !text.is_ascii() {
        return Err("WXF is plain ASCII, as in C2.5".to_owned());
    }
    let b = text.as_bytes();
    if b.len() < 3 {
        return Err("too short for WXF: expected a piece, its file or +/-, a direction and a number, as in C2.5".into());
    }
    let (head, tail) = b.split_at(b.len() - 2);
    let direction = match tail[0] {
        b'+' => Direction::Forward,
        b'-' => Direction::Backward,
        b'.' | b'=' => Direction::Sideways,
        c => {
            return Err(format!("`{}` is not a WXF direction (+ forward, - backward, . sideways)", char::from(c)));
        }
    };
    let arg = digit(tail[1])
        .ok_or_else(|| format!("`{}` should be a file or a number of ranks, 1-9", char::from(tail[1])))?;
    let (kind, selector) = parse_piece(head)?;
    Ok(Pattern { kind, selector, direction, arg })
}

/// The WXF letters: E (elephant) and H (horse) as the WXF writes them, the rest as FEN.
fn letter(kind: PieceKind) -> char {
    match kind {
        PieceKind::Bishop => 'E',
        PieceKind::Knight => 'H',
        _ => kind.char().to_ascii_uppercase(),
    }
}

fn digit(c: u8) -> Option<u8> {
    (b'1'..=b'9').contains(&c).then(|| c - b'0')
}

fn kind(c: u8) -> Option<PieceKind> {
    if c.is_ascii_alphabetic() { PieceKind::from_char(char::from(c)) } else { None }
}

fn sign(c: u8) -> Option<Pick> {
    match c {
        b'+' => Some(Pick::Plus),
        b'-' => Some(Pick::Minus),
        _ => None,
    }
}

fn double_sign(a: u8, b: u8) -> Option<Pick> {
    match (a, b) {
        (b'+', b'+') => Some(Pick::Front),
        (b'-', b'-') => Some(Pick::Rear),
        _ => None,
    }
}

/// Reads the part before the direction: which piece moves.
fn parse_piece(head: &[u8]) -> Result<(PieceKind, Selector), String> {
    let stack = |file, pick| Selector::Stack { file, pick };
    let found = match *head {
        [a] => digit(a).map(|f| (PieceKind::Pawn, Selector::File(f))),
        [a, b] => kind(a)
            .zip(digit(b))
            .map(|(k, f)| (k, Selector::File(f)))
            .or_else(|| kind(a).zip(sign(b)).map(|(k, p)| (k, stack(None, p))))
            .or_else(|| sign(a).zip(kind(b)).map(|(p, k)| (k, stack(None, p))))
            .or_else(|| digit(a).zip(sign(b)).map(|(f, p)| (PieceKind::Pawn, stack(Some(f), p))))
            .or_else(|| double_sign(a, b).map(|p| (PieceKind::Pawn, stack(None, p)))),
        [a, b, c] => kind(a)
            .zip(digit(b))
            .zip(sign(c))
            .map(|((k, f), p)| (k, stack(Some(f), p)))
            .or_else(|| kind(a).zip(double_sign(b, c)).map(|(k, p)| (k, stack(None, p)))),
        _ => None,
    };
    found.ok_or_else(|| {
        let shown = String::from_utf8_lossy(head);
        match head.iter().find(|c| c.is_ascii_alphabetic() && kind(**c).is_none()) {
            Some(&c) => format!("`{}` is not a WXF piece letter (K A B N R C P, also E and H)", char::from(c)),
            None if head.len() == 1 && kind(head[0]).is_some() => {
                format!("`{shown}` needs its file (1-9) or + / - after the letter")
            }
            None => format!(
                "cannot tell which piece `{shown}` means: expected a letter with a file or + / -, as in C2 or R+"
            ),
        }
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // in tests a panic is the failure report
mod tests {
    use super::*;

    use crate::notation::test_support::{START_AFTER_C2_5, mv, pos};

    fn check(fen: &str, uci: &str, text: &str) {
        crate::notation::test_support::check_both_ways(write, parse, fen, uci, text);
    }

    #[test]
    fn known_moves_of_both_sides() {
        let start = crate::START_FEN;
        check(start, "h2e2", "C2.5");
        check(start, "b0c2", "H8+7");
        check(start, "i0i1", "R1+1");
        check(start, "e3e4", "P5+1");
        check(start, "f0e1", "A4+5");
        check(start, "g0e2", "E3+5");
        check(start, "e0e1", "K5+1");
        // Black counts from its own right: file a is 1, so h9 is on file 8.
        check(START_AFTER_C2_5, "h9g7", "H8+7");
        check(START_AFTER_C2_5, "b9c7", "H2+3");
        check(START_AFTER_C2_5, "b7e7", "C2.5");
        check(START_AFTER_C2_5, "a9a8", "R1+1");
        let p = pos(start);
        assert_eq!(parse(&p, "H8+7"), Ok(mv("b0c2")));
        assert_eq!(parse(&p, "h8+7"), Ok(mv("b0c2")));
        assert_eq!(parse(&p, "c2=5"), Ok(mv("h2e2")));
        assert_eq!(parse(&p, "E3+5"), Ok(mv("g0e2")));
        assert_eq!(parse(&p, "5+1"), Ok(mv("e3e4")));
    }

    #[test]
    fn front_and_rear_of_two() {
        // Red rooks a0 and a2, Red cannons h2 and h4 (file 2); Black rooks i9 and i7.
        let red = "3k4r/9/8r/9/9/7C1/9/R6C1/9/R4K3 w - - 0 1";
        check(red, "a2g2", "R+.3");
        check(red, "a0a1", "R-+1");
        check(red, "h2h1", "C--1");
        check(red, "h4h3", "C+-1");
        assert_eq!(parse(&pos(red), "+R.3"), Ok(mv("a2g2")));
        assert_eq!(parse(&pos(red), "R9+.3"), Ok(mv("a2g2")));
        // The plain file form is read when only one of the two has the move.
        assert_eq!(parse(&pos(red), "R9.3"), Ok(mv("a2g2")));
        assert!(parse(&pos(red), "R9+1").unwrap_err().contains("ambiguous"));
        let black = "3k4r/9/8r/9/9/9/9/R8/9/R4K3 b - - 0 1";
        check(black, "i7c7", "R+.3");
        check(black, "i9i8", "R-+1");
    }

    #[test]
    fn advisors_and_bishops_keep_their_file_on_a_shared_file() {
        // Red advisors d0 and d2 (file 6): the direction says which one moves.
        let advisors = "3k5/9/9/9/9/9/9/3A5/9/3A1K3 w - - 0 1";
        check(advisors, "d0e1", "A6+5");
        check(advisors, "d2e1", "A6-5");
        // The signed form (written by older versions and some sources) is still read.
        assert_eq!(parse(&pos(advisors), "A-+5"), Ok(mv("d0e1")));
        assert_eq!(parse(&pos(advisors), "A+-5"), Ok(mv("d2e1")));
        // Red bishops c0 and c4 (file 7); Black bishops g9 and g5 (Black's file 7).
        let bishops = "3k2b2/9/9/9/6b2/2B6/9/9/9/2B1K4 w - - 0 1";
        check(bishops, "c0e2", "E7+5");
        check(bishops, "c4e2", "E7-5");
        check(bishops, "c4a2", "E7-9");
        assert_eq!(parse(&pos(bishops), "B7-5"), Ok(mv("c4e2")));
        assert_eq!(parse(&pos(bishops), "E+-5"), Ok(mv("c4e2")));
        let black = "3k2b2/9/9/9/6b2/2B6/9/9/9/2B1K4 b - - 0 1";
        check(black, "g9e7", "E7+5");
        check(black, "g5e7", "E7-5");
        assert_eq!(parse(&pos(black), "E-+5"), Ok(mv("g9e7")));
    }

    #[test]
    fn three_pawns_on_a_file() {
        // Red pawns g5, g6, g7 on file 3.
        let fen = "9/4k4/6P2/6P2/6P2/9/9/9/9/3K5 w - - 0 1";
        check(fen, "g7g8", "P++1");
        check(fen, "g7f7", "P+.4");
        check(fen, "g6f6", "P3.4");
        check(fen, "g5h5", "P-.2");
        // Black pawns c4, c3, c2: Black's front is the lowest rank; file c is Black's 3.
        let black = "3k5/9/9/9/9/2p6/2p6/2p6/9/4K4 b - - 0 1";
        check(black, "c2d2", "P+.4");
        check(black, "c3b3", "P3.2");
        check(black, "c4d4", "P-.4");
    }

    #[test]
    fn tandem_pawns_name_the_file_first() {
        // Red pawns c5, c6 (file 7) and g5, g6, g7 (file 3).
        let fen = "9/4k4/6P2/2P3P2/2P3P2/9/9/9/9/3K5 w - - 0 1";
        check(fen, "c6b6", "7+.8");
        check(fen, "c5d5", "7-.6");
        check(fen, "g7f7", "3+.4");
        check(fen, "g6f6", "P3.4");
        check(fen, "g5f5", "3-.4");
        check(fen, "c6c7", "7++1");
        let p = pos(fen);
        assert_eq!(parse(&p, "P7+.8"), Ok(mv("c6b6")));
        assert!(parse(&p, "P+.8").is_ok(), "only the front pawn of file 7 can reach file 8");
        assert!(parse(&p, "P++1").unwrap_err().contains("ambiguous"));
    }

    #[test]
    fn four_and_five_pawns_on_a_file() {
        // Five Red pawns g5..g9 (file 3), front to rear: ++ P+ P3 P- --.
        let five = "6P2/4k1P2/6P2/6P2/6P2/9/9/9/9/3K5 w - - 0 1";
        for (uci, wxf) in [("g9f9", "++.4"), ("g8f8", "P+.4"), ("g7f7", "P3.4"), ("g6f6", "P-.4"), ("g5f5", "--.4")] {
            check(five, uci, wxf);
        }
        // Four Red pawns g5..g8 and one on a6: ++ P+ P- --.
        let four = "9/4k1P2/6P2/P5P2/6P2/9/9/9/9/3K5 w - - 0 1";
        check(four, "g8f8", "++.4");
        check(four, "g7f7", "P+.4");
        check(four, "g6f6", "P-.4");
        check(four, "g5f5", "--.4");
        check(four, "a6a7", "P9+1");
        assert_eq!(parse(&pos(four), "P++.4"), Ok(mv("g8f8")));
    }

    #[test]
    fn errors_name_what_is_wrong() {
        let p = pos(crate::START_FEN);
        let err = |text: &str| parse(&p, text).unwrap_err();
        assert!(err("").contains("too short"));
        assert!(err("X2.5").contains("not a WXF piece letter"));
        assert!(err("C2*5").contains("not a WXF direction"));
        assert!(err("C2.0").contains("1-9"));
        assert!(err("R+1").contains("needs its file"));
        assert!(err("R+.3").contains("share a file"));
        assert!(err("N2.3").contains("never moves sideways"));
        assert!(err("N5+3").contains("no knight on file 5"));
        assert!(err("C2.2").contains("cannot move sideways to file 2"));
        assert!(err("R1+3").contains("i0i3 is illegal"), "{}", err("R1+3"));
        assert!(err("炮二平五").contains("ASCII"));
    }
}
