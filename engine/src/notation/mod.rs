//! Move notation, both directions: UCI (`h2e2`), ICCS (`H2-E2`), WXF (`C2.5`) and Chinese
//! (`炮二平五`). Writing needs the position (WXF and Chinese name the piece and count files
//! from the mover's right); parsing returns only moves legal in the position.

mod chinese;
mod describe;
mod iccs;
mod uci;
mod wxf;

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use crate::error::{Error, MoveFault, Result};
use crate::position::Position;
use crate::types::Move;

pub use uci::{parse_uci, parse_uci_one_based};

/// A move notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Notation {
    Uci,
    Iccs,
    Wxf,
    Chinese,
}

impl Notation {
    pub const ALL: [Notation; 4] = [Notation::Uci, Notation::Iccs, Notation::Wxf, Notation::Chinese];

    pub fn name(self) -> &'static str {
        match self {
            Notation::Uci => "uci",
            Notation::Iccs => "iccs",
            Notation::Wxf => "wxf",
            Notation::Chinese => "chinese",
        }
    }
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Notation {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Notation, String> {
        Notation::ALL
            .into_iter()
            .find(|n| n.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown notation `{s}` (expected uci, iccs, wxf or chinese)"))
    }
}

/// Writes legal move `m` of `pos` in `notation`.
pub fn write_move(pos: &Position, m: Move, notation: Notation) -> String {
    match notation {
        Notation::Uci => m.to_string(),
        Notation::Iccs => iccs::write(m),
        Notation::Wxf => wxf::write(pos, m),
        Notation::Chinese => chinese::write(pos, m),
    }
}

/// Reads a move of `pos` written in `notation`; the move must be legal. Full-width letters,
/// digits and signs (`Ｃ２＝５`) read as their ASCII forms ([`fold_full_width`]).
pub fn parse_move_as(pos: &Position, text: &str, notation: Notation) -> Result<Move> {
    let text = text.trim();
    read_move_as(pos, text, notation).map_err(|(fault, reason)| match fault {
        MoveFault::Unreadable => Error::ParseMove { text: text.to_owned(), reason },
        MoveFault::Illegal => match parse_loose(&fold_full_width(text), notation) {
            // A move that reads but is not legal: the position says why.
            Some(m) => match pos.illegal_reason(m) {
                Some(why) => Error::IllegalMove { mv: text.to_owned(), fen: pos.fen(), reason: why },
                None => Error::ParseMove { text: text.to_owned(), reason },
            },
            None => Error::ParseMove { text: text.to_owned(), reason },
        },
    })
}

/// Reads a legal move of `pos` in whichever of the four notations it is written.
pub fn parse_move(pos: &Position, text: &str) -> Result<Move> {
    let text = text.trim();
    let guess = guess_notation(&fold_full_width(text));
    parse_move_as(pos, text, guess)
}

/// Reads a legal move of `pos` in whichever notation it is written, as [`parse_move`] does,
/// telling a text that no notation reads ([`MoveFault::Unreadable`]) from one that reads but
/// names no legal move here ([`MoveFault::Illegal`]), with the reason in words. The importer's
/// fast path: it builds no error value for a move that reads.
pub fn read_move(pos: &Position, text: &str) -> std::result::Result<Move, (MoveFault, String)> {
    let folded = fold_full_width(text.trim());
    let guess = guess_notation(&folded);
    read_move_as(pos, &folded, guess)
}

fn read_move_as(pos: &Position, text: &str, notation: Notation) -> std::result::Result<Move, (MoveFault, String)> {
    let text = fold_full_width(text);
    let unreadable = |reason| (MoveFault::Unreadable, reason);
    let m = match notation {
        Notation::Uci => parse_uci(&text).map_err(unreadable)?,
        Notation::Iccs => iccs::parse(&text).map_err(unreadable)?,
        Notation::Wxf => {
            let pattern = wxf::pattern(&text).map_err(unreadable)?;
            return describe::find(pos, &pattern).map_err(|reason| (MoveFault::Illegal, reason));
        }
        Notation::Chinese => {
            let pattern = chinese::pattern(&text).map_err(unreadable)?;
            return describe::find(pos, &pattern).map_err(|reason| (MoveFault::Illegal, reason));
        }
    };
    match pos.illegal_reason(m) {
        Some(reason) => Err((MoveFault::Illegal, format!("{m} is illegal: {reason}"))),
        None => Ok(m),
    }
}

/// The move a coordinate notation names, legal or not (for naming why it is illegal).
fn parse_loose(text: &str, notation: Notation) -> Option<Move> {
    match notation {
        Notation::Uci => parse_uci(text).ok(),
        Notation::Iccs => iccs::parse(text).ok(),
        Notation::Wxf | Notation::Chinese => None,
    }
}

/// The text with full-width forms (`Ｃ２＝５`, `＋Ｐ．６`, `１`) as their ASCII letters, digits
/// and signs, the ideographic space as a space, and the minus sign `−` as `-`, as archives typed
/// on Chinese keyboards write WXF and ICCS. Borrowed unchanged when there is nothing to fold
/// (ASCII text, or Chinese without full-width forms).
pub fn fold_full_width(text: &str) -> Cow<'_, str> {
    let folds = |c: char| matches!(c, '\u{ff01}'..='\u{ff5e}' | '\u{3000}' | '\u{2212}');
    if text.is_ascii() || !text.chars().any(folds) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| match c {
                '\u{ff01}'..='\u{ff5e}' => char::from_u32(u32::from(c) - 0xfee0).unwrap_or(c),
                '\u{3000}' => ' ',
                '\u{2212}' => '-',
                _ => c,
            })
            .collect(),
    )
}

