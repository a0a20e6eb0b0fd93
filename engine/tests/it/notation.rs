//! Black-box notation tests: every legal move of many positions, written in each notation,
//! reads back to the same move (by the named notation and by the guessing reader) and no two
//! moves of a position share a text; bad text is refused with an error, never a panic.
//!
//! Positions come from deterministic random play from the start position, from every FEN of
//! the shared perft file (`../shared/xiangqi/perft.txt`), and from hand-made FENs with pawns
//! stacked three, four and five on a file and in tandem on two files.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::collections::HashSet;
use std::path::PathBuf;

use engine::notation::{Notation, parse_move, parse_move_as, write_move};
use engine::{Error, IllegalMoveReason, Move, Position};

/// Pawns and pieces sharing files, so the stacked forms get exercised.
const STACKED_FENS: [&str; 6] = [
    // Red rooks a0/a2, cannons h2/h4; Black rooks i9/i7.
    "3k4r/9/8r/9/9/7C1/9/R6C1/9/R4K3 w - - 0 1",
    // Three Red pawns on file g.
    "9/4k4/6P2/6P2/6P2/9/9/9/9/3K5 w - - 0 1",
    // Tandem: Red pawns c5, c6 and g5, g6, g7.
    "9/4k4/6P2/2P3P2/2P3P2/9/9/9/9/3K5 w - - 0 1",
    // Five Red pawns on file g; four on g plus one on a.
    "6P2/4k1P2/6P2/6P2/6P2/9/9/9/9/3K5 w - - 0 1",
    "9/4k1P2/6P2/P5P2/6P2/9/9/9/9/3K5 w - - 0 1",
    // Black: three pawns on c, two on g (tandem), advisors stacked on file f.
    "3k1a3/9/5a3/9/9/2p6/2p3p2/2p3p2/9/4K4 b - - 0 1",
];

/// xorshift64: deterministic and dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn shared_dir() -> PathBuf {
    std::env::var_os("XQFARM_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"))
}

fn perft_fens() -> Vec<String> {
    let path = shared_dir().join("xiangqi/perft.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {} (set XQFARM_SHARED): {e}", path.display()));
    let fens: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split(';').next())
        .map(|f| f.trim().to_owned())
        .collect();
    assert!(fens.len() >= 20, "perft file {} looks truncated", path.display());
    fens
}

/// Every legal move of `pos` round-trips in every notation, with distinct texts. Returns the
/// texts written, for coverage checks.
fn check_position(pos: &Position) -> Vec<String> {
    let moves = pos.legal_moves();
    let mut written = Vec::new();
    for notation in Notation::ALL {
        let mut seen = HashSet::new();
        for &m in moves.iter() {
            let text = write_move(pos, m, notation);
            let fen = pos.fen();
            assert_eq!(parse_move_as(pos, &text, notation), Ok(m), "{notation} `{text}` for {m} in {fen}");
            assert_eq!(parse_move(pos, &text), Ok(m), "guessed `{text}` ({notation}) for {m} in {fen}");
            assert!(seen.insert(text.clone()), "{notation} writes `{text}` for two moves in {fen}");
            written.push(text);
        }
    }
    written
}

/// Random walks of up to `plies` from `fen`; returns (positions checked, texts written).
fn walk(fen: &str, rng: &mut Rng, walks: usize, plies: usize) -> (usize, Vec<String>) {
    let start = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    let mut positions = 0;
    let mut texts = Vec::new();
    for _ in 0..walks {
        let mut pos = start.clone();
        for _ in 0..plies {
            texts.extend(check_position(&pos));
            positions += 1;
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play_unchecked(moves[rng.below(moves.len())]);
        }
    }
    (positions, texts)
}

#[test]
fn every_legal_move_round_trips_in_every_notation() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut positions = 0;
    let mut texts = Vec::new();
    let mut run = |fen: &str, walks, plies| {
        let (n, t) = walk(fen, &mut rng, walks, plies);
        positions += n;
        texts.extend(t);
    };
    run(engine::START_FEN, 20, 120);
    for fen in perft_fens() {
        run(&fen, 4, 40);
    }
    for fen in STACKED_FENS {
        run(fen, 6, 30);
    }
    assert!(positions > 3000, "only {positions} positions checked");
    // The stacked forms really were written (and so read back) above.
    let forms =
        ["R+.", "C--", "P3.", "3+.", "7-.", "++.", "--.", "前车", "后炮", "中兵", "三前兵", "五兵", "３后卒", "中卒"];
    for form in forms {
        assert!(texts.iter().any(|t| t.contains(form)), "no move was written with `{form}`");
    }
    for known in ["C2.5", "H8+7", "R1+1", "炮二平五", "马８进７", "马二进三"] {
        assert!(texts.iter().any(|t| t == known), "`{known}` was never written");
    }
}

