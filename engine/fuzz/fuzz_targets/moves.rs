//! Move text in any notation, read in one of a few fixed positions: `parse_move` either
//! refuses it or returns a legal move that `try_play` accepts and `undo` takes back exactly.

#![no_main]

use engine::Position;
use libfuzzer_sys::fuzz_target;

/// Opening, middle game (many pieces of one kind on a file for WXF/Chinese tandem
/// names), Black to move, and an endgame with advanced pawns.
const FENS: [&str; 5] = [
    engine::START_FEN,
    "2bak4/9/3a5/p2Np3p/3n1P3/3pc3P/P4r1c1/B2CC2R1/4A4/3AK1B2 b - - 0 1",
    "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1",
    "3k5/4P4/4P4/4P4/9/9/9/9/4A4/3AK4 w - - 0 1",
    "4k4/9/9/P1P1P4/P8/9/9/9/9/3K5 w - - 0 1",
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, text)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(text) else { return };
    let mut pos = match Position::from_fen(FENS[usize::from(selector) % FENS.len()]) {
        Ok(pos) => pos,
        Err(e) => panic!("fixed FEN refused: {e}"),
    };
    let Ok(m) = engine::notation::parse_move(&pos, text) else { return };
    let fen = pos.fen();
    let key = pos.key();
    assert!(pos.legal_moves().contains(&m), "{text:?} in {fen}: parsed {m}, which is not generated");
    if let Err(e) = pos.try_play(m) {
        panic!("{text:?} in {fen}: parsed {m}, which try_play refuses: {e}");
    }
    assert_eq!(pos.undo(), Some(m), "{text:?} in {fen}");
    assert_eq!(pos.fen(), fen, "{text:?} in {fen}: undo of {m} did not restore the FEN");
    assert_eq!(pos.key(), key, "{text:?} in {fen}: undo of {m} did not restore the key");
});
