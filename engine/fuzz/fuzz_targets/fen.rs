//! Any text given to `Position::from_fen` is refused with an error or accepted as a position
//! that writes a FEN reading back to an equal position, and whose moves can be generated.

#![no_main]

use engine::Position;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(pos) = Position::from_fen(text) else { return };
    let written = pos.fen();
    let again = match Position::from_fen(&written) {
        Ok(again) => again,
        Err(e) => panic!("{text:?} was accepted but its fen() {written:?} is refused: {e}"),
    };
    assert!(again == pos, "{text:?} -> {written:?} reads back as a different position");
    assert_eq!(again.key(), pos.key(), "{text:?} -> {written:?} changed the key");
    assert_eq!(again.fen(), written, "fen() of {text:?} is not stable");
    let moves = pos.legal_moves();
    assert!(moves.iter().all(|&m| pos.illegal_reason(m).is_none()), "{written}: a generated move is refused");
});
