//! Every case written in `engine/RULES.md` (fenced ```case blocks), played and judged: the
//! document is the test data, so it cannot drift from the code. Each case's moves are played
//! with `try_play`; `judge` must say "ongoing" after every move but the last and give the
//! stated result and reason after the last.

use std::collections::BTreeSet;
use std::path::PathBuf;

use engine::rules::judge;
use engine::{Move, Position, Square};

/// Table rows and exceptions that some case must show.
const REQUIRED: &[&str] = &[
    "row-1",
    "row-2",
    "row-3",
    "row-4",
    "row-5",
    "row-6",
    "row-7",
    "row-8",
    "row-9",
    "checkmate",
    "stalemate",
    "move-limit",
    "mate-on-move-limit",
    "third-occurrence",
    "span",
    "identity",
    "king-never-chased",
    "uncrossed-pawn",
    "crossed-pawn",
    "lower-value-chases-protected",
    "equal-value-protected",
    "no-true-protector",
    "true-protector",
    "false-protector",
    "mutual-chase",
    "check-vs-chase",
    "idle-idle",
    "mixed-classes",
];

#[derive(Debug, Default)]
struct Case {
    line: usize,
    name: String,
    covers: Vec<String>,
    fen: String,
    moves: Vec<String>,
    result: String,
    reason: String,
}

fn rules_md() -> (PathBuf, String) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("RULES.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    (path, text)
}

/// Reads the ```case blocks: `key: value` lines.
fn parse_cases(text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut current: Option<Case> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        match current.as_mut() {
            None if line == "```case" => current = Some(Case { line: i + 1, ..Case::default() }),
            None => {}
            Some(_) if line == "```" => cases.extend(current.take()),
            Some(case) => {
                let (key, value) =
                    line.split_once(':').unwrap_or_else(|| panic!("RULES.md:{}: expected `key: value`", i + 1));
                let value = value.trim().to_owned();
                match key.trim() {
                    "name" => case.name = value,
                    "covers" => case.covers = value.split(',').map(|s| s.trim().to_owned()).collect(),
                    "fen" => case.fen = value,
                    "moves" => case.moves = value.split_whitespace().map(str::to_owned).collect(),
                    "result" => case.result = value,
                    "reason" => case.reason = value,
                    "why" => {}
                    other => panic!("RULES.md:{}: unknown field `{other}`", i + 1),
                }
            }
        }
    }
    assert!(current.is_none(), "RULES.md: unterminated case block");
    cases
}

fn parse_move(text: &str) -> Option<Move> {
    let from: Square = text.get(..2)?.parse().ok()?;
    let to: Square = text.get(2..)?.parse().ok()?;
    Some(Move::new(from, to))
}

fn run(case: &Case) -> Result<(), String> {
    let at = format!("RULES.md:{} `{}`", case.line, case.name);
    for (field, value) in [("fen", &case.fen), ("result", &case.result), ("reason", &case.reason)] {
        if value.is_empty() {
            return Err(format!("{at}: missing `{field}`"));
        }
    }
    let mut pos = Position::from_fen(&case.fen).map_err(|e| format!("{at}: {e}"))?;
    for (i, text) in case.moves.iter().enumerate() {
        let before = judge(&pos);
        if before.is_over() {
            return Err(format!("{at}: the game is already over ({before}) before move {} {text}", i + 1));
        }
        let m = parse_move(text).ok_or_else(|| format!("{at}: `{text}` is not a UCI move"))?;
        pos.try_play(m).map_err(|e| format!("{at}: move {}: {e}", i + 1))?;
    }
    let outcome = judge(&pos);
    let got = (outcome.result.as_str(), outcome.reason.as_str());
    if got != (case.result.as_str(), case.reason.as_str()) {
        return Err(format!("{at}: expected {} ({}), judged {outcome}", case.result, case.reason));
    }
    Ok(())
}

#[test]
fn every_case_in_rules_md_holds() {
    let (path, text) = rules_md();
    let cases = parse_cases(&text);
    assert!(cases.len() >= 25, "{} has only {} cases", path.display(), cases.len());
    let failures: Vec<String> = cases.iter().filter_map(|c| run(c).err()).collect();
    assert!(failures.is_empty(), "{} of {} cases fail:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn cases_cover_every_row_and_exception() {
    let (_, text) = rules_md();
    let cases = parse_cases(&text);
    let covered: BTreeSet<&str> = cases.iter().flat_map(|c| c.covers.iter().map(String::as_str)).collect();
    let missing: Vec<&&str> = REQUIRED.iter().filter(|tag| !covered.contains(**tag)).collect();
    assert!(missing.is_empty(), "no case in RULES.md covers {missing:?}");
    let names: BTreeSet<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.len(), cases.len(), "case names must be unique");
}

#[test]
fn repetition_cases_reach_a_third_occurrence() {
    // A repetition verdict needs the final position twice before in the moves played.
    let (_, text) = rules_md();
    for case in parse_cases(&text)
        .iter()
        .filter(|c| matches!(c.reason.as_str(), "repetition" | "perpetual_check" | "perpetual_chase"))
    {
        let mut pos = Position::from_fen(&case.fen).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let mut keys = vec![pos.key()];
        for text in &case.moves {
            let m = parse_move(text).unwrap_or_else(|| panic!("{}: bad move {text}", case.name));
            pos.try_play(m).unwrap_or_else(|e| panic!("{}: {e}", case.name));
            keys.push(pos.key());
        }
        let last = pos.key();
        let count = keys.iter().filter(|&&k| k == last).count();
        assert_eq!(count, 3, "{}: the final position occurs {count} times", case.name);
    }
}
