//! The fault tests' processes and checks (`faults.rs`, `postgres_farm.rs`): a real
//! `xqfarm serve` and `xqfarm worker`, signals, and "each pair exactly once" in the store and
//! in Parquet. Each test file uses a part of it.
#![allow(dead_code)]

use proto::domain::RunId;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const TOKEN: &str = "fault-token";
pub const TC: &str = "nodes=3000";

pub fn xqfarm() -> Command {
    Place::HERE.xqfarm()
}

/// Where a test's `xqfarm` processes run: in the test's own network namespace, or (the
/// multi-host fault test) in a named one, through `ip netns exec`, which execs the program
/// itself, so a signal to the child reaches `xqfarm`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Place<'a>(pub Option<&'a str>);

impl Place<'_> {
    pub const HERE: Place<'static> = Place(None);

    pub fn xqfarm(&self) -> Command {
        let mut c = match self.0 {
            None => Command::new(env!("CARGO_BIN_EXE_xqfarm")),
            Some(ns) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", ns, env!("CARGO_BIN_EXE_xqfarm")]);
                c
            }
        };
        c.env("XQFARM_TOKEN", TOKEN).env("XQFARM_LOG", "warn").env("NO_COLOR", "1");
        c
    }
}

/// A coordinator process, the address it listens on, and the last lines it printed after its
/// address (shown when a test fails while it runs).
pub struct Coordinator {
    pub child: Child,
    pub addr: String,
    log: Arc<Mutex<VecDeque<String>>>,
}

/// How many of a coordinator's last lines a failing test shows.
const LOG_LINES: usize = 200;

impl Coordinator {
    pub fn start(listen: &str, dir: &Path) -> Coordinator {
        Coordinator::start_on(listen, dir.join("farm.db").as_os_str(), &dir.join("data"))
    }

    /// A coordinator on the store `db` names (a SQLite file or a PostgreSQL URL) and `data`.
    pub fn start_on(listen: &str, db: &std::ffi::OsStr, data: &Path) -> Coordinator {
        Coordinator::start_at(Place::HERE, listen, db, data)
    }

    /// [`Coordinator::start_on`] in `place`.
    pub fn start_at(place: Place, listen: &str, db: &std::ffi::OsStr, data: &Path) -> Coordinator {
        let mut serve = place.xqfarm();
        serve.args(["serve", "--listen", listen, "--db"]).arg(db).arg("--data").arg(data);
        Coordinator::spawn(serve, |_| true).0
    }

    /// Runs `serve` (an `xqfarm serve` command) and reads what it prints until it has printed its
    /// address and `enough` says so; the coordinator and every line printed until then.
    pub fn spawn(mut serve: Command, mut enough: impl FnMut(&[String]) -> bool) -> (Coordinator, Vec<String>) {
        let mut child = serve.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("start the coordinator");
        let stderr = child.stderr.take().expect("stderr");
        let mut lines = BufReader::new(stderr).lines();
        let mut printed = Vec::new();
        let mut addr = None;
        while addr.is_none() || !enough(&printed) {
            let line = lines.next().expect("the coordinator prints its address").expect("utf-8");
            if let Some(rest) = line.strip_prefix("xqfarm coordinator on ") {
                addr = Some(rest.split_whitespace().next().expect("an address").to_owned());
            }
            printed.push(line);
        }
        // Keep draining stderr so the child never blocks on a full pipe, keeping the last lines.
        let log = Arc::new(Mutex::new(VecDeque::new()));
        let kept = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                let Ok(mut kept) = kept.lock() else { return };
                if kept.len() == LOG_LINES {
                    kept.pop_front();
                }
                kept.push_back(line);
            }
        });
        (Coordinator { child, addr: addr.expect("read above"), log }, printed)
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The last lines the coordinator printed after its address.
    pub fn log(&self) -> String {
        self.log.lock().map(|lines| lines.iter().cloned().collect::<Vec<_>>().join("\n")).unwrap_or_default()
    }

    pub fn signal(&self, sig: &str) {
        signal(&self.child, sig);
    }

    /// A graceful stop (SIGINT): everything recorded is exported to Parquet first.
    pub fn stop(mut self) {
        self.signal("INT");
        let _ = self.child.wait();
    }

    /// SIGKILL (what dropping it does).
    pub fn kill(self) {
        drop(self);
    }
}

/// A test that fails midway leaves no coordinator running (stop and kill have waited already);
/// a test that fails while it runs shows what it printed.
impl Drop for Coordinator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            eprintln!("--- the coordinator on {} printed:\n{}\n---", self.addr, self.log());
        }
    }
}

pub fn signal(child: &Child, sig: &str) {
    let status = Command::new("kill").args([&format!("-{sig}"), &child.id().to_string()]).status().expect("kill");
    assert!(status.success(), "kill -{sig} {}", child.id());
}

/// A worker process whose log (tracing at info) goes to `<spool>.NAME.log`.
pub struct Worker {
    pub child: Child,
    pub spool: PathBuf,
    pub log: PathBuf,
}

impl Worker {
    pub fn start(url: &str, spool: &Path, name: &str, extra: &[&str]) -> Worker {
        Worker::start_at(Place::HERE, url, spool, name, extra)
    }

