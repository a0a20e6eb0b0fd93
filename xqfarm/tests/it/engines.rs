//! Workers start only the engines they were given, with the real `xqfarm` processes and a real
//! third-party engine: Fairy-Stockfish (`/usr/games/fairy-stockfish`, Debian's
//! `fairy-stockfish`; `.ci/run` installs it), which plays xiangqi over UCCI with 0-based ranks.
//!
//! - `--engine NAME=PATH` that is missing, not executable or fails its handshake stops the
//!   worker at start, naming NAME and PATH;
//! - a variant carrying a command or a path is refused (INVALID_ARGUMENT, naming it);
//! - a worker without the engine never gets the run (and `run show` says it waits for the
//!   engine), a worker with `--engine fsf=...` plays it to completion;
//! - a run pins the binary of the first worker it was leased to: a worker with another binary
//!   under the same name gets none of it.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use proto::auth::BearerToken;
use proto::pb;
use proto::pb::farm_client::FarmClient;

const TOKEN: &str = "engines-token";
const FAIRY: &str = "/usr/games/fairy-stockfish";

fn fairy() -> &'static str {
    assert!(
        Path::new(FAIRY).is_file(),
        "{FAIRY} is missing: install Debian's fairy-stockfish (`apt-get install fairy-stockfish`; .ci/run does)"
    );
    FAIRY
}

fn xqfarm() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_xqfarm"));
    c.env("XQFARM_TOKEN", TOKEN).env("XQFARM_LOG", "warn").env("NO_COLOR", "1");
    c
}

