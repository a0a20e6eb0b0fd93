//! `xqfarm import pgn` as a user runs it on a real farm's games: a run played on the embedded
//! farm, exported by `xqfarm export pgn` in WXF, Chinese and ICCS, imports to the same moves and
//! results in each notation; a second import of a file is a no-op; the imported run is read
//! back by `export pgn` like any run.

use std::path::Path;
use std::process::{Command, Output};

/// The first imported run's id (`proto::domain::RunId::FIRST_IMPORTED`).
const FIRST_IMPORTED: &str = "8388608";

fn xqfarm(args: &[&str]) -> Output {
    let out =
        Command::new(env!("CARGO_BIN_EXE_xqfarm")).env("XQFARM_LOG", "warn").args(args).output().expect("xqfarm runs");
    assert!(
        out.status.success(),
        "xqfarm {args:?}: {}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// Each game of a PGN text as its result and moves; tags other than the result and comments
/// (the export marks the suite's moves `{book}`) dropped.
fn games_of(pgn: &str) -> Vec<(String, String)> {
    let mut games = Vec::new();
    for game in pgn.split("[Event ").skip(1) {
        let result = game
            .lines()
            .find_map(|l| l.strip_prefix("[Result \"").and_then(|r| r.strip_suffix("\"]")))
            .expect("a result tag")
            .to_owned();
        let body = game.split_once('\n').map_or("", |(_, rest)| rest);
        let moves: Vec<&str> = body.lines().filter(|l| !l.starts_with('[') && !l.trim().is_empty()).collect();
        games.push((result, moves.join(" ").replace(" {book}", "")));
    }
    games
}

#[test]
fn a_farms_games_exported_in_each_notation_import_to_the_same_moves_and_results() {
    let dir = tempfile::tempdir().expect("tempdir");
    let farm = dir.path().join("farm");
    let played = Command::new(env!("CARGO_BIN_EXE_xqfarm"))
        .env("XQFARM_LOG", "warn")
        .args(["sprt", "--candidate", "default", "--base", "material-only", "--tc", "depth=2", "--concurrency", "2"])
        .args(["--max-games", "16", "--dir", path(&farm)])
        .output()
        .expect("xqfarm runs");
    // H1 (0) or the game cap (3): either way the games are in the farm's data.
    assert!(matches!(played.status.code(), Some(0 | 3)), "{}", String::from_utf8_lossy(&played.stderr));
    let data = farm.join("data");
    let export = |data: &Path, run: &str, notation: &str| -> String {
        let out = xqfarm(&["export", "pgn", "--data", path(data), "--run", run, "--notation", notation]);
        String::from_utf8(out.stdout).expect("UTF-8 PGN")
    };
    let original = games_of(&export(&data, "1", "iccs"));
    assert!(original.len() >= 2, "{} games", original.len());
    for notation in ["wxf", "chinese", "iccs"] {
        let file = dir.path().join(format!("{notation}.pgn"));
        std::fs::write(&file, export(&data, "1", notation)).expect("written");
        let imported = dir.path().join(format!("imported-{notation}"));
        let out = xqfarm(&["import", "pgn", path(&file), "--data", path(&imported)]);
        let summary = String::from_utf8_lossy(&out.stdout);
        assert!(summary.contains(&format!("{} games", original.len())), "{notation}: {summary}");
        assert_eq!(games_of(&export(&imported, FIRST_IMPORTED, "iccs")), original, "{notation}: moves and results");
        // The same file again: nothing new.
        let again = xqfarm(&["import", "pgn", path(&file), "--data", path(&imported)]);
        let text = format!("{}{}", String::from_utf8_lossy(&again.stdout), String::from_utf8_lossy(&again.stderr));
        assert!(text.contains("already"), "{notation}: a second import is a no-op: {text}");
    }
}