    /// [`Worker::start`] in `place`.
    pub fn start_at(place: Place, url: &str, spool: &Path, name: &str, extra: &[&str]) -> Worker {
        let log = spool.with_file_name(format!("{name}.log"));
        let file = std::fs::File::create(&log).expect("log file");
        let child = place
            .xqfarm()
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

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits for the process to exit, at most `timeout`; returns its status and how long it took.
    pub fn wait_exit(&mut self, timeout: Duration) -> (ExitStatus, Duration) {
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
    pub fn terminate(mut self) -> String {
        signal(&self.child, "TERM");
        let (status, took) = self.wait_exit(Duration::from_secs(20));
        assert!(status.success(), "SIGTERM must end the worker with 0, got {status}:\n{}", self.log());
        assert!(took < Duration::from_secs(20), "{took:?}");
        eprintln!("{}: exit 0 {took:?} after SIGTERM", self.log.display());
        self.log()
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The worker id it registered as (from its log).
    pub fn worker_id(&self) -> u64 {
        registered_id(&self.log()).unwrap_or_else(|| panic!("the worker registered:\n{}", self.log()))
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn registered_id(log: &str) -> Option<u64> {
    log.lines().filter(|l| l.contains(" registered")).find_map(|l| field(l, "worker"))
}

/// The value of `name=VALUE` in a log line.
pub fn field(line: &str, name: &str) -> Option<u64> {
    let prefix = format!("{name}=");
    line.split_whitespace().find_map(|w| w.strip_prefix(&prefix)?.parse().ok())
}

/// Lines that say something was refused (a transport's "Connection refused" while the
/// coordinator is down is not a refusal of a result).
pub fn refusals(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains("refused") && !l.contains("Connection refused")).collect()
}

/// `(lease, seq)` of every submission waiting in a spool.
pub fn spooled(spool: &Path) -> Vec<(u64, u32)> {
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
pub fn assert_spool_empty(spool: &Path) {
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

pub fn assert_nothing_refused(log: &str) {
    let refused = refusals(log);
    assert!(refused.is_empty(), "{refused:#?}");
}

pub fn run_ok(args: &[&str]) -> String {
    run_ok_at(Place::HERE, args)
}

pub fn run_ok_at(place: Place, args: &[&str]) -> String {
    let out = place.xqfarm().args(args).output().expect("xqfarm runs");
    assert!(out.status.success(), "xqfarm {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

/// `run show`, or `None` when the coordinator cannot be reached.
pub fn show(url: &str, run: RunId) -> Option<String> {
    show_at(Place::HERE, url, run)
}

pub fn show_at(place: Place, url: &str, run: RunId) -> Option<String> {
    let out =
        place.xqfarm().args(["run", "show", "--coordinator", url, &run.to_string()]).output().expect("xqfarm runs");
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The games counted so far; the summary must say.
pub fn games_of(summary: &str) -> u64 {
    summary
        .lines()
        .find_map(|l| l.strip_prefix("games: "))
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no game count in the summary:\n{summary}"))
}

pub fn games_now(url: &str, run: RunId) -> u64 {
    games_of(&show(url, run).expect("the coordinator answers"))
}

pub fn wait_until(what: &str, timeout: Duration, done: impl FnMut() -> bool) {
    wait_for(what, timeout, true, done);
}

/// Waits until `get` returns `want`, at most `timeout`; a timeout names the last value seen.
pub fn wait_for<T: PartialEq + std::fmt::Debug>(what: &str, timeout: Duration, want: T, mut get: impl FnMut() -> T) {
    let start = Instant::now();
    loop {
        let seen = get();
        if seen == want {
            return;
        }
        assert!(start.elapsed() < timeout, "timed out after {timeout:?} waiting for {what}: {seen:?}, not {want:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

pub fn completed(url: &str, run: RunId) -> bool {
    completed_at(Place::HERE, url, run)
}

pub fn completed_at(place: Place, url: &str, run: RunId) -> bool {
    show_at(place, url, run).is_some_and(|s| s.contains("state: completed"))
}

/// Variants, a suite and a fixed-games run of `pairs` pairs; returns the run id.
pub fn create_run(url: &str, dir: &Path, pairs: u64) -> RunId {
    create_run_at(Place::HERE, url, dir, pairs, TC)
}

/// [`create_run`] from `place`, at the time control `tc`.
pub fn create_run_at(place: Place, url: &str, dir: &Path, pairs: u64, tc: &str) -> RunId {
    let run_ok = |args: &[&str]| run_ok_at(place, args);
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
        tc,
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
pub fn assert_each_pair_once(dir: &Path, run: RunId, pairs: u64) -> BTreeMap<u64, String> {
    let storage = coordinator::SqliteStorage::open(dir.join("farm.db")).expect("open the database");
    assert_each_pair_once_in(&storage, &dir.join("data"), run, pairs)
}

/// [`assert_each_pair_once`] over any store and its Parquet directory `data`.
pub fn assert_each_pair_once_in(
    storage: &dyn coordinator::Storage,
    data: &Path,
    run: RunId,
    pairs: u64,
) -> BTreeMap<u64, String> {
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

    let games = farmdata::read_games(data, run).expect("read Parquet");
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
pub fn query(dir: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open_with_flags(dir.join("farm.db"), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .expect("open read-only");
    conn.query_row(sql, [], |r| r.get(0)).expect(sql)
}
