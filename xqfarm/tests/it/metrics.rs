//! The coordinator's Prometheus metrics with the real processes: `/metrics` on the farm's port
//! needs a token, `serve --metrics-listen` serves it without one, and after a worker played a
//! run the figures are the farm's: games recorded, pending pairs before and none after, no
//! lease left, nothing left to export, RPCs counted by method and code (a call with a wrong
//! token as `Unauthenticated`), and the storage's transactions timed.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::Coordinator;

const TOKEN: &str = "metrics-token";

fn xqfarm() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_xqfarm"));
    c.env("XQFARM_TOKEN", TOKEN).env("XQFARM_LOG", "warn").env("NO_COLOR", "1").env_remove("XQFARM_LOG_FORMAT");
    c
}

/// `xqfarm serve --metrics-listen 127.0.0.1:0`; the coordinator and the metrics' address.
fn serve(dir: &Path) -> (Coordinator, String) {
    let mut serve = xqfarm();
    serve
        .args(["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--db"])
        .arg(dir.join("farm.db"))
        .arg("--data")
        .arg(dir.join("data"));
    let (coordinator, printed) =
        Coordinator::spawn(serve, |printed| printed.iter().any(|l| metrics_address(l).is_some()));
    let metrics = printed.iter().find_map(|l| metrics_address(l)).expect("metrics address").to_owned();
    (coordinator, metrics)
}

/// The metrics' address in the line that announces it.
fn metrics_address(line: &str) -> Option<&str> {
    line.strip_prefix("metrics: http://").and_then(|rest| rest.split('/').next())
}

/// One HTTP/1.1 GET, with `token` as a bearer token if given: the status, the headers and the body.
fn get(addr: &str, path: &str, token: Option<&str>) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).expect("connect");
    let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{auth}\r\n");
    s.write_all(req.as_bytes()).expect("write");
    let mut text = String::new();
    s.read_to_string(&mut text).expect("read");
    let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("a status line");
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (status, head.to_owned(), body.to_owned())
}

/// The value of the sample named exactly `series` (name and labels as written), if present.
fn value(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

fn id_of(args: &[&str], url: &str, cwd: &Path) -> String {
    let out = xqfarm().args(args).args(["--coordinator", url]).current_dir(cwd).output().expect("run xqfarm");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).split_whitespace().next().expect("an id").to_owned()
}

#[test]
fn metrics_need_a_token_on_the_farm_port_and_count_what_the_farm_did() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut coordinator, metrics_addr) = serve(dir.path());
    let addr = coordinator.addr.clone();
    let url = format!("http://{addr}");

    let (status, _, body) = get(&addr, "/metrics", None);
    assert_eq!(status, 401, "no token: {body}");
    let (status, head, body) = get(&addr, "/metrics", Some(TOKEN));
    assert_eq!(status, 200, "{body}");
    assert!(head.to_ascii_lowercase().contains("content-type: text/plain; version=0.0.4"), "{head}");
    assert_eq!(value(&body, "xqfarm_games_total"), Some(0.0), "{body}");

    std::fs::write(dir.path().join("a.toml"), "").expect("a");
    std::fs::write(dir.path().join("b.toml"), "[material.rook]\nmg = 800\neg = 900\n").expect("b");
    std::fs::write(dir.path().join("suite.txt"), "startpos moves h2e2 h9g7\nstartpos moves b2e2 b9c7\n")
        .expect("suite");
    let a = id_of(&["variant", "add", "a.toml"], &url, dir.path());
    let b = id_of(&["variant", "add", "b.toml"], &url, dir.path());
    let suite = id_of(&["openings", "add", "suite.txt"], &url, dir.path());
    let run_args = ["run", "create", "--kind", "games", "--pairs", "4", "--tc", "nodes=500", "--suite", &suite];
    let run = id_of(&[&run_args[..], &["--variants", &a, &b]].concat(), &url, dir.path());
    let pending = format!("xqfarm_pending_pairs{{run=\"{run}\"}}");

    // Without a token on the metrics' own address.
    let (status, _, before) = get(&metrics_addr, "/metrics", None);
    assert_eq!(status, 200, "{before}");
    assert_eq!(value(&before, &pending), Some(4.0), "{before}");
    assert_eq!(value(&before, "xqfarm_open_ended_runs"), Some(0.0), "{before}");

    let wrong = xqfarm().args(["run", "list", "--coordinator", &url, "--token", "wrong"]).output().expect("run list");
    assert!(!wrong.status.success());

    let out = xqfarm()
        .args(["worker", "--coordinator", &url, "--bench-nps", "1000000", "--concurrency", "1", "--idle-exit", "2s"])
        .arg("--spool")
        .arg(dir.path().join("spool"))
        .output()
        .expect("run the worker");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    // The exporter runs every second: wait for it to catch up.
    let deadline = Instant::now() + Duration::from_secs(30);
    let after = loop {
        let (status, _, text) = get(&metrics_addr, "/metrics", None);
        assert_eq!(status, 200, "{text}");
        if value(&text, "xqfarm_export_lag_games") == Some(0.0) || Instant::now() > deadline {
            break text;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(value(&after, "xqfarm_export_lag_games"), Some(0.0), "{after}");
    assert_eq!(value(&after, "xqfarm_games_total"), Some(8.0), "{after}");
    assert_eq!(value(&after, &pending), None, "a completed run has no pending pairs: {after}");
    assert_eq!(value(&after, "xqfarm_active_leases"), Some(0.0), "{after}");
    assert_eq!(value(&after, "xqfarm_rpc_requests_total{method=\"Register\",code=\"OK\"}"), Some(1.0), "{after}");
    let leases = value(&after, "xqfarm_rpc_requests_total{method=\"Lease\",code=\"OK\"}").expect("Lease calls");
    let submits = value(&after, "xqfarm_rpc_requests_total{method=\"Submit\",code=\"OK\"}").expect("Submit calls");
    assert!(leases >= 1.0 && submits >= 4.0, "a lease, a submission per pair: {after}");
    assert_eq!(
        value(&after, "xqfarm_rpc_requests_total{method=\"ListRuns\",code=\"Unauthenticated\"}"),
        Some(1.0),
        "the wrong token's call: {after}"
    );
    assert_eq!(
        value(&after, "xqfarm_rpc_duration_seconds_count{method=\"Lease\"}"),
        Some(leases),
        "one latency per Lease call: {after}"
    );
    let timed: f64 = after
        .lines()
        .filter(|l| l.starts_with("xqfarm_storage_transaction_seconds_count{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    assert!(timed >= leases + submits, "every Lease and Submit is a transaction at least: {timed} in {after}");

    coordinator.signal("TERM");
    let status = coordinator.child.wait().expect("the coordinator exits");
    assert!(status.success(), "SIGTERM stops the coordinator cleanly: {status:?}");
}
