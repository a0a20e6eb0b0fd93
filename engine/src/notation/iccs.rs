//! ICCS coordinates: `H2-E2` (upper-case files, 0-based ranks, a dash).

use crate::types::{Move, Square};

pub fn write(m: Move) -> String {
    let sq = |s: Square| format!("{}{}", (b'A' + s.file() as u8) as char, s.rank());
    format!("{}-{}", sq(m.from()), sq(m.to()))
}

pub fn parse(text: &str) -> Result<Move, String> {
    let err = || "expected an ICCS move such as H2-E2".to_owned();
    let (from, to) = text.split_once('-').ok_or_else(err)?;
    let from: Square = from.parse().map_err(|_| err())?;
    let to: Square = to.parse().map_err(|_| err())?;
    if from == to {
        return Err(err());
    }
    Ok(Move::new(from, to))
}
