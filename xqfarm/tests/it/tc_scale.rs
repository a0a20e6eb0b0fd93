//! Time controls scaled to each worker, with the real processes: `xqfarm worker --bench-nps N`
//! (and `--nnue-bench-nps M`) registers at that speed (and that speed with a network), and a
//! coordinator given `--reference-nps` (and `--reference-nnue-nps`) records them (listed by
//! `/api/workers`, kept in its database) and leases it the run's move time scaled by the ratio
//! (of the HCE's speeds: the run plays no network); its games, played at the longer move time,
//! are counted. A speed of 0 is refused.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;

use crate::common::Coordinator;

const TOKEN: &str = "tc-scale-token";

fn xqfarm() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_xqfarm"));
    c.env("XQFARM_TOKEN", TOKEN).env("XQFARM_LOG", "warn").env("NO_COLOR", "1");
    c
}

/// `xqfarm serve` on a free port with `extra` flags, once it listens; every line it printed
/// until the two after its address, which say whether time controls are scaled.
fn serve(dir: &Path, extra: &[&str]) -> (Coordinator, Vec<String>) {
    let mut serve = xqfarm();
    serve
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(dir.join("farm.db"))
        .arg("--data")
        .arg(dir.join("data"));
    serve.args(extra);
    Coordinator::spawn(serve, |printed| {
        printed.iter().position(|l| l.starts_with("xqfarm coordinator on ")).is_some_and(|at| printed.len() > at + 2)
    })
}

/// One signed-in HTTP/1.1 GET: the status and the body.
fn get(addr: &str, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("connect");
    let req =
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nAuthorization: Bearer {TOKEN}\r\n\r\n");
    s.write_all(req.as_bytes()).expect("write");
    let mut text = String::new();
    s.read_to_string(&mut text).expect("read");
    let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("a status line");
    let body = text.split_once("\r\n\r\n").map_or("", |(_, body)| body).to_owned();
    (status, body)
}

/// Runs an `xqfarm` command against the coordinator; its stdout's first word.
fn id_of(args: &[&str], url: &str, cwd: &Path) -> String {
    let out = xqfarm().args(args).args(["--coordinator", url]).current_dir(cwd).output().expect("run xqfarm");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).split_whitespace().next().expect("an id").to_owned()
}

#[test]
fn a_worker_given_its_speed_is_recorded_and_plays_the_scaled_move_time() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (coordinator, printed) = serve(dir.path(), &["--reference-nps", "1000000", "--reference-nnue-nps", "250000"]);
    let addr = coordinator.addr.clone();
    assert!(printed.iter().any(|l| l.contains("scaled to each worker's speed against 1000000 nps")), "{printed:?}");
    let nnue = "runs that play a network scaled to each worker's speed with one against 250000 nps";
    assert!(printed.iter().any(|l| l.contains(nnue)), "{printed:?}");
    let url = format!("http://{addr}");
    std::fs::write(dir.path().join("base.toml"), "").expect("base");
    std::fs::write(dir.path().join("weak.toml"), "[material.rook]\nmg = 800\neg = 900\n").expect("weak");
    std::fs::write(dir.path().join("suite.txt"), "startpos moves h2e2 h9g7\n").expect("suite");
    let a = id_of(&["variant", "add", "base.toml"], &url, dir.path());
    let b = id_of(&["variant", "add", "weak.toml"], &url, dir.path());
    let suite = id_of(&["openings", "add", "suite.txt"], &url, dir.path());
    let run_args = ["run", "create", "--kind", "games", "--pairs", "1", "--tc", "movetime=5", "--suite", &suite];
    let run = id_of(&[&run_args[..], &["--variants", &a, &b]].concat(), &url, dir.path());

    // Half the reference speed: the lease's move time is 10 ms (four times the network reference,
    // which does not scale a run that plays no network).
    let out = xqfarm()
        .args(["worker", "--coordinator", &url, "--bench-nps", "500000", "--nnue-bench-nps", "1000000"])
        .args(["--concurrency", "1", "--name", "slow-box"])
        .arg("--spool")
        .arg(dir.path().join("spool"))
        .args(["--max-leases", "1"])
        .output()
        .expect("run the worker");
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(log.contains("500000 nps a game slot"), "the given speed, not a measured one: {log}");
    assert!(log.contains("1000000 with a network"), "{log}");

    let (status, body) = get(&addr, "/api/workers");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""name":"slow-box""#) && body.contains(r#""bench_nps":500000"#), "{body}");
    assert!(body.contains(r#""nnue_bench_nps":1000000"#), "{body}");
    let simd = engine::nnue::SimdLevel::detect().as_str();
    assert!(body.contains(&format!(r#""simd":"{simd}""#)), "the level the worker detected: {body}");
    let db =
        rusqlite::Connection::open_with_flags(dir.path().join("farm.db"), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .expect("open the database");
    let worker: (String, i64, i64, String) = db
        .query_row("SELECT name, bench_nps, nnue_bench_nps, simd FROM workers", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .expect("the worker");
    assert_eq!(worker, ("slow-box".to_owned(), 500_000, 1_000_000, simd.to_owned()));
    let leases: Vec<(i64, i64)> = db
        .prepare("SELECT run_id, tc_scale_permille FROM leases")
        .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .expect("leases");
    assert_eq!(leases, [(run.parse::<i64>().expect("a run id"), 2_000)], "twice the time");
    // Both games, played at the scaled move time, passed the referee and were counted.
    let games: i64 = db.query_row("SELECT COUNT(*) FROM games", [], |r| r.get(0)).expect("games");
    assert_eq!(games, 2);
    drop(db);
    coordinator.stop();
}

#[test]
fn a_coordinator_without_a_reference_says_it_does_not_scale() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (coordinator, printed) = serve(dir.path(), &[]);
    assert!(printed.iter().any(|l| l.contains("time controls not scaled")), "{printed:?}");
    assert!(printed.iter().any(|l| l.contains("runs that play a network not scaled")), "{printed:?}");
    coordinator.stop();
}

#[test]
fn a_speed_of_zero_is_refused_naming_the_flag() {
    let worker = xqfarm()
        .args(["worker", "--coordinator", "http://127.0.0.1:9", "--bench-nps", "0"])
        .output()
        .expect("run the worker");
    let serve = xqfarm().args(["serve", "--reference-nps", "0"]).output().expect("run serve");
    let nnue_worker = xqfarm()
        .args(["worker", "--coordinator", "http://127.0.0.1:9", "--bench-nps", "1", "--nnue-bench-nps", "0"])
        .output()
        .expect("run the worker");
    let nnue_serve = xqfarm().args(["serve", "--reference-nnue-nps", "0"]).output().expect("run serve");
    let fast = xqfarm().args(["worker", "--coordinator", "http://127.0.0.1:9", "--bench-nps", "fast"]).output();
    for (flag, out) in [
        ("--bench-nps", worker),
        ("--reference-nps", serve),
        ("--nnue-bench-nps", nnue_worker),
        ("--reference-nnue-nps", nnue_serve),
    ] {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{flag} 0 was accepted: {err}");
        assert!(err.contains(flag) && err.contains("must be positive"), "{err}");
    }
    let err = String::from_utf8_lossy(&fast.expect("run the worker").stderr).into_owned();
    assert!(err.contains("`fast` is not a whole number of nodes per second"), "{err}");
}
