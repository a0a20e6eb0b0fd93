//! FEN parsing as a black box: the shared list of invalid FENs, one or more bad FENs for
//! every `FenError` variant, inputs that must be refused without a panic, and round trips
//! of valid FENs (parse -> `fen()` -> parse gives an equal position and key).

use std::path::PathBuf;

use engine::position::FenError;
use engine::{Color, PieceKind, Position, START_FEN};
use proptest::prelude::*;

fn shared_dir() -> PathBuf {
    std::env::var_os("XQFARM_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"))
}

fn read_shared(name: &str) -> String {
    let path = shared_dir().join("xiangqi").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {} (set XQFARM_SHARED): {e}", path.display()))
}

fn data_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// The error for `fen`, failing the test if it parses.
fn refused(fen: &str) -> FenError {
    match Position::from_fen(fen) {
        Ok(pos) => panic!("accepted invalid FEN `{fen}` as {}", pos.fen()),
        Err(e) => e,
    }
}

fn color_named_in(text: &str) -> Color {
    match (text.contains("Red"), text.contains("Black")) {
        (true, false) => Color::Red,
        (false, true) => Color::Black,
        _ => panic!("reason `{text}` names no single colour"),
    }
}

/// The first whole number in `text`.
fn number_in(text: &str) -> usize {
    let digits: String = text.chars().skip_while(|c| !c.is_ascii_digit()).take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap_or_else(|_| panic!("reason `{text}` has no number"))
}

/// Checks `err` against the shared file's reason text: the variant is chosen by keywords in
/// the reason, and the error's message must repeat the reason's key facts.
fn check_against_reason(fen: &str, reason: &str, err: &FenError) {
    let message = err.to_string();
    assert!(!message.trim().is_empty(), "{fen}: empty error message");
    let context = format!("FEN `{fen}`, expected `{reason}`, got {err:?} (`{message}`)");
    if reason.contains("not to move") && reason.contains("check") {
        let color = color_named_in(reason);
        assert_eq!(*err, FenError::SideNotToMoveInCheck(color), "{context}");
        assert!(message.contains(&color.to_string()) && message.contains("check"), "{context}");
    } else if reason.contains("can never reach") {
        let FenError::ImpossibleSquare { piece, square } = err else { panic!("{context}") };
        assert_eq!(piece.color, color_named_in(reason), "{context}");
        assert!(reason.contains(piece.kind.name()), "{context}");
        assert!(reason.contains(&format!(" on {square}")), "{context}");
        assert!(message.contains(&square.to_string()) && message.contains(piece.kind.name()), "{context}");
    } else if reason.contains("ranks instead of") {
        let ranks = number_in(reason);
        assert_eq!(*err, FenError::RankCount(ranks), "{context}");
        assert!(message.contains(&ranks.to_string()) && message.contains("ranks"), "{context}");
    } else if reason.contains("files in a rank") {
        let files = number_in(reason);
        let FenError::FileCount { files: got, .. } = *err else { panic!("{context}") };
        assert_eq!(got, files, "{context}");
        assert!(message.contains(&files.to_string()) && message.contains("files"), "{context}");
    } else if let Some((_, letter)) = reason.split_once("unknown piece letter ") {
        let letter = letter.chars().next().expect("a letter after `unknown piece letter`");
        assert_eq!(*err, FenError::UnknownPiece(letter), "{context}");
        assert!(message.contains(letter), "{context}");
    } else if reason.contains("has no king") {
        let color = color_named_in(reason);
        assert_eq!(*err, FenError::MissingKing(color), "{context}");
        assert!(message.contains(&color.to_string()) && message.contains("king"), "{context}");
    } else if reason.contains("kings face") {
        assert_eq!(*err, FenError::KingsFacing, "{context}");
        assert!(message.contains("kings"), "{context}");
    } else if reason.contains("side to move") {
        let FenError::SideToMove(field) = err else { panic!("{context}") };
        let expected = fen.split_whitespace().nth(1).expect("a side field");
        assert_eq!(field, expected, "{context}");
        assert!(message.contains(expected), "{context}");
    } else {
        panic!("no expectation for reason `{reason}` (line `{fen}`): teach this test its keywords");
    }
}

