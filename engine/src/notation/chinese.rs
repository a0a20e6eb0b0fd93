//! Chinese notation: piece character, its file, 进/退/平, then the destination file or the
//! number of ranks: 炮二平五, 马８进７. Files count 1-9 from the mover's right; Red's numbers
//! are written 一..九, Black's in full-width digits １..９.
//!
//! Written (one canonical form per move):
//! - Red 帅 仕 相 马 车 炮 兵, Black 将 士 象 马 车 炮 卒;
//! - two like pieces on one file: 前/后 replace the file and come before the piece:
//!   前车进一, 后炮平五; advisors and bishops keep their file (仕六进五, 相七退五), since the
//!   direction already tells which of the two moves;
//! - three pawns on a file: 前兵, 中兵, 后兵;
//! - pawns stacked on two files ("tandem", two or more on each): the mover's file number goes
//!   first: 七前兵, 三中兵, ３后卒;
//! - four or five pawns on a file: their place from the front as a Chinese ordinal, for
//!   either side: 一兵, 二兵, 三兵, 四兵, 五兵 (一卒 .. 五卒).
//!
//! Read, besides the above: the traditional and the red-side forms 帥 將 傌 馬 俥 伡 車 砲 包
//! 仕 士 相 象 and 進 後 (Taiwanese and Hong Kong sources); 前仕/后象 for advisors and bishops;
//! piece characters of either
//! side for either side (printed sources often write 士 and 象 for Red); numbers 一..九,
//! １..９ or 1..9 for either side; spaces between characters; an ordinal for any stack it
//! fits; and the plain file form where 前/后 would be written (仕六进五), when only one of the
//! pieces on that file has such a move. For an odd stack of pawns the file form means the
//! middle one. Only a move legal in the position is returned.

use super::describe::{self, Direction, Origin, Pattern, Pick, Selector};
use crate::position::Position;
use crate::types::{Color, Move, PieceKind};

const CHINESE_NUMERALS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
const FULL_WIDTH_DIGITS: [char; 9] = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];

pub fn write(pos: &Position, m: Move) -> String {
    let Some(d) = describe::describe(pos, m) else {
        return m.to_string();
    };
    let piece = piece_char(d.color, d.kind);
    let head = match d.origin {
        Origin::File(file) => format!("{piece}{}", number(d.color, file)),
        Origin::Stack { file, index, count, tandem } => {
            let place = match (count, index) {
                (2 | 3, 0) => '前',
                (2 | 3, i) if i + 1 == count => '后',
                (3, _) => '中',
                (_, i) => CHINESE_NUMERALS[i.min(8)],
            };
            if tandem { format!("{}{place}{piece}", number(d.color, file)) } else { format!("{place}{piece}") }
        }
    };
    let op = match d.direction {
        Direction::Forward => '进',
        Direction::Backward => '退',
        Direction::Sideways => '平',
    };
    format!("{head}{op}{}", number(d.color, d.arg))
}

/// Reads a legal move of `pos` (the tests' way in; the notation module reads by [`pattern`]).
#[cfg(test)]
pub fn parse(pos: &Position, text: &str) -> Result<Move, String> {
    describe::find(pos, &pattern(text)?)
}

/// What the text says about its move, before the position is asked which move that is.
pub fn pattern(text: &str) -> Result<Pattern, String> {
    let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    if chars.len() < 4 {
        return Err("too short for Chinese notation: expected four or five characters, as in 炮二平五".into());
    }
    let (head, tail) = chars.split_at(chars.len() - 2);
    let direction = match tail[0] {
        '进' | '進' => Direction::Forward,
        '退' => Direction::Backward,
        '平' => Direction::Sideways,
        c => {
            return Err(format!("`{c}` is not a direction: expected 进 (forward), 退 (backward) or 平 (sideways)"));
        }
    };
    let arg = numeral(tail[1])
        .ok_or_else(|| format!("`{}` is not a file or number of ranks 1-9 (一..九, １..９ or 1..9)", tail[1]))?;
    let (kind, selector) = parse_piece(head)?;
    Ok(Pattern { kind, selector, direction, arg })
}

fn piece_char(color: Color, kind: PieceKind) -> char {
    match (color, kind) {
        (Color::Red, PieceKind::King) => '帅',
        (Color::Black, PieceKind::King) => '将',
        (Color::Red, PieceKind::Advisor) => '仕',
        (Color::Black, PieceKind::Advisor) => '士',
        (Color::Red, PieceKind::Bishop) => '相',
        (Color::Black, PieceKind::Bishop) => '象',
        (_, PieceKind::Knight) => '马',
        (_, PieceKind::Rook) => '车',
        (_, PieceKind::Cannon) => '炮',
        (Color::Red, PieceKind::Pawn) => '兵',
        (Color::Black, PieceKind::Pawn) => '卒',
    }
}

