//! Faults, with the real `xqfarm` processes: a worker is SIGKILLed mid-batch and the
//! coordinator is SIGKILLed and restarted mid-run. At the end every game is counted exactly
//! once and appears exactly once in Parquet.
//!
//! Slow-ish (the killed worker's lease must time out: 30 s after its last heartbeat); the
//! games are long enough (20,000 nodes a move) that the kill lands mid-batch.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TOKEN: &str = "fault-token";

fn xqfarm() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_xqfarm"));
    c.env("XQFARM_TOKEN", TOKEN).env("XQFARM_LOG", "warn");
    c
}

/// Starts the coordinator and returns it with the address it listens on.
fn start_coordinator(listen: &str, dir: &Path) -> (Child, String) {
    let mut child = xqfarm()
        .args(["serve", "--listen", listen, "--db"])
        .arg(dir.join("farm.db"))
        .arg("--data")
        .arg(dir.join("data"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the coordinator");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let addr = loop {
        let line = lines.next().expect("the coordinator prints its address").expect("utf-8");
        if let Some(rest) = line.strip_prefix("xqfarm coordinator on ") {
            break rest.split_whitespace().next().expect("an address").to_owned();
        }
    };
    // Keep draining stderr so the child never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (child, addr)
}

fn start_worker(url: &str, spool: &Path, name: &str) -> Child {
    xqfarm()
        .args(["worker", "--coordinator", url, "--concurrency", "1", "--name", name, "--spool"])
        .arg(spool)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start a worker")
}

fn run_ok(args: &[&str]) -> String {
    let out = xqfarm().args(args).output().expect("xqfarm runs");
    assert!(out.status.success(), "xqfarm {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

fn show(url: &str, run: &str) -> String {
    let out = xqfarm().args(["run", "show", "--coordinator", url, run]).output().expect("xqfarm runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn games_of(summary: &str) -> u64 {
    summary
        .lines()
        .find_map(|l| l.strip_prefix("games: "))
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn wait_until(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(300));
    }
}

#[test]
fn killed_worker_and_restarted_coordinator_lose_and_double_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let (mut coord, addr) = start_coordinator("127.0.0.1:0", d);
    let url = format!("http://{addr}");

    let params: PathBuf = d.join("a.toml");
    std::fs::write(&params, engine::eval::Params::default().to_toml()).expect("write params");
    let material = d.join("b.toml");
    std::fs::write(&material, engine::eval::Params::material_only().to_toml()).expect("write params");
    let a = run_ok(&["variant", "add", "--coordinator", &url, params.to_str().expect("path")]);
    let b = run_ok(&["variant", "add", "--coordinator", &url, material.to_str().expect("path")]);
    let (a, b) = (a.split_whitespace().next().expect("id"), b.split_whitespace().next().expect("id"));
    let suite_file = d.join("suite.txt");
    std::fs::write(&suite_file, "startpos moves h2e2 h9g7\nstartpos moves c3c4\nstartpos moves b0c2 b9c7\n")
        .expect("suite");
    let suite = run_ok(&["openings", "add", "--coordinator", &url, suite_file.to_str().expect("path")]);
    let suite = suite.split_whitespace().next().expect("suite id").to_owned();
    let pairs = 8u64;
    let run = run_ok(&[
        "run",
        "create",
        "--coordinator",
        &url,
        "--kind",
        "games",
        "--pairs",
        &pairs.to_string(),
        "--tc",
        "nodes=20000",
        "--suite",
        &suite,
        "--variants",
        a,
        b,
    ]);
    let run = run.trim().to_owned();

    // w1 alone takes the first batch (all the pairs fit in one), so killing it lands
    // mid-batch: its lease must time out and only its unfinished pairs be replayed.
    let mut w1 = start_worker(&url, &d.join("spool1"), "w1");
    wait_until("the first games", Duration::from_secs(120), || games_of(&show(&url, &run)) >= 2);
    let mid = games_of(&show(&url, &run));
    assert!(mid < 2 * pairs, "the kill must land mid-run ({mid} games already)");

    // SIGKILL a worker mid-batch, and the coordinator mid-run.
    w1.kill().expect("kill w1");
    let _ = w1.wait();
    coord.kill().expect("kill the coordinator");
    let _ = coord.wait();
    let before = games_of(&show(&url, &run));
    assert_eq!(before, 0, "the coordinator is down");

    // Same port, same database and data.
    let (mut coord, addr2) = start_coordinator(&addr, d);
    assert_eq!(addr2, addr);
    let mut w1 = start_worker(&url, &d.join("spool1"), "w1-restarted");
    let mut w2 = start_worker(&url, &d.join("spool2"), "w2");

    wait_until("the run to complete", Duration::from_secs(400), || show(&url, &run).contains("state: Completed"));
    let summary = show(&url, &run);
    let counted = games_of(&summary);
    assert_eq!(counted, 2 * pairs, "{summary}");

    for w in [&mut w1, &mut w2] {
        let _ = w.kill();
        let _ = w.wait();
    }
    // A graceful stop exports everything recorded.
    let _ = Command::new("kill").args(["-INT", &coord.id().to_string()]).status();
    let _ = coord.wait();

    let run_id: u64 = run.parse().expect("run id");
    let games = coordinator::parquet::read_games(&d.join("data"), run_id).expect("read Parquet");
    assert_eq!(games.len() as u64, counted, "every counted game is in Parquet exactly once");
    let mut per_pair: HashMap<u64, usize> = HashMap::new();
    let mut ids = std::collections::HashSet::new();
    for g in &games {
        *per_pair.entry(g.pair_id).or_default() += 1;
        assert!(ids.insert(g.game_id), "game {} twice", g.game_id);
    }
    assert_eq!(per_pair.len() as u64, pairs);
    assert!(per_pair.values().all(|&n| n == 2), "{per_pair:?}");
}