#[test]
fn shared_invalid_fens_are_refused_for_their_reason() {
    let text = read_shared("invalid-fens.txt");
    let mut checked = 0;
    for line in data_lines(&text) {
        let (fen, reason) = line.split_once('|').unwrap_or_else(|| panic!("`FEN | reason` expected: {line}"));
        let (fen, reason) = (fen.trim(), reason.trim());
        check_against_reason(fen, reason, &refused(fen));
        checked += 1;
    }
    assert!(checked >= 9, "only {checked} invalid FENs in the shared file");
}

const START_PLACEMENT: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";

#[test]
fn each_error_kind_names_what_is_wrong() {
    let red = Color::Red;
    let black = Color::Black;
    // (FEN, expected error, text its message must contain)
    let cases: Vec<(String, FenError, &str)> = vec![
        (String::new(), FenError::Empty, "empty"),
        ("   \t\n ".into(), FenError::Empty, "empty"),
        ("9/9/9/9/9/9/9/9/9/9/9 w".into(), FenError::RankCount(11), "11 ranks"),
        ("4k4".into(), FenError::RankCount(1), "1 ranks"),
        ("4k4//9/9/9/9/9/9/9/4K4 w".into(), FenError::FileCount { rank: 8, files: 0 }, "rank 8 has 0 files"),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w".into(),
            FenError::FileCount { rank: 0, files: 8 },
            "rank 0 has 8 files",
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRR w".into(),
            FenError::FileCount { rank: 0, files: 10 },
            "10 files",
        ),
        ("4k4/9/9/9/9/9/9/9/9/4K5 w".into(), FenError::FileCount { rank: 0, files: 10 }, "rank 0"),
        ("4k4/9/9/9/9/9/9/9/9/4K3X w".into(), FenError::UnknownPiece('X'), "X"),
        ("4k4/9/9/9/9/9/9/9/9/4K3q w".into(), FenError::UnknownPiece('q'), "q"),
        ("4k4/9/9/9/9/9/9/9/9/04K4 w".into(), FenError::UnknownPiece('0'), "0"),
        ("4k4/9/9/9/9/9/9/9/9/3将K4 w".into(), FenError::UnknownPiece('将'), "将"),
        ("4k4/9/9/9/9/9/9/9/9/３K5 w".into(), FenError::UnknownPiece('３'), "３"),
        (format!("{START_PLACEMENT} x"), FenError::SideToMove("x".into()), "`x`"),
        (format!("{START_PLACEMENT} red"), FenError::SideToMove("red".into()), "red"),
        (format!("{START_PLACEMENT} 红 - - 0 1"), FenError::SideToMove("红".into()), "红"),
        (format!("{START_PLACEMENT} w - - x 1"), counter("x"), "`x`"),
        (format!("{START_PLACEMENT} w - - -1 1"), counter("-1"), "-1"),
        (format!("{START_PLACEMENT} w - - 1.5 1"), counter("1.5"), "1.5"),
        (format!("{START_PLACEMENT} w - - 99999999999 1"), counter("99999999999"), "99999999999"),
        (format!("{START_PLACEMENT} w - - 0 one"), move_number("one"), "one"),
        (format!("{START_PLACEMENT} b - - 0 -3"), move_number("-3"), "-3"),
        ("4k4/9/9/9/9/9/9/9/9/9 w".into(), FenError::MissingKing(red), "Red"),
        ("9/9/9/9/9/9/9/9/9/4K4 w".into(), FenError::MissingKing(black), "Black"),
        ("4k4/9/9/9/9/9/9/9/4K4/4K4 w".into(), FenError::ExtraKing { color: red, count: 2 }, "2 kings"),
        ("3kk4/9/9/9/9/9/9/9/9/5K3 w".into(), FenError::ExtraKing { color: black, count: 2 }, "Black has 2"),
        ("4k4/9/9/9/9/9/9/9/R7R/R3K4 w".into(), too_many(red, PieceKind::Rook, 3), "3 rooks"),
        ("4k4/9/9/p1p1p1p1p/p8/9/9/9/9/4K4 w".into(), too_many(black, PieceKind::Pawn, 6), "6 pawns"),
        ("4k4/9/9/9/9/9/9/C1C1C4/9/4K4 w".into(), too_many(red, PieceKind::Cannon, 3), "3 cannons"),
        ("3akn3/4a4/3a1n3/9/9/9/9/9/9/4K4 w".into(), too_many(black, PieceKind::Advisor, 3), "3 advisors"),
        ("4k4/9/9/9/9/9/9/4B4/9/2B1KB3 w".into(), too_many(red, PieceKind::Bishop, 3), "3 bishops"),
        ("4k4/9/9/9/9/9/9/9/9/NN2K3N w".into(), too_many(red, PieceKind::Knight, 3), "3 knights"),
        ("4k4/9/9/9/9/9/9/9/4B4/3K5 w".into(), impossible("B", "e1"), "e1"),
        ("4k4/9/9/9/9/9/2B6/9/9/3K5 w".into(), impossible("B", "c3"), "c3"),
        ("4k4/9/9/9/9/2b6/9/9/9/3K5 w".into(), impossible("b", "c4"), "c4"),
        ("4k4/9/9/9/9/9/9/P8/9/3K5 w".into(), impossible("P", "a2"), "a2"),
        ("4k4/9/9/9/9/9/1P7/9/9/3K5 w".into(), impossible("P", "b3"), "b3"),
        ("4k4/p8/9/9/9/9/9/9/9/3K5 w".into(), impossible("p", "a8"), "a8"),
        ("4k4/9/9/9/9/9/9/9/9/2K6 w".into(), impossible("K", "c0"), "c0"),
        ("4k4/9/9/9/9/9/9/9/9/3KA4 w".into(), impossible("A", "e0"), "e0"),
        ("3k5/3R5/9/9/9/9/9/9/9/4K4 w".into(), FenError::SideNotToMoveInCheck(black), "Black"),
        ("3k5/9/9/9/9/9/9/9/4r4/4K4 b".into(), FenError::SideNotToMoveInCheck(red), "Red"),
        ("3k5/9/9/9/9/9/9/3n5/9/4K4 b".into(), FenError::SideNotToMoveInCheck(red), "check"),
        ("4k4/9/9/9/4P4/9/9/4C4/9/3K5 w".into(), FenError::SideNotToMoveInCheck(black), "in check"),
        ("4k4/9/9/9/9/9/9/9/9/4K4 w".into(), FenError::KingsFacing, "face"),
        ("5k3/9/9/9/9/9/9/9/5K3/9 b".into(), FenError::KingsFacing, "open file"),
    ];
    for (fen, expected, needle) in cases {
        let err = refused(&fen);
        assert_eq!(err, expected, "FEN `{fen}`");
        let message = err.to_string();
        assert!(!message.is_empty(), "FEN `{fen}`: empty message");
        assert!(message.contains(needle), "FEN `{fen}`: message `{message}` does not mention `{needle}`");
    }
}