fn kind(c: char) -> Option<PieceKind> {
    Some(match c {
        '帅' | '帥' | '将' | '將' => PieceKind::King,
        '仕' | '士' => PieceKind::Advisor,
        '相' | '象' => PieceKind::Bishop,
        '马' | '馬' | '傌' => PieceKind::Knight,
        '车' | '車' | '俥' | '伡' => PieceKind::Rook,
        '炮' | '砲' | '包' => PieceKind::Cannon,
        '兵' | '卒' => PieceKind::Pawn,
        _ => return None,
    })
}

/// A file or rank count in `color`'s numerals.
fn number(color: Color, n: u8) -> char {
    let digits = match color {
        Color::Red => &CHINESE_NUMERALS,
        Color::Black => &FULL_WIDTH_DIGITS,
    };
    digits[usize::from(n.clamp(1, 9)) - 1]
}

/// 1-9 from a Chinese numeral, a full-width digit or an ASCII digit.
fn numeral(c: char) -> Option<u8> {
    let at = |set: &[char; 9]| set.iter().position(|&d| d == c);
    let index = at(&CHINESE_NUMERALS).or_else(|| at(&FULL_WIDTH_DIGITS)).or_else(|| {
        let d = c.to_digit(10)?;
        (1..=9).contains(&d).then(|| d as usize - 1)
    })?;
    u8::try_from(index + 1).ok()
}

fn place(c: char) -> Option<Pick> {
    match c {
        '前' => Some(Pick::Front),
        '后' | '後' => Some(Pick::Rear),
        '中' => Some(Pick::Middle),
        _ => None,
    }
}

