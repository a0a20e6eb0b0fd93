//! The process's logs: `XQFARM_LOG_FORMAT=json` makes every log event on stderr one JSON object
//! (a coordinator's "run created" carries its run id as a field), and an unknown format is
//! refused before the command runs, naming the variable and the value.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

const TOKEN: &str = "logs-token";

fn xqfarm() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_xqfarm"));
    c.env("XQFARM_TOKEN", TOKEN).env("NO_COLOR", "1").env_remove("XQFARM_LOG_FORMAT");
    c
}

#[test]
fn an_unknown_log_format_is_refused_before_the_command_runs() {
    let out = xqfarm()
        .env("XQFARM_LOG_FORMAT", "xml")
        .args(["stats", "--ptnml", "1,2,3,2,1", "--elo0", "0", "--elo1", "5"])
        .output()
        .expect("xqfarm runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("XQFARM_LOG_FORMAT: unknown log format `xml` (expected text or json)"), "{stderr}");
    assert!(out.stdout.is_empty(), "the command did not run: {}", String::from_utf8_lossy(&out.stdout));

    let ok = xqfarm()
        .env("XQFARM_LOG_FORMAT", "text")
        .args(["stats", "--ptnml", "1,2,3,2,1", "--elo0", "0", "--elo1", "5"])
        .output()
        .expect("xqfarm runs");
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
}

fn cli(args: &[&str], url: &str, dir: &Path) -> String {
    let out = xqfarm().args(args).args(["--coordinator", url]).current_dir(dir).output().expect("xqfarm runs");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).split_whitespace().next().expect("an id").to_owned()
}

#[test]
fn json_logs_are_one_object_a_line_with_the_event_fields() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut serve = xqfarm()
        .env("XQFARM_LOG", "info")
        .env("XQFARM_LOG_FORMAT", "json")
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(dir.path().join("farm.db"))
        .arg("--data")
        .arg(dir.path().join("data"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the coordinator");
    let mut lines = BufReader::new(serve.stderr.take().expect("stderr")).lines();
    let addr = loop {
        let line = lines.next().expect("the coordinator prints its address").expect("utf-8");
        if let Some(rest) = line.strip_prefix("xqfarm coordinator on ") {
            break rest.split_whitespace().next().expect("an address").to_owned();
        }
    };
    let url = format!("http://{addr}");
    std::fs::write(dir.path().join("a.toml"), "").expect("a");
    std::fs::write(dir.path().join("b.toml"), "[material.rook]\nmg = 800\neg = 900\n").expect("b");
    std::fs::write(dir.path().join("openings.txt"), "startpos moves h2e2 h9g7\n").expect("openings");
    let a = cli(&["variant", "add", "a.toml"], &url, dir.path());
    let b = cli(&["variant", "add", "b.toml"], &url, dir.path());
    let suite = cli(&["openings", "add", "openings.txt"], &url, dir.path());
    let run = cli(
        &["run", "create", "--kind", "games", "--name", "json logs", "--variants", &a, &b, "--suite", &suite],
        &url,
        dir.path(),
    );
    let status = Command::new("kill").args(["-INT", &serve.id().to_string()]).status().expect("kill");
    assert!(status.success());
    let rest: Vec<String> = lines.map(|l| l.expect("utf-8")).collect();
    let _ = serve.wait();

    let events: Vec<serde_json::Value> = rest
        .iter()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not one JSON object: {l}: {e}")))
        .collect();
    let created = events
        .iter()
        .find(|e| e["fields"]["message"] == "run created")
        .unwrap_or_else(|| panic!("no `run created` event among {rest:#?}"));
    assert_eq!(created["level"], "INFO", "{created}");
    assert_eq!(created["fields"]["run"].as_str(), Some(run.as_str()), "{created}");
    assert_eq!(created["fields"]["name"], "json logs", "{created}");
    assert!(created["timestamp"].is_string() && created["target"].is_string(), "{created}");
}