fn counter(value: &str) -> FenError {
    FenError::Counter { field: "the no-capture ply counter", value: value.into() }
}

fn move_number(value: &str) -> FenError {
    FenError::Counter { field: "the move number", value: value.into() }
}

fn too_many(color: Color, kind: PieceKind, count: u32) -> FenError {
    FenError::TooMany { color, kind, count, max: kind.max_count() }
}

fn impossible(letter: &str, square: &str) -> FenError {
    let piece = engine::Piece::from_char(letter.chars().next().expect("a letter")).expect("a piece letter");
    FenError::ImpossibleSquare { piece, square: square.parse().expect("a square name") }
}

/// Inputs with no sensible error kind to pin down: each must be an `Err` with a message,
/// never a panic or an accepted position.
#[test]
fn garbage_is_refused_without_panicking() {
    let long_digits = "9".repeat(10_000);
    let garbage = [
        "/",
        "//////////",
        "/////////",
        "\u{0}",
        "\u{feff}rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        "车马象士将士象马车/9/1炮5炮1/卒1卒1卒1卒1卒/9/9/兵1兵1兵1兵1兵/1炮5炮1/9/车马相仕帅仕相马车 w",
        "🐉🐉🐉",
        "ｒｎｂａｋａｂｎｒ/9/9/9/9/9/9/9/9/4K4",
        "4k4\u{3000}9/9/9/9/9/9/9/9/4K4 w",
        "4k4/9/9/9/9/9/9/9/9/4K4/ w",
        "4k4/9/9/9/9/9/9/9/9/4K4/9 w",
        "-4k4/9/9/9/9/9/9/9/9/4K4 w",
        "4k4/9/9/9/9/9/9/9/9/+3K4 w",
        "w - - 0 1",
        "- - - - -",
        &long_digits,
    ];
    for fen in garbage {
        let result = std::panic::catch_unwind(|| Position::from_fen(fen));
        let Ok(result) = result else { panic!("from_fen panicked on {fen:?}") };
        let Err(err) = result else { panic!("accepted {fen:?}") };
        assert!(!err.to_string().is_empty(), "{fen:?}");
    }
}