/// Reads the part before the direction: which piece moves.
fn parse_piece(head: &[char]) -> Result<(PieceKind, Selector), String> {
    let stack = |file, pick| Selector::Stack { file, pick };
    let found = match *head {
        [a, b] => kind(a)
            .zip(numeral(b))
            .map(|(k, f)| (k, Selector::File(f)))
            .or_else(|| place(a).zip(kind(b)).map(|(p, k)| (k, stack(None, p))))
            .or_else(|| numeral(a).zip(kind(b)).map(|(n, k)| (k, stack(None, Pick::Nth(n))))),
        [a, b, c] => numeral(a).zip(place(b)).zip(kind(c)).map(|((f, p), k)| (k, stack(Some(f), p))),
        _ => None,
    };
    found.ok_or_else(|| {
        let shown: String = head.iter().collect();
        if head.iter().any(|&c| kind(c).is_some()) {
            format!("cannot tell which piece `{shown}` means: expected 炮二, 前车, 中兵, 二兵 or 七前兵")
        } else {
            format!("`{shown}` names no piece: expected one of 帅 将 仕 士 相 象 马 车 炮 兵 卒")
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
        check(start, "h2e2", "炮二平五");
        check(start, "b0c2", "马八进七");
        check(start, "i0i1", "车一进一");
        check(start, "f0e1", "仕四进五");
        check(start, "g0e2", "相三进五");
        check(start, "e0e1", "帅五进一");
        check(start, "g3g4", "兵三进一");
        check(START_AFTER_C2_5, "h9g7", "马８进７");
        check(START_AFTER_C2_5, "b9c7", "马２进３");
        check(START_AFTER_C2_5, "c9e7", "象３进５");
        check(START_AFTER_C2_5, "e9e8", "将５进１");
        check(START_AFTER_C2_5, "c6c5", "卒３进１");
        let p = pos(start);
        for text in ["炮2平5", "炮２平５", "砲二平五", " 炮 二 平 五 "] {
            assert_eq!(parse(&p, text), Ok(mv("h2e2")), "{text}");
        }
        assert_eq!(parse(&p, "傌八進七"), Ok(mv("b0c2")));
        assert_eq!(parse(&p, "象三进五"), Ok(mv("g0e2")));
        let black = pos(START_AFTER_C2_5);
        assert_eq!(parse(&black, "馬8进7"), Ok(mv("h9g7")));
        assert_eq!(parse(&black, "马八进七"), Ok(mv("h9g7")));
    }

    #[test]
    fn front_and_rear() {
        let red = "3k4r/9/8r/9/9/7C1/9/R6C1/9/R4K3 w - - 0 1";
        check(red, "a2g2", "前车平三");
        check(red, "a0a1", "后车进一");
        check(red, "h2e2", "后炮平五");
        check(red, "h4h3", "前炮退一");
        assert_eq!(parse(&pos(red), "後车进一"), Ok(mv("a0a1")));
        assert_eq!(parse(&pos(red), "车九平三"), Ok(mv("a2g2")));
        let black = "3k4r/9/8r/9/9/9/9/R8/9/R4K3 b - - 0 1";
        check(black, "i7c7", "前车平３");
        check(black, "i9i8", "后车进１");
    }

    #[test]
    fn stacked_pawns() {
        let three = "9/4k4/6P2/6P2/6P2/9/9/9/9/3K5 w - - 0 1";
        check(three, "g7f7", "前兵平四");
        check(three, "g6f6", "中兵平四");
        check(three, "g5h5", "后兵平二");
        let black = "3k5/9/9/9/9/2p6/2p6/2p6/9/4K4 b - - 0 1";
        check(black, "c2d2", "前卒平４");
        check(black, "c3b3", "中卒平２");
        check(black, "c4d4", "后卒平４");
    }

    #[test]
    fn tandem_pawns_name_the_file_first() {
        let fen = "9/4k4/6P2/2P3P2/2P3P2/9/9/9/9/3K5 w - - 0 1";
        check(fen, "c6b6", "七前兵平八");
        check(fen, "c5d5", "七后兵平六");
        check(fen, "g7f7", "三前兵平四");
        check(fen, "g6f6", "三中兵平四");
        check(fen, "g5f5", "三后兵平四");
        let p = pos(fen);
        assert_eq!(parse(&p, "中兵平四"), Ok(mv("g6f6")));
        assert!(parse(&p, "前兵进一").unwrap_err().contains("ambiguous"));
    }

    #[test]
    fn four_and_five_pawns_count_from_the_front() {
        let five = "6P2/4k1P2/6P2/6P2/6P2/9/9/9/9/3K5 w - - 0 1";
        let expected = ["一兵平四", "二兵平四", "三兵平四", "四兵平四", "五兵平四"];
        for (uci, chinese) in ["g9f9", "g8f8", "g7f7", "g6f6", "g5f5"].into_iter().zip(expected) {
            check(five, uci, chinese);
        }
        let four = "9/4k1P2/6P2/P5P2/6P2/9/9/9/9/3K5 w - - 0 1";
        check(four, "g8f8", "一兵平四");
        check(four, "g5f5", "四兵平四");
        check(four, "a6a7", "兵九进一");
        assert!(parse(&pos(four), "五兵平四").unwrap_err().contains("number 5 from the front"));
    }

    #[test]
    fn advisors_and_bishops_keep_their_file_on_a_shared_file() {
        let advisors = "3k5/9/9/9/9/9/9/3A5/9/3A1K3 w - - 0 1";
        check(advisors, "d0e1", "仕六进五");
        check(advisors, "d2e1", "仕六退五");
        assert_eq!(parse(&pos(advisors), "前仕退五"), Ok(mv("d2e1")));
        assert_eq!(parse(&pos(advisors), "後仕進五"), Ok(mv("d0e1")));
        let bishops = "3k2b2/9/9/9/6b2/2B6/9/9/9/2B1K4 b - - 0 1";
        check(bishops, "g9e7", "象７进５");
        check(bishops, "g5e7", "象７退５");
        assert_eq!(parse(&pos(bishops), "前象退５"), Ok(mv("g5e7")));
    }

    #[test]
    fn traditional_characters_and_full_width_digits() {
        let p = pos(crate::START_FEN);
        for (text, uci) in [
            ("炮二平五", "h2e2"),
            ("砲２平５", "h2e2"),
            ("炮２平５", "h2e2"),
            ("傌８進７", "b0c2"),
            ("馬二進三", "h0g2"),
            ("俥一進一", "i0i1"),
            ("伡９进１", "a0a1"),
            ("帥５進１", "e0e1"),
            ("士４進５", "f0e1"),
            ("象３進５", "g0e2"),
        ] {
            assert_eq!(parse(&p, text), Ok(mv(uci)), "{text}");
        }
        let black = pos(START_AFTER_C2_5);
        for (text, uci) in
            [("將5進1", "e9e8"), ("車９進１", "i9i8"), ("包８平５", "h7e7"), ("砲8平5", "h7e7"), ("砲二平五", "b7e7")]
        {
            assert_eq!(parse(&black, text), Ok(mv(uci)), "{text}");
        }
    }

    #[test]
    fn errors_name_what_is_wrong() {
        let p = pos(crate::START_FEN);
        let err = |text: &str| parse(&p, text).unwrap_err();
        assert!(err("炮二平").contains("too short"));
        assert!(err("炮二走五").contains("`走` is not a direction"));
        assert!(err("炮二平十").contains("`十` is not a file"));
        assert!(err("猫二平五").contains("names no piece"));
        assert!(err("二炮前平五").contains("cannot tell which piece"));
        assert!(err("前车进一").contains("share a file"));
        assert!(err("马五进三").contains("no knight on file 5"));
        assert!(err("马二平三").contains("never moves sideways"));
        assert!(err("车一进三").contains("illegal"));
        assert!(err("C2.5").contains("`.` is not a direction"));
    }
}
