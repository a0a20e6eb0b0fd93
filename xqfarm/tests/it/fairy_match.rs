//! `xqfarm match` against the real Fairy-Stockfish (`/usr/games/fairy-stockfish`, Debian's
//! `fairy-stockfish` 11.1; `.ci/run` installs it): a few game pairs at equal nodes and at a
//! move time, over UCI and UCCI, each game ending by the board or adjudication (an illegal
//! move, no move or an engine error would be a forfeit and is counted as one); and the
//! refusals before any game: an option it did not advertise, an engine not given.

use std::path::Path;
use std::process::{Command, Output};

const FAIRY: &str = "/usr/games/fairy-stockfish";

fn fairy_flag() -> String {
    assert!(
        Path::new(FAIRY).is_file(),
        "{FAIRY} is missing: install Debian's fairy-stockfish (`apt-get install fairy-stockfish`; .ci/run does)"
    );
    format!("fsf={FAIRY}")
}

fn xqfarm_match(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xqfarm"))
        .env("XQFARM_LOG", "warn")
        .env("NO_COLOR", "1")
        .arg("match")
        .args(args)
        .output()
        .expect("runs")
}

/// Plays `pairs` pairs of our default engine against Fairy-Stockfish and checks the summary:
/// every game counted, none forfeited, both sides moved. Returns stdout.
fn play(protocol: &str, tc: &str, pairs: usize) -> String {
    let engine = fairy_flag();
    let pairs_text = pairs.to_string();
    let out = xqfarm_match(&[
        "--a",
        "default",
        "--b",
        "engine:fsf",
        "--engine",
        &engine,
        "--protocol",
        protocol,
        "--option",
        "Hash=16",
        "--option",
        "Threads=1",
        "--tc",
        tc,
        "--pairs",
        &pairs_text,
        "--concurrency",
        "1",
    ]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{protocol} {tc}: {}\n{stderr}", out.status);
    assert!(stderr.contains("engine fsf: Fairy-Stockfish"), "{stderr}");
    let games = 2 * pairs;
    let line = stdout.lines().find(|l| l.starts_with("games ")).unwrap_or_else(|| panic!("no games line:\n{stdout}"));
    let numbers: Vec<u64> = line.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    assert_eq!(numbers.len(), 4, "{line}");
    assert_eq!(numbers[0], games as u64, "{line}");
    assert_eq!(numbers[1] + numbers[2] + numbers[3], games as u64, "{line}");
    let terminations = stdout.lines().find(|l| l.starts_with("terminations: ")).expect("terminations");
    for forfeit in ["illegal_move", "no_move", "time_forfeit", "engine_error"] {
        assert!(!terminations.contains(forfeit), "{protocol} {tc}: {terminations}\n{stderr}");
    }
    for side in ["a", "b"] {
        let moves: u64 = stdout
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{side}: ")))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no moves of {side}:\n{stdout}"));
        assert!(moves as usize >= games, "{side} moved {moves} times in {games} games");
    }
    stdout.into_owned()
}

/// Mean nodes per move of side `b` from the summary.
fn nodes_per_move(stdout: &str, side: &str) -> f64 {
    let line = stdout.lines().find_map(|l| l.strip_prefix(&format!("{side}: "))).expect("a side line");
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "nodes").expect("nodes");
    words[at - 1].parse().expect("a number")
}

#[test]
fn equal_nodes_over_both_protocols() {
    for protocol in ["uci", "ucci"] {
        let stdout = play(protocol, "nodes=3000", 2);
        // Both stop at the limit: Fairy-Stockfish just past it, ours at it.
        for side in ["a", "b"] {
            let nodes = nodes_per_move(&stdout, side);
            assert!((2_000.0..=3_150.0).contains(&nodes), "{protocol}: {side} searched {nodes} nodes per move");
        }
    }
}

#[test]
fn a_move_time_over_uci_and_ucci() {
    play("uci", "movetime=20", 1);
    play("ucci", "movetime=20", 1);
}

#[test]
fn an_option_it_did_not_advertise_is_refused_before_any_game() {
    let engine = fairy_flag();
    for (option, why) in
        [("Hashh=16", "option `Hashh`: the engine did not advertise it"), ("Hash=0", "outside its range")]
    {
        let out = xqfarm_match(&[
            "--a",
            "default",
            "--b",
            "engine:fsf",
            "--engine",
            &engine,
            "--option",
            option,
            "--pairs",
            "1",
            "--concurrency",
            "1",
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{option}: accepted\n{stderr}");
        assert!(stderr.contains(why) && stderr.contains("--b"), "{option}: {stderr}");
        assert!(!String::from_utf8_lossy(&out.stdout).contains("games "), "{option}: games were played");
    }
    // A side naming an engine that was not given.
    let out = xqfarm_match(&["--a", "engine:fsf", "--b", "default", "--pairs", "1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("--a `engine:fsf`: no such --engine"), "{stderr}");
}