/// Huge counters must never overflow inside the parser (a panic in debug builds, a wrong
/// move number in release ones): move numbers above 2^30 are refused, a no-capture count
/// above what the position stores is kept at its maximum, and play goes on from both.
#[test]
fn huge_counters_are_refused_or_kept_consistently() {
    for counters in ["0 4294967295", "0 2147483649", "0 1073741825"] {
        for side in ["w", "b"] {
            let fen = format!("{START_PLACEMENT} {side} - - {counters}");
            let result = std::panic::catch_unwind(|| Position::from_fen(&fen));
            let Ok(result) = result else { panic!("from_fen panicked on `{fen}`") };
            let err = result.expect_err("a move number above 2^30");
            assert!(matches!(&err, FenError::Counter { field, .. } if field.contains("move number")), "{err:?}");
            let value = counters.split(' ').nth(1).expect("two counters");
            assert!(err.to_string().contains(value), "`{err}` does not name {value}");
        }
    }
    for (counters, written) in [("0 1073741824", "0 1073741824"), ("70000 5", "65535 5"), ("65535 1", "65535 1")] {
        for side in ["w", "b"] {
            let fen = format!("{START_PLACEMENT} {side} - - {counters}");
            let mut pos = assert_round_trip(&fen);
            assert_eq!(pos.fen(), format!("{START_PLACEMENT} {side} - - {written}"));
            let fullmove = pos.fullmove();
            for _ in 0..4 {
                let m = pos.legal_moves()[0];
                pos.play_unchecked(m);
            }
            assert_eq!(pos.fullmove(), fullmove + 2);
            assert_eq!(pos.key(), pos.compute_key());
        }
    }
}

fn assert_round_trip(fen: &str) -> Position {
    let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("`{fen}` refused: {e}"));
    let written = pos.fen();
    let again = Position::from_fen(&written).unwrap_or_else(|e| panic!("`{written}` (from `{fen}`) refused: {e}"));
    assert!(again == pos, "`{fen}` -> `{written}` changed the position");
    assert_eq!(again.key(), pos.key(), "`{fen}` -> `{written}` changed the key");
    assert_eq!(again.fen(), written, "fen() is not stable for `{fen}`");
    pos
}

#[test]
fn valid_fens_round_trip() {
    let perft = read_shared("perft.txt");
    let mut count = 0;
    for line in data_lines(&perft) {
        let fen = line.split(';').next().expect("a FEN field").trim();
        assert_eq!(assert_round_trip(fen).fen(), fen, "a canonical FEN is written back unchanged");
        count += 1;
    }
    assert!(count >= 30, "only {count} perft FENs");
    assert_eq!(assert_round_trip(START_FEN).fen(), START_FEN);
}