/// The notation `text` looks like: ICCS has a dash between squares, UCI is four ASCII
/// characters letter-digit-letter-digit, Chinese is non-ASCII, anything else is WXF.
pub fn guess_notation(text: &str) -> Notation {
    let b = text.as_bytes();
    if !text.is_ascii() {
        Notation::Chinese
    } else if b.len() == 5 && b[2] == b'-' && b[0].is_ascii_alphabetic() && b[3].is_ascii_alphabetic() {
        Notation::Iccs
    } else if b.len() == 4
        && b[0].is_ascii_lowercase()
        && b[1].is_ascii_digit()
        && b[2].is_ascii_lowercase()
        && b[3].is_ascii_digit()
    {
        Notation::Uci
    } else {
        Notation::Wxf
    }
}

/// Helpers shared by the notation modules' tests.
#[cfg(test)]
#[allow(clippy::unwrap_used)] // in tests a panic is the failure report
pub(crate) mod test_support {
    use super::parse_uci;
    use crate::position::Position;
    use crate::types::Move;

    pub const START_AFTER_C2_5: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1";

    pub fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap()
    }

    pub fn mv(uci: &str) -> Move {
        parse_uci(uci).unwrap()
    }

    /// Writes `uci` in `fen` with `write` and checks the text, then reads it back with `parse`.
    pub fn check_both_ways(
        write: fn(&Position, Move) -> String,
        parse: fn(&Position, &str) -> Result<Move, String>,
        fen: &str,
        uci: &str,
        text: &str,
    ) {
        let p = pos(fen);
        assert_eq!(write(&p, mv(uci)), text, "{uci} in {fen}");
        assert_eq!(parse(&p, text), Ok(mv(uci)), "{text} in {fen}");
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // in tests a panic is the failure report
mod tests {
    use super::test_support::{mv, pos};
    use super::*;

    #[test]
    fn full_width_forms_read_as_their_ascii_forms() {
        assert_eq!(fold_full_width("Ｃ２＝５"), "C2=5");
        assert_eq!(fold_full_width("＋Ｐ．６"), "+P.6");
        assert_eq!(fold_full_width("Ｈ２－３"), "H2-3");
        assert!(matches!(fold_full_width("C2.5"), Cow::Borrowed(_)));
        assert!(matches!(fold_full_width("炮二平五"), Cow::Borrowed(_)));
        let start = pos(crate::START_FEN);
        for text in ["C2.5", "C2=5", "Ｃ２＝５", "Ｃ２．５", "ｃ２．５", "C2．5", "H2-E2", "Ｈ２－Ｅ２", "炮２平５"]
        {
            assert_eq!(parse_move(&start, text), Ok(mv("h2e2")), "{text}");
            assert_eq!(read_move(&start, text), Ok(mv("h2e2")), "{text}");
        }
        assert_eq!(guess_notation(&fold_full_width("Ｃ２＝５")), Notation::Wxf);
    }

    #[test]
    fn front_and_rear_pawns_read_with_the_sign_before_or_after_the_letter() {
        // Red pawns e5 and e6 on file 5: `+P` and `P+` both name the front one.
        let fen = "3k5/9/9/4P4/4P4/9/9/9/9/5K3 w - - 0 1";
        let p = pos(fen);
        for text in ["+P+1", "P++1", "＋Ｐ＋１", "前兵进一"] {
            assert_eq!(parse_move(&p, text), Ok(mv("e6e7")), "{text}");
        }
        for text in ["+P=6", "＋Ｐ＝６", "P+.6", "前兵平六"] {
            assert_eq!(parse_move(&p, text), Ok(mv("e6d6")), "{text}");
        }
        for text in ["-P.4", "－Ｐ＝４", "后兵平四"] {
            assert_eq!(parse_move(&p, text), Ok(mv("e5f5")), "{text}");
        }
    }

    #[test]
    fn a_refused_move_says_whether_it_reads() {
        let start = pos(crate::START_FEN);
        let fault = |text: &str| read_move(&start, text).unwrap_err().0;
        assert_eq!(fault("X2.5"), MoveFault::Unreadable);
        assert_eq!(fault("C2*5"), MoveFault::Unreadable);
        assert_eq!(fault("炮二走五"), MoveFault::Unreadable);
        assert_eq!(fault("R1+3"), MoveFault::Illegal);
        assert_eq!(fault("H5+3"), MoveFault::Illegal);
        assert_eq!(fault("a0a5"), MoveFault::Illegal);
        assert_eq!(fault("A0-A5"), MoveFault::Illegal);
        // The old error values are unchanged.
        assert!(matches!(parse_move(&start, "a0a5"), Err(Error::IllegalMove { .. })));
        assert!(matches!(parse_move(&start, "R1+3"), Err(Error::ParseMove { .. })));
    }
}