#[test]
fn the_hand_made_stacks_are_legal_positions() {
    for fen in STACKED_FENS {
        let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert!(!pos.legal_moves().is_empty(), "{fen} has no legal move");
    }
}

const JUNK: [&str; 34] = [
    "",
    " ",
    "x",
    "zzzz",
    "h2",
    "h2e",
    "h2e2e2",
    "j2e2",
    "h2h2",
    "H2-H2",
    "H2E2",
    "H2--E2",
    "R1+0",
    "R1+10",
    "R1*1",
    "R0+1",
    "X2.5",
    "+++1",
    "----",
    "P",
    "C2",
    "R+1",
    "炮",
    "炮二平",
    "炮二平五五",
    "中兵平五",
    "一兵进一",
    "炮十平五",
    "猫二平五",
    "♜♞♝♛",
    "🙂🙂🙂🙂",
    "\u{0}\u{0}\u{0}\u{0}",
    // Full-width forms (`ｈ２ｅ２`, `Ｃ２．５`) are read since archives write them (issue 32):
    // the notation module's own tests hold them to their ASCII moves.
    "Ｃ２．",
    "ｈ２ｅ",
];

#[test]
fn junk_is_refused_by_every_reader() {
    let long = "炮二平五".repeat(300);
    for fen in [engine::START_FEN, STACKED_FENS[2], STACKED_FENS[5]] {
        let pos = Position::from_fen(fen).unwrap();
        for text in JUNK.iter().copied().chain([long.as_str()]) {
            for notation in Notation::ALL {
                assert!(parse_move_as(&pos, text, notation).is_err(), "{notation} read `{text}` in {fen}");
            }
            assert!(parse_move(&pos, text).is_err(), "guessing reader read `{text}` in {fen}");
        }
    }
}

#[test]
fn illegal_and_wrong_side_moves_are_refused_with_reasons() {
    let pos = Position::startpos();
    let not_yours = |text: &str, notation| {
        matches!(
            parse_move_as(&pos, text, notation),
            Err(Error::IllegalMove { reason: IllegalMoveReason::NotYourPiece { .. }, .. })
        )
    };
    assert!(not_yours("h9g7", Notation::Uci));
    assert!(not_yours("H9-G7", Notation::Iccs));
    let reason = |text: &str, notation| match parse_move_as(&pos, text, notation) {
        Err(Error::ParseMove { reason, .. }) => reason,
        other => panic!("`{text}` ({notation}) gave {other:?}"),
    };
    assert!(reason("R1+3", Notation::Wxf).contains("i0i3 is illegal"));
    assert!(reason("R+.3", Notation::Wxf).contains("share a file"));
    assert!(reason("N5+3", Notation::Wxf).contains("no knight on file 5"));
    assert!(reason("车一进三", Notation::Chinese).contains("illegal"));
    assert!(reason("马二平三", Notation::Chinese).contains("never moves sideways"));
    assert!(reason("炮二平五", Notation::Wxf).contains("ASCII"));
    assert!(reason("C2.5", Notation::Chinese).contains("not a direction"));
    // Black's pieces cannot be moved in Red's turn whatever the notation.
    assert!(matches!(parse_move_as(&pos, "e9e8", Notation::Uci), Err(Error::IllegalMove { .. })));
}

#[test]
fn random_text_never_panics_and_only_yields_legal_moves() {
    let alphabet: Vec<char> = concat!(
        "KABENHRCPkabnrcp0123456789+-.=abcdefghi ",
        "帅将仕士相象马车炮兵卒前中后进退平一二三四五六七八九１２３４５６７８９🙂"
    )
    .chars()
    .collect();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let positions: Vec<Position> =
        [engine::START_FEN].into_iter().chain(STACKED_FENS).map(|fen| Position::from_fen(fen).unwrap()).collect();
    let mut accepted = 0;
    for _ in 0..20_000 {
        let pos = &positions[rng.below(positions.len())];
        let legal: Vec<Move> = pos.legal_moves().to_vec();
        // Half pure noise, half a written move with one character replaced.
        let text: String = if rng.below(2) == 0 {
            let len = 1 + rng.below(6);
            (0..len).map(|_| alphabet[rng.below(alphabet.len())]).collect()
        } else {
            let m = legal[rng.below(legal.len())];
            let mut chars: Vec<char> = write_move(pos, m, Notation::ALL[rng.below(4)]).chars().collect();
            let at = rng.below(chars.len());
            chars[at] = alphabet[rng.below(alphabet.len())];
            chars.into_iter().collect()
        };
        let results = Notation::ALL.map(|n| parse_move_as(pos, &text, n)).into_iter().chain([parse_move(pos, &text)]);
        for m in results.flatten() {
            assert!(legal.contains(&m), "`{text}` gave illegal {m} in {}", pos.fen());
            accepted += 1;
        }
    }
    assert!(accepted > 200, "only {accepted} random texts were legal moves: the generator is too narrow");
}
