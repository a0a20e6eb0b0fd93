//! Move notation, both directions: UCI (`h2e2`), ICCS (`H2-E2`), WXF (`C2.5`) and Chinese
//! (`炮二平五`). Writing needs the position (WXF and Chinese name the piece and count files
//! from the mover's right); parsing returns only moves legal in the position.

mod chinese;
mod describe;
mod iccs;
mod uci;
mod wxf;

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};
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

/// Reads a move of `pos` written in `notation`; the move must be legal.
pub fn parse_move_as(pos: &Position, text: &str, notation: Notation) -> Result<Move> {
    let text = text.trim();
    let m = match notation {
        Notation::Uci => parse_uci(text),
        Notation::Iccs => iccs::parse(text),
        Notation::Wxf => wxf::parse(pos, text),
        Notation::Chinese => chinese::parse(pos, text),
    }
    .map_err(|reason| Error::ParseMove { text: text.to_owned(), reason })?;
    if let Some(reason) = pos.illegal_reason(m) {
        return Err(Error::IllegalMove { mv: text.to_owned(), fen: pos.fen(), reason });
    }
    Ok(m)
}

/// Reads a legal move of `pos` in whichever of the four notations it is written.
pub fn parse_move(pos: &Position, text: &str) -> Result<Move> {
    let text = text.trim();
    let guess = guess_notation(text);
    parse_move_as(pos, text, guess)
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
