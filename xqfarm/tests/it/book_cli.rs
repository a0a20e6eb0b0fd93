//! `xqfarm book build` over the games a local SPRT wrote, then `book show`; bad input named.

use std::process::{Command, Output};

fn xqfarm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xqfarm")).args(args).output().expect("xqfarm runs")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// A local SPRT of the default against material-only at depth 2 into `dir`, from `openings`
/// (the shipped suite when `None`).
fn local_sprt(dir: &str, openings: Option<&str>) -> Output {
    let mut args = vec!["sprt", "--base", "material-only", "--candidate", "default", "--tc", "depth=2"];
    args.extend(["--concurrency", "2", "--local", "--dir", dir]);
    if let Some(file) = openings {
        args.extend(["--openings", file]);
    }
    xqfarm(&args)
}

#[test]
fn a_book_from_the_farms_games() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path().to_str().expect("utf-8");
    let farm = format!("{d}/farm");
    let o = local_sprt(&farm, None);
    assert!(o.status.code().is_some_and(|c| c <= 1), "{}", text(&o));
    let data = format!("{farm}/data");
    let build = |min: &str, out: &str| {
        let o = xqfarm(&["book", "build", "--data", &data, "--min-games", min, "--max-ply", "8", "--out", out]);
        let t = text(&o);
        assert!(o.status.success(), "{t}");
        assert!(t.contains(" positions, ") && t.contains(out), "{t}");
        t
    };
    let count = |t: &str, what: &str| -> u64 {
        t.split(what).next().and_then(|s| s.rsplit(' ').next()).and_then(|n| n.parse().ok()).expect("a count")
    };
    let all = format!("{d}/all.xqb");
    let book = format!("{d}/book.xqb");
    let out_all = build("1", &all);
    let out = build("2", &book);
    assert!(count(&out, " moves (") < count(&out_all, " moves ("), "{out}\n{out_all}");
    // Every game from the most common start adds one to exactly one of its first moves.
    let line = out_all.lines().find(|l| l.starts_with("most common start position")).expect("a start");
    let (head, fen) = line.split_once("games): ").expect("games and FEN");
    let games: u32 = head.rsplit('(').next().and_then(|n| n.trim().parse().ok()).expect("games");
    let o = xqfarm(&["book", "show", "--book", &all, "--fen", fen.trim()]);
    let shown = text(&o);
    assert!(o.status.success(), "{shown}");
    let firsts: u32 = shown
        .lines()
        .skip(1)
        .map(|row| row.split_whitespace().nth(2).and_then(|g| g.parse::<u32>().ok()).expect("a games column"))
        .sum();
    assert_eq!(firsts, games, "{shown}");

    // The default suite's lines were not the players' choice: the book has no move at the
    // start, and a suite from it is refused saying so.
    let o = xqfarm(&["openings", "generate", "--from-book", &all, "--count", "3", "--depth", "2"]);
    assert!(!o.status.success() && text(&o).contains("no move in the initial position"), "{}", text(&o));
    // Games from the initial position itself give a book whose lines start there.
    let start_only = format!("{d}/startpos.txt");
    std::fs::write(&start_only, "startpos\n").expect("write");
    let farm2 = format!("{d}/farm2");
    let o = local_sprt(&farm2, Some(&start_only));
    assert!(o.status.code().is_some_and(|c| c <= 1), "{}", text(&o));
    let from_start = format!("{d}/start.xqb");
    let data2 = format!("{farm2}/data");
    let o = xqfarm(&["book", "build", "--data", &data2, "--min-games", "1", "--max-ply", "8", "--out", &from_start]);
    assert!(o.status.success(), "{}", text(&o));
    // A suite from the book's most played lines: each a legal line of 1 to 4 plies, distinct.
    let suite = format!("{d}/suite.txt");
    let o = xqfarm(&[
        "openings",
        "generate",
        "--from-book",
        &from_start,
        "--count",
        "3",
        "--book-plies",
        "4",
        "--depth",
        "2",
        "--margin",
        "10000",
        "--out",
        &suite,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let lines: Vec<String> = std::fs::read_to_string(&suite)
        .expect("the suite")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    assert!(!lines.is_empty() && lines.len() <= 3, "{lines:?}");
    let mut ends = std::collections::HashSet::new();
    for l in &lines {
        let parsed = engine::OpeningLine::parse(l).expect("a legal suite line");
        assert!((1..=4).contains(&parsed.moves.len()), "{l}");
        assert!(ends.insert(parsed.position.key()), "{l} repeats a position");
    }
    let bad = xqfarm(&["openings", "generate", "--from-book", &format!("{d}/nope.xqb")]);
    assert!(!bad.status.success() && text(&bad).contains("nope.xqb"), "{}", text(&bad));

    let bad = xqfarm(&["book", "build", "--data", &data, "--run", "999", "--out", &book]);
    assert!(!bad.status.success() && text(&bad).contains("run 999"), "{}", text(&bad));
    let bad = xqfarm(&["book", "build", "--data", &data, "--max-ply", "0", "--out", &book]);
    assert!(!bad.status.success() && text(&bad).contains("--max-ply 0"), "{}", text(&bad));
    let bad = xqfarm(&["book", "show", "--book", &format!("{d}/nope.xqb")]);
    assert!(!bad.status.success() && text(&bad).contains("nope.xqb"), "{}", text(&bad));
}
