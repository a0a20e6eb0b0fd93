//! Faults, with the real `xqfarm` processes: workers killed with SIGKILL mid-lease, a
//! coordinator killed and restarted, a coordinator frozen with SIGSTOP while its worker
//! finishes pairs, SIGTERM, a second worker on a spool, `--idle-exit`.
//!
//! Every test ends the same way: every spool is empty, nothing was refused (no worker log has
//! "refused", no spool has a `refused/` file), and each pair is counted exactly once, in the
//! run's statistics, in the database's games and in Parquet.
//!
//! Games are short (`nodes=3000` a move, a few pairs) so that each test takes seconds, but long
//! enough (a second or more a pair) that a kill lands mid-lease.

use proto::domain::RunId;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const TOKEN: &str = "fault-token";
const TC: &str = "nodes=3000";

fn xqfarm() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_xqfarm"));
    c.env("XQFARM_TOKEN", TOKEN).env("XQFARM_LOG", "warn").env("NO_COLOR", "1");
    c
}

/// A coordinator process and the address it listens on.
struct Coordinator {
    child: Child,
    addr: String,
}

impl Coordinator {
    fn start(listen: &str, dir: &Path) -> Coordinator {
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
        Coordinator { child, addr }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn signal(&self, sig: &str) {
        signal(&self.child, sig);
    }

    /// A graceful stop (SIGINT): everything recorded is exported to Parquet first.
    fn stop(mut self) {
        self.signal("INT");
        let _ = self.child.wait();
    }

    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn signal(child: &Child, sig: &str) {
    let status = Command::new("kill").args([&format!("-{sig}"), &child.id().to_string()]).status().expect("kill");
    assert!(status.success(), "kill -{sig} {}", child.id());
}

/// A worker process whose log (tracing at info) goes to `<spool>.NAME.log`.
struct Worker {
    child: Child,
    spool: PathBuf,
    log: PathBuf,
}

impl Worker {
    fn start(url: &str, spool: &Path, name: &str, extra: &[&str]) -> Worker {
        let log = spool.with_file_name(format!("{name}.log"));
        let file = std::fs::File::create(&log).expect("log file");
        let child = xqfarm()
            .env("XQFARM_LOG", "info")
            .args(["worker", "--coordinator", url, "--concurrency", "1", "--name", name, "--spool"])
            .arg(spool)
            .args(extra)
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("start a worker");
        Worker { child, spool: spool.to_owned(), log }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits for the process to exit, at most `timeout`; returns its status and how long it took.
    fn wait_exit(&mut self, timeout: Duration) -> (ExitStatus, Duration) {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return (status, start.elapsed());
            }
            assert!(start.elapsed() < timeout, "the worker did not exit within {timeout:?}:\n{}", self.log());
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGTERM, then a clean exit (code 0) within 20 s.
    fn terminate(mut self) -> String {
        signal(&self.child, "TERM");
        let (status, took) = self.wait_exit(Duration::from_secs(20));
        assert!(status.success(), "SIGTERM must end the worker with 0, got {status}:\n{}", self.log());
        assert!(took < Duration::from_secs(20), "{took:?}");
        eprintln!("{}: exit 0 {took:?} after SIGTERM", self.log.display());
        self.log()
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The worker id it registered as (from its log).
    fn worker_id(&self) -> u64 {
        registered_id(&self.log()).unwrap_or_else(|| panic!("the worker registered:\n{}", self.log()))
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn registered_id(log: &str) -> Option<u64> {
    log.lines().filter(|l| l.contains(" registered")).find_map(|l| field(l, "worker"))
}

/// The value of `name=VALUE` in a log line.
fn field(line: &str, name: &str) -> Option<u64> {
    let prefix = format!("{name}=");
    line.split_whitespace().find_map(|w| w.strip_prefix(&prefix)?.parse().ok())
}

/// Lines that say something was refused (a transport's "Connection refused" while the
/// coordinator is down is not a refusal of a result).
fn refusals(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains("refused") && !l.contains("Connection refused")).collect()
}

/// `(lease, seq)` of every submission waiting in a spool.
fn spooled(spool: &Path) -> Vec<(u64, u32)> {
    let Ok(entries) = std::fs::read_dir(spool) else {
        return Vec::new();
    };
    let mut out: Vec<(u64, u32)> = entries
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let rest = name.strip_prefix("submit-")?.strip_suffix(".pb")?;
            let (lease, seq) = rest.split_once('-')?;
            Some((lease.parse().ok()?, seq.parse().ok()?))
        })
        .collect();
    out.sort();
    out
}

/// Asserts a spool holds nothing: no submission, no open lease, nothing set aside.
fn assert_spool_empty(spool: &Path) {
    let left: Vec<String> = std::fs::read_dir(spool)
        .expect("the spool exists")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("submit-") || n.starts_with("lease-"))
        .collect();
    assert!(left.is_empty(), "{}: {left:?}", spool.display());
    let refused = spool.join("refused");
    let set_aside: Vec<_> = std::fs::read_dir(&refused).map(|d| d.filter_map(|e| e.ok()).collect()).unwrap_or_default();
    assert!(set_aside.is_empty(), "{}: {} refused submissions", refused.display(), set_aside.len());
}

fn assert_nothing_refused(log: &str) {
    let refused = refusals(log);
    assert!(refused.is_empty(), "{refused:#?}");
}

fn run_ok(args: &[&str]) -> String {
    let out = xqfarm().args(args).output().expect("xqfarm runs");
    assert!(out.status.success(), "xqfarm {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

/// `run show`, or `None` when the coordinator cannot be reached.
fn show(url: &str, run: RunId) -> Option<String> {
    let out = xqfarm().args(["run", "show", "--coordinator", url, &run.to_string()]).output().expect("xqfarm runs");
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The games counted so far; the summary must say.
fn games_of(summary: &str) -> u64 {
    summary
        .lines()
        .find_map(|l| l.strip_prefix("games: "))
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no game count in the summary:\n{summary}"))
}

fn games_now(url: &str, run: RunId) -> u64 {
    games_of(&show(url, run).expect("the coordinator answers"))
}

fn wait_until(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < timeout, "timed out after {timeout:?} waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn completed(url: &str, run: RunId) -> bool {
    show(url, run).is_some_and(|s| s.contains("state: completed"))
}

/// Variants, a suite and a fixed-games run of `pairs` pairs; returns the run id.
fn create_run(url: &str, dir: &Path, pairs: u64) -> RunId {
    let a = dir.join("a.toml");
    std::fs::write(&a, engine::eval::Params::default().to_toml()).expect("write params");
    let b = dir.join("b.toml");
    std::fs::write(&b, engine::eval::Params::material_only().to_toml()).expect("write params");
    let a = run_ok(&["variant", "add", "--coordinator", url, a.to_str().expect("path")]);
    let b = run_ok(&["variant", "add", "--coordinator", url, b.to_str().expect("path")]);
    let (a, b) = (a.split_whitespace().next().expect("id"), b.split_whitespace().next().expect("id"));
    let suite_file = dir.join("suite.txt");
    std::fs::write(&suite_file, "startpos moves h2e2 h9g7\nstartpos moves c3c4\nstartpos moves b0c2 b9c7\n")
        .expect("suite");
    let suite = run_ok(&["openings", "add", "--coordinator", url, suite_file.to_str().expect("path")]);
    let suite = suite.split_whitespace().next().expect("suite id").to_owned();
    let run = run_ok(&[
        "run",
        "create",
        "--coordinator",
        url,
        "--kind",
        "games",
        "--pairs",
        &pairs.to_string(),
        "--tc",
        TC,
        "--suite",
        &suite,
        "--variants",
        a,
        b,
    ]);
    run.trim().parse().expect("run id")
}

/// After the coordinator stopped: each of the run's `pairs` pairs is counted exactly once in
/// the stored statistics and games and in Parquet. Returns the Parquet worker name per pair.
fn assert_each_pair_once(dir: &Path, run: RunId, pairs: u64) -> BTreeMap<u64, String> {
    use coordinator::Storage;
    let storage = coordinator::SqliteStorage::open(dir.join("farm.db")).expect("open the database");
    let stored = storage.get_run(run).expect("the run");
    assert_eq!(stored.state, proto::domain::RunState::Completed);
    let stats = stored.stats[0];
    assert_eq!(stats.pentanomial.iter().sum::<u64>(), pairs, "pentanomial {:?}", stats.pentanomial);
    assert_eq!(stats.wins + stats.draws + stats.losses, 2 * pairs, "{stats:?}");
    let mut per_pair: BTreeMap<u64, BTreeSet<u8>> = BTreeMap::new();
    for g in storage.games_since(run, 0, 10_000).expect("games") {
        assert!(per_pair.entry(g.pair_index).or_default().insert(g.game_in_pair), "pair {} game twice", g.pair_index);
    }
    assert_eq!(per_pair.keys().copied().collect::<Vec<_>>(), (0..pairs).collect::<Vec<_>>());
    assert!(per_pair.values().all(|g| g.len() == 2), "{per_pair:?}");
    drop(storage);

    let games = coordinator::parquet::read_games(&dir.join("data"), run).expect("read Parquet");
    let mut in_parquet: BTreeMap<u64, usize> = BTreeMap::new();
    let mut ids = BTreeSet::new();
    let mut played_by = BTreeMap::new();
    for g in &games {
        *in_parquet.entry(g.pair_id).or_default() += 1;
        assert!(ids.insert(g.game_id), "game {} twice in Parquet", g.game_id);
        played_by.insert(g.pair_id, g.worker.clone());
    }
    assert_eq!(in_parquet.keys().copied().collect::<Vec<_>>(), (0..pairs).collect::<Vec<_>>());
    assert!(in_parquet.values().all(|&n| n == 2), "{in_parquet:?}");
    played_by
}

/// A read-only look at the live database (WAL: the coordinator keeps writing meanwhile).
fn query(dir: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open_with_flags(dir.join("farm.db"), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .expect("open read-only");
    conn.query_row(sql, [], |r| r.get(0)).expect(sql)
}

#[test]
fn killed_worker_and_restarted_coordinator_lose_and_double_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let coord = Coordinator::start("127.0.0.1:0", d);
    let url = coord.url();
    let pairs = 6;
    let run = create_run(&url, d, pairs);

    // w1 alone takes the whole run in one lease, so killing it lands mid-lease.
    let mut w1 = Worker::start(&url, &d.join("spool1"), "w1", &[]);
    wait_until("the first pair", Duration::from_secs(120), || games_now(&url, run) >= 2);
    let mid = games_now(&url, run);
    assert!(mid < 2 * pairs, "the kill must land mid-run ({mid} games already)");

    // SIGKILL the worker mid-lease, then the coordinator mid-run.
    w1.kill();
    let addr = coord.addr.clone();
    coord.kill();
    assert_eq!(show(&url, run), None, "the coordinator is down");

    // Same port, same database and data; the worker on its own spool again, and a second one.
    let coord = Coordinator::start(&addr, d);
    assert_eq!(coord.addr, addr);
    let w1b = Worker::start(&url, &d.join("spool1"), "w1-restarted", &[]);
    let w2 = Worker::start(&url, &d.join("spool2"), "w2", &[]);
    wait_until("the run to complete", Duration::from_secs(180), || completed(&url, run));
    for w in [&w1b, &w2] {
        wait_until("an empty spool", Duration::from_secs(30), || spooled(&w.spool).is_empty());
    }
    let id = w1b.worker_id();
    let logs = [w1.log(), w1b.terminate(), w2.terminate()];
    coord.stop();

    for log in &logs {
        assert_nothing_refused(log);
    }
    assert_eq!(id, w1.worker_id(), "the restarted worker is the same worker");
    assert_spool_empty(&d.join("spool1"));
    assert_spool_empty(&d.join("spool2"));
    assert_each_pair_once(d, run, pairs);
}

/// The scenario: the coordinator frozen (SIGSTOP), the worker finishes pairs and
/// spools them, is killed with SIGKILL, the coordinator thaws, the worker starts again on the
/// same spool: its spooled results are accepted, nothing is refused, each pair counts once.
#[test]
fn spooled_results_survive_a_frozen_coordinator_and_kill_9() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let coord = Coordinator::start("127.0.0.1:0", d);
    let url = coord.url();
    let pairs = 5;
    let run = create_run(&url, d, pairs);
    let spool = d.join("spool");

    let mut w1 = Worker::start(&url, &spool, "w1", &[]);
    wait_until("the first pair", Duration::from_secs(120), || games_now(&url, run) >= 2);
    coord.signal("STOP");
    // Playing goes on while every call hangs: each pair lands in the spool as it finishes (a
    // second one too, so spooling does not wait for the hanging delivery of the first).
    wait_until("two pairs spooled while the coordinator is frozen", Duration::from_secs(120), || {
        spooled(&spool).iter().filter(|&&(_, seq)| seq != worker::client::FINAL_SEQ).count() >= 2
    });
    let held: Vec<(u64, u32)> =
        spooled(&spool).into_iter().filter(|&(_, seq)| seq != worker::client::FINAL_SEQ).collect();
    w1.kill();
    assert!(spooled(&spool).len() >= held.len(), "kill -9 leaves the spool as it was");
    coord.signal("CONT");

    let w1b = Worker::start(&url, &spool, "w1-restarted", &[]);
    wait_until("the run to complete", Duration::from_secs(180), || completed(&url, run));
    wait_until("an empty spool", Duration::from_secs(30), || spooled(&spool).is_empty());
    let id = w1b.worker_id();
    let log = w1b.terminate();
    coord.stop();
    assert_nothing_refused(&w1.log());
    assert_nothing_refused(&log);
    assert_eq!(id, w1.worker_id(), "the restarted worker is the same worker");

    // Every result held in the spool at the kill was delivered by the restarted worker and
    // accepted: counted now, or (if the frozen coordinator had taken it just before the
    // freeze) acknowledged as already counted.
    for (lease, seq) in &held {
        let delivered = log.lines().find(|l| {
            l.contains("delivered") && field(l, "lease") == Some(*lease) && field(l, "seq") == Some(u64::from(*seq))
        });
        let delivered = delivered.unwrap_or_else(|| panic!("lease {lease} seq {seq} delivered:\n{log}"));
        assert!(delivered.contains("recorded=1") || delivered.contains("duplicate=true"), "accepted: {delivered}");
    }
    assert_spool_empty(&spool);
    assert_each_pair_once(d, run, pairs);
}

/// SIGTERM (a cluster preempting the job): exit 0 within 20 s, everything finished
/// delivered, the unfinished pairs back in the pool at once and played by another worker.
#[test]
fn sigterm_delivers_everything_and_returns_the_rest() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let coord = Coordinator::start("127.0.0.1:0", d);
    let url = coord.url();
    let pairs = 6;
    let run = create_run(&url, d, pairs);

    let w1 = Worker::start(&url, &d.join("spool1"), "w1", &[]);
    wait_until("the first pair", Duration::from_secs(120), || games_now(&url, run) >= 2);
    let log = w1.terminate();
    assert_nothing_refused(&log);
    assert_spool_empty(&d.join("spool1"));
    assert!(log.contains("pair abandoned"), "a game was in progress and abandoned:\n{log}");

    // Delivered: every pair it finished is counted; the rest is pooled, not held by a lease.
    let counted = games_now(&url, run);
    assert!(counted >= 2 && counted < 2 * pairs, "{counted} games");
    assert_eq!(query(d, "SELECT COUNT(*) FROM leases WHERE state = 'active'"), 0, "the lease is closed");
    let pooled = query(d, "SELECT COUNT(*) FROM pairs WHERE status = 'pooled'");
    let done = query(d, "SELECT COUNT(*) FROM pairs WHERE status = 'done'");
    assert_eq!((2 * done) as u64, counted);
    assert!(pooled >= 1, "the abandoned pair is back in the pool");

    let w2 = Worker::start(&url, &d.join("spool2"), "w2", &[]);
    wait_until("the run to complete", Duration::from_secs(180), || completed(&url, run));
    wait_until("an empty spool", Duration::from_secs(30), || spooled(&w2.spool).is_empty());
    let log2 = w2.terminate();
    coord.stop();

    assert_nothing_refused(&log2);
    assert_spool_empty(&d.join("spool2"));
    let played_by = assert_each_pair_once(d, run, pairs);
    let by_w2 = played_by.values().filter(|w| *w == "w2").count() as i64;
    assert!(by_w2 >= pooled, "w2 replayed the returned pairs: {played_by:?}");
}

#[test]
fn a_second_worker_on_a_spool_is_refused_naming_the_holder() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let coord = Coordinator::start("127.0.0.1:0", d);
    let url = coord.url();
    let spool = d.join("spool");
    let first = Worker::start(&url, &spool, "first", &[]);
    wait_until("the first worker to register", Duration::from_secs(60), || registered_id(&first.log()).is_some());

    let out = xqfarm()
        .args(["worker", "--coordinator", &url, "--concurrency", "1", "--name", "second", "--spool"])
        .arg(&spool)
        .output()
        .expect("xqfarm runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a second worker on {} must be refused:\n{stderr}", spool.display());
    assert!(stderr.contains(&spool.display().to_string()), "names the spool:\n{stderr}");
    assert!(stderr.contains(&format!("pid {}", first.child.id())), "names the holder's pid:\n{stderr}");
    assert!(registered_id(&stderr).is_none(), "the second worker never registered:\n{stderr}");

    let log = first.terminate();
    coord.stop();
    assert_nothing_refused(&log);
    assert_spool_empty(&spool);
}

#[test]
fn idle_exit_ends_the_worker_after_delivering_everything() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let coord = Coordinator::start("127.0.0.1:0", d);
    let url = coord.url();
    let pairs = 2;
    let run = create_run(&url, d, pairs);

    let mut w = Worker::start(&url, &d.join("spool"), "w", &["--idle-exit", "2s"]);
    let (status, _) = w.wait_exit(Duration::from_secs(120));
    assert!(status.success(), "--idle-exit ends with 0, got {status}:\n{}", w.log());
    let log = w.log();
    assert!(log.contains("no work for the idle time"), "{log}");
    assert!(completed(&url, run), "the run was played first");
    coord.stop();

    assert_nothing_refused(&log);
    assert_spool_empty(&d.join("spool"));
    assert_each_pair_once(d, run, pairs);
}
