//! ECCO classification against `data/ecco_games.txt`: one legal game for every code the
//! classifier can give, each with the code the published decision tree gives it.

use std::collections::BTreeSet;

use engine::ecco;
use engine::notation::{Notation, parse_move_as, write_move};
use engine::{Move, Position};

struct Case {
    line: usize,
    code: String,
    wxf: Vec<String>,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ecco_games.txt"))
        .expect("tests/data/ecco_games.txt is readable");
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| {
            let fields: Vec<&str> = l.split('\t').collect();
            assert_eq!(fields.len(), 3, "line {}: CODE<TAB>moves<TAB>note: {l}", i + 1);
            assert!(!fields[2].trim().is_empty(), "line {}: the source note is missing", i + 1);
            Case {
                line: i + 1,
                code: fields[0].to_owned(),
                wxf: fields[1].split_whitespace().map(str::to_owned).collect(),
            }
        })
        .collect()
}

/// Plays the case's moves from the initial position; every one must be legal.
fn play(case: &Case) -> Vec<Move> {
    let mut pos = Position::startpos();
    case.wxf
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let m = parse_move_as(&pos, text, Notation::Wxf)
                .unwrap_or_else(|e| panic!("line {}: move {} `{text}`: {e}", case.line, i + 1));
            assert_eq!(&write_move(&pos, m, Notation::Wxf), text, "line {}: not our WXF spelling", case.line);
            pos.try_play(m).expect("a parsed move is legal");
            m
        })
        .collect()
}

fn well_formed(code: &str) -> bool {
    let b = code.as_bytes();
    b.len() == 3 && (b'A'..=b'E').contains(&b[0]) && b[1].is_ascii_digit() && b[2].is_ascii_digit()
}

#[test]
fn every_game_gets_its_published_code() {
    let start = Position::startpos();
    let mut wrong = Vec::new();
    for case in cases() {
        let moves = play(&case);
        let by_moves = ecco::classify(&start, &moves).expect("the initial position is classified");
        let by_text = ecco::classify_wxf(&case.wxf);
        assert_eq!(by_moves, by_text, "line {}: Move and WXF input disagree", case.line);
        assert_eq!(ecco::opening(by_text.code), Some(by_text), "line {}: the name is the table's", case.line);
        if by_text.code != case.code {
            wrong.push(format!(
                "line {}: {} expected, got {} for {}",
                case.line,
                case.code,
                by_text.code,
                case.wxf.join(" ")
            ));
        }
    }
    assert!(wrong.is_empty(), "{} games misclassified:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn the_games_cover_exactly_the_codes_the_classifier_can_give() {
    let cases = cases();
    let mut in_file = BTreeSet::new();
    for case in &cases {
        assert!(well_formed(&case.code), "line {}: `{}` is not A00..E99", case.line, case.code);
        assert!(in_file.insert(case.code.clone()), "line {}: {} twice", case.line, case.code);
    }
    let classifier: BTreeSet<String> = ecco::codes().map(str::to_owned).collect();
    assert!(classifier.iter().all(|c| well_formed(c)));
    let untested: Vec<_> = classifier.difference(&in_file).collect();
    let unknown: Vec<_> = in_file.difference(&classifier).collect();
    assert!(untested.is_empty(), "codes with no test game: {untested:?}");
    assert!(unknown.is_empty(), "codes in the file the classifier cannot give: {unknown:?}");
    assert_eq!(classifier.len(), 260);
}

#[test]
fn every_game_on_the_other_wing_is_the_same_opening() {
    for case in cases() {
        let mut pos = Position::startpos();
        let mirrored: Vec<String> = play(&case)
            .into_iter()
            .map(|m| {
                let m = Move::new(m.from().mirror(), m.to().mirror());
                let text = write_move(&pos, m, Notation::Wxf);
                pos.try_play(m).unwrap();
                text
            })
            .collect();
        assert_eq!(ecco::classify_wxf(&mirrored).code, case.code, "line {}: mirrored {mirrored:?}", case.line);
    }
}
