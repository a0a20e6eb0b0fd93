//! UCI coordinates as Pikafish writes them: `h2e2`, ranks 0-9.

use crate::types::{Move, Square};

/// Reads `h2e2` (0-based ranks). Any legal-or-not move on the board; legality is the
/// caller's check.
pub fn parse_uci(text: &str) -> Result<Move, String> {
    parse_with_base(text, 0)
}

/// Reads the 1-based rank form some engines use (Fairy-Stockfish's plain UCI: `h3e3`,
/// ranks 1-10).
pub fn parse_uci_one_based(text: &str) -> Result<Move, String> {
    parse_with_base(text, 1)
}

fn parse_with_base(text: &str, base: i32) -> Result<Move, String> {
    let err = || format!("expected a UCI move such as h2e2 (files a-i, ranks {base}-{})", 9 + base);
    if !text.is_ascii() {
        return Err(err());
    }
    let b = text.as_bytes();
    let mut i = 0;
    let mut square = || -> Result<Square, String> {
        let file = b.get(i).ok_or_else(err)?.wrapping_sub(b'a') as i32;
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let rank: i32 = text[start..i].parse().map_err(|_| err())?;
        Square::new(file, rank - base).ok_or_else(err)
    };
    let from = square()?;
    let to = square()?;
    if i != b.len() || from == to {
        return Err(err());
    }
    Ok(Move::new(from, to))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_rank_bases() {
        assert_eq!(parse_uci("h2e2"), Ok(Move::new(Square::H2, Square::E2)));
        assert_eq!(parse_uci_one_based("h3e3"), Ok(Move::new(Square::H2, Square::E2)));
        assert_eq!(parse_uci_one_based("a10a9"), Ok(Move::new(Square::A9, Square::A8)));
        for bad in ["", "h2", "h2e", "h2e22", "j2e2", "h2h2", "h2e2x", "炮二平五"] {
            assert!(parse_uci(bad).is_err(), "{bad}");
        }
    }
}