fn run_ok(cmd: &mut Command) -> String {
    let out: Output = cmd.output().expect("runs");
    assert!(out.status.success(), "{cmd:?}: {}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

struct Coordinator {
    child: Child,
    url: String,
}

impl Coordinator {
    fn start(dir: &Path) -> Coordinator {
        let mut child = xqfarm()
            .args(["serve", "--listen", "127.0.0.1:0", "--db"])
            .arg(dir.join("farm.db"))
            .arg("--data")
            .arg(dir.join("data"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the coordinator");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let addr = loop {
            let line = lines.next().expect("the coordinator prints its address").expect("utf-8");
            if let Some(rest) = line.strip_prefix("xqfarm coordinator on ") {
                break rest.split_whitespace().next().expect("an address").to_owned();
            }
        };
        std::thread::spawn(move || for _ in lines {});
        Coordinator { child, url: format!("http://{addr}") }
    }

    fn cli(&self, args: &[&str]) -> String {
        let (head, tail) = args.split_at(2.min(args.len()));
        run_ok(xqfarm().args(head).args(["--coordinator", &self.url]).args(tail))
    }
}

impl Drop for Coordinator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Worker {
    child: Child,
    log: PathBuf,
}

impl Worker {
    fn start(url: &str, dir: &Path, name: &str, extra: &[&str]) -> Worker {
        let log = dir.join(format!("{name}.log"));
        let child = xqfarm()
            .env("XQFARM_LOG", "info")
            .args(["worker", "--coordinator", url, "--concurrency", "1", "--name", name, "--spool"])
            .arg(dir.join(format!("{name}-spool")))
            .args(extra)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("log"))
            .spawn()
            .expect("start a worker");
        Worker { child, log }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn wait_for_log(&self, text: &str, timeout: Duration) {
        let start = Instant::now();
        while !self.log().contains(text) {
            assert!(start.elapsed() < timeout, "no `{text}` in the worker log within {timeout:?}:\n{}", self.log());
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn wait_exit(&mut self, timeout: Duration) -> std::process::ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(start.elapsed() < timeout, "the worker did not exit within {timeout:?}:\n{}", self.log());
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A farm with the fsf variant (UCCI, xiangqi) and an in-process one, and a suite.
fn farm(dir: &Path) -> (Coordinator, String, String, String) {
    let coordinator = Coordinator::start(dir);
    let params = dir.join("base.toml");
    std::fs::write(&params, "").expect("params");
    let suite = dir.join("suite.txt");
    std::fs::write(&suite, "startpos moves h2e2 h9g7\nstartpos moves c3c4\n").expect("suite");
    let first = |out: String| out.split_whitespace().next().expect("an id").to_owned();
    let fsf = first(coordinator.cli(&[
        "variant",
        "add",
        "--engine",
        "fsf",
        "--protocol",
        "ucci",
        "--option",
        "UCI_Variant=xiangqi",
        "--name",
        "fairy",
    ]));
    let base = first(coordinator.cli(&["variant", "add", params.to_str().expect("utf-8")]));
    let suite = first(coordinator.cli(&["openings", "add", suite.to_str().expect("utf-8"), "--name", "two"]));
    (coordinator, fsf, base, suite)
}

fn create_run(c: &Coordinator, name: &str, pairs: &str, suite: &str, variants: [&str; 2]) -> String {
    create_run_at(c, name, pairs, suite, variants, "nodes=800")
}

fn create_run_at(c: &Coordinator, name: &str, pairs: &str, suite: &str, variants: [&str; 2], tc: &str) -> String {
    c.cli(&[
        "run",
        "create",
        "--name",
        name,
        "--kind",
        "games",
        "--pairs",
        pairs,
        "--tc",
        tc,
        "--suite",
        suite,
        "--variants",
        variants[0],
        variants[1],
    ])
    .trim()
    .to_owned()
}

fn field(show: &str, key: &str) -> String {
    show.lines().find_map(|l| l.strip_prefix(key)).unwrap_or_default().trim().to_owned()
}

#[test]
fn bad_engines_are_refused_at_start_naming_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let not_executable = dir.path().join("engine.txt");
    std::fs::write(&not_executable, "not an engine").expect("file");
    let silent = dir.path().join("silent.sh");
    std::fs::write(&silent, "#!/bin/sh\nexit 3\n").expect("script");
    let status = Command::new("chmod").arg("+x").arg(&silent).status().expect("chmod");
    assert!(status.success());
    let missing = dir.path().join("nope");
    let cases = [
        (format!("ghost={}", missing.display()), format!("engine `ghost` ({}): no such file", missing.display())),
        (
            format!("text={}", not_executable.display()),
            format!("engine `text` ({}): not executable", not_executable.display()),
        ),
        (format!("dud={}", silent.display()), format!("engine `dud` ({}): failed its uci handshake", silent.display())),
        (format!("{}=x", dir.path().display()), "is a path".to_owned()),
    ];
    for (flag, expected) in cases {
        let start = Instant::now();
        // Nothing listens on the coordinator address: the check comes first.
        let out = xqfarm()
            .args(["worker", "--coordinator", "http://127.0.0.1:9", "--spool"])
            .arg(dir.path().join("spool"))
            .args(["--engine", &flag])
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{flag}: accepted\n{stderr}");
        assert!(stderr.contains(&expected), "{flag}: expected `{expected}` in:\n{stderr}");
        assert!(start.elapsed() < Duration::from_secs(15), "{flag}: refused only after {:?}", start.elapsed());
    }
    // The engine file is checked the same way, and a malformed one names its file.
    let file = dir.path().join("worker.toml");
    std::fs::write(&file, format!("[engines]\nghost = {:?}\n", missing.display().to_string())).expect("file");
    let out = xqfarm()
        .args(["worker", "--coordinator", "http://127.0.0.1:9", "--engine-file"])
        .arg(&file)
        .output()
        .expect("runs");
    assert!(String::from_utf8_lossy(&out.stderr).contains("engine `ghost`"), "{out:?}");
    std::fs::write(&file, "[engines]\nfsf = 3\n").expect("file");
    let out = xqfarm()
        .args(["worker", "--coordinator", "http://127.0.0.1:9", "--engine-file"])
        .arg(&file)
        .output()
        .expect("runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("engine file {}", file.display())), "{out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_variant_carrying_a_command_or_a_path_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let coordinator = Coordinator::start(dir.path());
    let channel = tonic::transport::Endpoint::from_shared(coordinator.url.clone())
        .expect("url")
        .connect()
        .await
        .expect("connect");
    let mut client = FarmClient::with_interceptor(channel, BearerToken::new(TOKEN).expect("token"));
    let external = |command: &str, engine: &str| pb::AddVariantRequest {
        protocol_version: proto::PROTOCOL_VERSION,
        spec: Some(pb::VariantSpec {
            name: "evil".into(),
            kind: Some(pb::variant_spec::Kind::External(pb::ExternalVariant {
                command: command.into(),
                args: vec![],
                protocol: pb::EngineProtocol::Uci.into(),
                options: vec![],
                engine: engine.into(),
            })),
        }),
    };
    for (request, named) in [
        (external("/tmp/evil.sh", ""), "`/tmp/evil.sh`"),
        (external("/tmp/evil.sh", "fsf"), "`/tmp/evil.sh`"),
        (external("", "/tmp/evil.sh"), "`/tmp/evil.sh` is a path"),
        (external("", "rm -rf"), "`rm -rf` is a command line"),
    ] {
        let status = client.add_variant(request).await.expect_err("refused");
        assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status:?}");
        assert!(status.message().contains(named), "{}", status.message());
    }
    // The command line refuses a path too, before calling.
    let out =
        xqfarm().args(["variant", "add", "--coordinator", &coordinator.url, "--engine", FAIRY]).output().expect("runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a path"), "{out:?}");
}

#[test]
fn only_a_worker_given_the_engine_plays_it_to_completion() {
    let fairy = fairy();
    let dir = tempfile::tempdir().expect("temp dir");
    let (coordinator, fsf, base, suite) = farm(dir.path());
    let run = create_run(&coordinator, "fsf-vs-base", "2", &suite, [&fsf, &base]);

    // A worker without the engine: connected, asking for work, never given the run.
    let mut plain = Worker::start(&coordinator.url, dir.path(), "plain", &["--idle-exit", "3s"]);
    plain.wait_for_log("registered", Duration::from_secs(60));
    let show = coordinator.cli(&["run", "show", &run]);
    assert!(show.contains("waiting: no connected worker has engine `fsf`"), "{show}");
    assert!(plain.wait_exit(Duration::from_secs(60)).success(), "{}", plain.log());
    assert!(!plain.log().contains("playing"), "the plain worker played:\n{}", plain.log());
    assert_eq!(field(&coordinator.cli(&["run", "show", &run]), "games:").split_whitespace().next(), Some("0"));

    // A worker given the engine plays the run to the end.
    let flag = format!("fsf={fairy}");
    let mut with = Worker::start(&coordinator.url, dir.path(), "with", &["--engine", &flag, "--idle-exit", "3s"]);
    assert!(with.wait_exit(Duration::from_secs(240)).success(), "{}", with.log());
    let show = coordinator.cli(&["run", "show", &run]);
    assert_eq!(field(&show, "state:"), "completed", "{show}\n{}", with.log());
    assert_eq!(field(&show, "games:").split_whitespace().next(), Some("4"), "{show}");
    assert!(!show.contains("waiting:"), "{show}");
    assert!(!with.log().contains("refused"), "{}", with.log());
}

#[test]
fn a_run_pinned_to_one_binary_is_not_leased_to_another_under_the_same_name() {
    let fairy = fairy();
    let dir = tempfile::tempdir().expect("temp dir");
    // Another binary under the same name: the same engine with a byte appended (it still runs,
    // with another SHA-256).
    let copy = dir.path().join("fairy-copy");
    let mut bytes = std::fs::read(fairy).expect("read the engine");
    bytes.push(0);
    std::fs::write(&copy, bytes).expect("copy");
    assert!(Command::new("chmod").arg("+x").arg(&copy).status().expect("chmod").success());

    let (coordinator, fsf, base, suite) = farm(dir.path());
    let run = create_run(&coordinator, "pinned", "40", &suite, [&fsf, &base]);
    // The first worker pins the run to its binary; stopped (SIGTERM), it sends the pairs it did
    // not finish back to the pool.
    let real = format!("fsf={fairy}");
    let mut first = Worker::start(&coordinator.url, dir.path(), "first", &["--engine", &real]);
    first.wait_for_log("playing", Duration::from_secs(60));
    let term = Command::new("kill").args(["-TERM", &first.child.id().to_string()]).status().expect("kill");
    assert!(term.success());
    assert!(first.wait_exit(Duration::from_secs(30)).success(), "{}", first.log());

    // Pooled pairs wait, but not for another binary under the name.
    let flag = format!("fsf={}", copy.display());
    let mut other = Worker::start(&coordinator.url, dir.path(), "other", &["--engine", &flag, "--idle-exit", "3s"]);
    assert!(other.wait_exit(Duration::from_secs(60)).success(), "{}", other.log());
    assert!(other.log().contains("registered"), "{}", other.log());
    assert!(!other.log().contains("playing"), "the other binary got the pinned run:\n{}", other.log());
    // The pinned binary gets them (so there was work to refuse).
    let again = Worker::start(&coordinator.url, dir.path(), "again", &["--engine", &real]);
    again.wait_for_log("playing", Duration::from_secs(60));
    drop(again);
    let show = coordinator.cli(&["run", "show", &run]);
    assert_eq!(field(&show, "state:"), "active", "{show}");
}

/// Fairy-Stockfish in the farm at equal time: over UCI (recognised by its `UCI_Variant`, set
/// to xiangqi, ranks 1-10) at a move time, and over UCCI on a clock, with the goal's options.
/// Both runs complete, every game accepted by the referee and none forfeited.
#[test]
fn the_farm_plays_fairy_stockfish_at_a_move_time_and_on_a_clock() {
    let fairy = fairy();
    let dir = tempfile::tempdir().expect("temp dir");
    let (coordinator, ucci, base, suite) = farm(dir.path());
    let first = |out: String| out.split_whitespace().next().expect("an id").to_owned();
    let uci = first(coordinator.cli(&[
        "variant",
        "add",
        "--engine",
        "fsf",
        "--protocol",
        "uci",
        "--option",
        "Hash=16",
        "--option",
        "Threads=1",
        "--name",
        "fairy-uci",
    ]));
    let runs = [
        create_run_at(&coordinator, "fsf-uci-movetime", "1", &suite, [&uci, &base], "movetime=20"),
        create_run_at(&coordinator, "fsf-ucci-clock", "1", &suite, [&ucci, &base], "2+0.05"),
    ];
    let flag = format!("fsf={fairy}");
    let mut worker = Worker::start(&coordinator.url, dir.path(), "w", &["--engine", &flag, "--idle-exit", "3s"]);
    assert!(worker.wait_exit(Duration::from_secs(240)).success(), "{}", worker.log());
    for run in &runs {
        let show = coordinator.cli(&["run", "show", run]);
        assert_eq!(field(&show, "state:"), "completed", "{show}\n{}", worker.log());
        assert_eq!(field(&show, "games:").split_whitespace().next(), Some("2"), "{show}");
    }
    drop(coordinator);
    use coordinator::Storage;
    let storage = coordinator::SqliteStorage::open(dir.path().join("farm.db")).expect("open the database");
    for run in &runs {
        let run_id: proto::domain::RunId = run.parse().expect("a run id");
        let games = storage.games_since(run_id, 0, 100).expect("games");
        assert_eq!(games.len(), 2);
        for g in games {
            assert!(
                !g.report.reason.is_forfeit(),
                "run {run}: {:?} after {} moves",
                g.report.reason,
                g.report.moves.len()
            );
            assert!(g.report.moves.len() >= 2, "run {run}: {} moves", g.report.moves.len());
        }
    }
}