#[test]
fn side_letters_missing_fields_and_alternative_piece_letters() {
    let start = Position::startpos();
    // (input, the FEN it must be written back as)
    let cases = [
        (format!("{START_PLACEMENT} r - - 0 1"), START_FEN.to_owned()),
        (format!("{START_PLACEMENT} R - - 0 1"), START_FEN.to_owned()),
        (START_PLACEMENT.to_owned(), START_FEN.to_owned()),
        (format!("{START_PLACEMENT} w"), START_FEN.to_owned()),
        (format!("{START_PLACEMENT} w - -"), START_FEN.to_owned()),
        (format!("{START_PLACEMENT} w - - 7"), format!("{START_PLACEMENT} w - - 7 1")),
        (format!("{START_PLACEMENT} w - - - -"), START_FEN.to_owned()),
        (format!("  {START_PLACEMENT}   w  -  -  0  1  "), START_FEN.to_owned()),
        (format!("{START_PLACEMENT} b"), format!("{START_PLACEMENT} b - - 0 1")),
        (format!("{START_PLACEMENT} b - - 3 12"), format!("{START_PLACEMENT} b - - 3 12")),
        // Move number 0 is read as 1, as Pikafish does.
        (format!("{START_PLACEMENT} w - - 0 0"), START_FEN.to_owned()),
        ("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w - - 0 1".to_owned(), START_FEN.to_owned()),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKABNR".to_owned(), START_FEN.to_owned()),
    ];
    for (input, expected) in &cases {
        let pos = assert_round_trip(input);
        assert_eq!(&pos.fen(), expected, "`{input}`");
        let canonical = Position::from_fen(expected).expect("valid");
        assert!(pos == canonical, "`{input}` differs from `{expected}`");
        assert_eq!(pos.key(), canonical.key(), "`{input}`");
    }
    let black = Position::from_fen(&format!("{START_PLACEMENT} b")).expect("valid");
    assert_eq!(black.side_to_move(), Color::Black);
    assert_ne!(black.key(), start.key(), "side to move is part of the key");
    let red = Position::from_fen(&format!("{START_PLACEMENT} r")).expect("valid");
    assert_eq!(red.side_to_move(), Color::Red);
    assert_eq!(red.key(), start.key());
}

/// The characters a FEN is made of, plus a few that are not, in any order.
fn fen_like() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[rnbakcpehRNBAKCPEH0-9/ wbr\\-xQ将]{0,120}").expect("a valid regex")
}

/// A valid FEN with one character replaced, inserted or deleted.
fn mutated_fen() -> impl Strategy<Value = String> {
    let alphabet: Vec<char> = "rnbakcpehRNBAKCPEH0123456789/ wbr-xQ将".chars().collect();
    (0usize..4, any::<prop::sample::Index>(), prop::sample::select(alphabet), 0u8..3).prop_map(|(which, at, c, op)| {
        let base = [
            START_FEN,
            "4k4/9/9/9/9/9/5p3/4B4/3N5/4K4 w - - 0 1",
            "2bak4/9/3a5/p2Np3p/3n1P3/3pc3P/P4r1c1/B2CC2R1/4A4/3AK1B2 b - - 0 1",
            "3k5/9/3R5/9/9/9/9/9/9/4K4 b - - 0 1",
        ][which];
        let mut chars: Vec<char> = base.chars().collect();
        let i = at.index(chars.len());
        match op {
            0 => chars[i] = c,
            1 => chars.insert(i, c),
            _ => {
                chars.remove(i);
            }
        }
        chars.into_iter().collect()
    })
}

/// On any input, `from_fen` returns (never panics); on success the position round trips
/// and move generation works.
fn check_any_input(text: &str) -> Result<(), TestCaseError> {
    let result = std::panic::catch_unwind(|| Position::from_fen(text));
    prop_assert!(result.is_ok(), "from_fen panicked on {:?}", text);
    match result.expect("checked above") {
        Ok(pos) => {
            let written = pos.fen();
            let again = Position::from_fen(&written);
            prop_assert!(again.as_ref().is_ok_and(|p| *p == pos), "{:?} -> {} does not round trip", text, written);
            let _ = pos.legal_moves();
        }
        Err(e) => prop_assert!(!e.to_string().is_empty()),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        check_any_input(&text)?;
    }

    #[test]
    fn fen_alphabet_soup_never_panics(text in fen_like()) {
        check_any_input(&text)?;
    }

    #[test]
    fn near_valid_fens_never_panic(text in mutated_fen()) {
        check_any_input(&text)?;
    }
}
