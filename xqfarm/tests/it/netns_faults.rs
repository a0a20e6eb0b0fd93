//! The multi-host fault test, on one machine: network namespaces joined by veth pairs. The
//! coordinator namespace holds a PostgreSQL server (on its own loopback) and two coordinators
//! on it (`serve --db postgres://...`); three worker namespaces each hold one worker, which
//! reaches its coordinator over its own veth link. During one run:
//!
//! - worker 1 is cut off for 60 s (every packet on its link dropped, both ways, by a
//!   `blackhole` qdisc: its connections hang as on a dead network, they are not refused), then
//!   healed;
//! - worker 2's link gets 200 ms of latency each way with `tc netem` (skipped, saying why, where
//!   the kernel has no netem);
//! - worker 3 is killed with SIGKILL while it holds a lease (the time until its pairs are back
//!   in the pool and leased again is printed);
//! - coordinator A, the Parquet exporter, is killed with SIGKILL, and restarted on its address
//!   15 s later; coordinator B takes the export over.
//!
//! At the end each pair is counted exactly once (in the run's statistics, the database's games
//! and Parquet), every game in Parquet is the database's game, and the run's result (W/D/L and
//! pentanomial, hence its Elo and interval) is what a replay of its games gives.
//!
//! It needs root (namespaces, links, qdiscs) and PostgreSQL's server binaries. Without them it
//! skips, saying so, unless `XQFARM_REQUIRE_NETNS=1` (set by `.ci/run`) makes that a failure.
//! Only addresses inside the namespaces are used; the test reads the database over the server's
//! Unix socket.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::*;
use coordinator::Storage as _;
use proto::domain::{PairingStats, RunId};

const PARTITION: Duration = Duration::from_secs(60);
/// After the partition starts: coordinator A is killed, then restarted.
const KILL_A_AFTER: Duration = Duration::from_secs(5);
const RESTART_A_AFTER: Duration = Duration::from_secs(20);
const LATENCY: &str = "200ms";
/// Short games, and small leases: the coordinator sizes a lease to about a minute of play at
/// an estimated 3 s a game (`movetime=20`), about ten pairs; real games are shorter.
const NET_TC: &str = "movetime=20";
const PAIRS: u64 = 64;
const PG_PORT: u16 = 5432;
const PORTS: [u16; 2] = [7001, 7002];

/// Skips (returns `None`, saying why) unless `XQFARM_REQUIRE_NETNS=1` makes it a failure.
fn skip(why: &str) -> Option<std::convert::Infallible> {
    assert!(std::env::var("XQFARM_REQUIRE_NETNS").as_deref() != Ok("1"), "XQFARM_REQUIRE_NETNS=1 but {why}");
    eprintln!("skipped: {why}");
    None
}

/// `ip ARGS`, or its error output.
fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip").args(args).output().map_err(|e| format!("ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("ip {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()))
    }
}

/// `tc ARGS` in namespace `ns`, or its error output.
fn tc(ns: &str, args: &[&str]) -> Result<(), String> {
    ip(&[&["netns", "exec", ns, "tc"], args].concat())
}

/// The namespaces and links: `c` (the coordinators and PostgreSQL) and `w1..w3`, worker `i`'s
/// link `10.77.i.1` (coordinator side) to `10.77.i.2`. Deleted on drop.
struct Net {
    coord: String,
    workers: Vec<String>,
}

impl Net {
    fn new(workers: usize) -> Result<Net, String> {
        let tag = std::process::id() % 100_000;
        let mut net = Net { coord: format!("xq{tag}c"), workers: Vec::new() };
        ip(&["netns", "add", &net.coord])?;
        ip(&["-n", &net.coord, "link", "set", "lo", "up"])?;
        for i in 1..=workers {
            let ns = format!("xq{tag}w{i}");
            ip(&["netns", "add", &ns])?;
            net.workers.push(ns.clone());
            ip(&["-n", &ns, "link", "set", "lo", "up"])?;
            let (here, there) = (Net::coord_link(&net.coord, i), Net::worker_link(&ns));
            ip(&["link", "add", &here, "netns", &net.coord, "type", "veth", "peer", "name", &there, "netns", &ns])?;
            ip(&["-n", &net.coord, "addr", "add", &format!("10.77.{i}.1/24"), "dev", &here])?;
            ip(&["-n", &ns, "addr", "add", &format!("10.77.{i}.2/24"), "dev", &there])?;
            ip(&["-n", &net.coord, "link", "set", &here, "up"])?;
            ip(&["-n", &ns, "link", "set", &there, "up"])?;
        }
        Ok(net)
    }

    fn coord_link(coord: &str, i: usize) -> String {
        format!("{coord}{i}")
    }

    fn worker_link(ns: &str) -> String {
        format!("{ns}l")
    }

    /// Both ends of worker `i`'s link (1-based): (namespace, device) pairs.
    fn ends(&self, i: usize) -> [(String, String); 2] {
        let ns = &self.workers[i - 1];
        [(self.coord.clone(), Net::coord_link(&self.coord, i)), (ns.clone(), Net::worker_link(ns))]
    }

    /// Sets a root qdisc on both ends of worker `i`'s link.
    fn qdisc(&self, i: usize, qdisc: &[&str]) -> Result<(), String> {
        for (ns, dev) in self.ends(i) {
            let mut args = vec!["qdisc", "replace", "dev", &dev, "root"];
            args.extend_from_slice(qdisc);
            tc(&ns, &args)?;
        }
        Ok(())
    }

    /// Back to the default qdisc on both ends of worker `i`'s link.
    fn clear(&self, i: usize) -> Result<(), String> {
        for (ns, dev) in self.ends(i) {
            tc(&ns, &["qdisc", "del", "dev", &dev, "root"])?;
        }
        Ok(())
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        for ns in self.workers.iter().chain([&self.coord]) {
            let _ = ip(&["netns", "del", ns]);
        }
    }
}

/// A private PostgreSQL server in the coordinator namespace (`deploy/postgres/server.sh`), on
/// that namespace's loopback; its socket directory is reachable from the test.
struct PgServer {
    ns: String,
    dir: tempfile::TempDir,
    /// The coordinators' URL (TCP, inside the namespace).
    url: String,
}

fn server_sh() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/postgres/server.sh")
}

impl PgServer {
    fn start(ns: &str) -> Result<PgServer, String> {
        // Its own directory under the temp root: the server runs as the postgres user, which
        // must reach it.
        let dir = tempfile::Builder::new().prefix("xqfarm-netns-pg").tempdir().map_err(|e| e.to_string())?;
        let out = Command::new("ip")
            .args(["netns", "exec", ns])
            .arg(server_sh())
            .args(["start"])
            .arg(dir.path())
            .arg(PG_PORT.to_string())
            .output()
            .map_err(|e| format!("server.sh: {e}"))?;
        if !out.status.success() {
            return Err(format!("PostgreSQL did not start: {}", String::from_utf8_lossy(&out.stderr).trim()));
        }
        let url = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        Ok(PgServer { ns: ns.to_owned(), dir, url })
    }

    /// The same database over the server's Unix socket, for the test's own checks.
    fn socket_url(&self) -> String {
        let dir = self.dir.path().to_str().expect("a UTF-8 temp path").replace('/', "%2F");
        format!("postgres://postgres:xqfarm-test@{dir}:{PG_PORT}/postgres")
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let _ = Command::new("ip")
            .args(["netns", "exec", &self.ns])
            .arg(server_sh())
            .arg("stop")
            .arg(self.dir.path())
            .output();
    }
}

/// The pairs `worker` holds unfinished in an active lease of `run`.
fn pending_pairs(db: &mut postgres::Client, run: RunId, worker: u64) -> Vec<i64> {
    db.query(
        "SELECT lp.pair_index FROM lease_pairs lp JOIN leases l ON l.id = lp.lease_id
         WHERE l.run_id = $1 AND l.worker_id = $2 AND l.state = 'active' AND lp.status = 'pending'
         ORDER BY lp.pair_index",
        &[&(run.get() as i64), &(worker as i64)],
    )
    .expect("query leases")
    .iter()
    .map(|r| r.get(0))
    .collect()
}

/// Whether any of `pairs` is pooled again (its lease expired), and whether another worker than
/// `worker` holds any of them in a lease since.
fn reassignment(db: &mut postgres::Client, run: RunId, worker: u64, pairs: &[i64]) -> (bool, bool) {
    let returned: i64 = db
        .query_one(
            "SELECT count(*) FROM lease_pairs lp JOIN leases l ON l.id = lp.lease_id
             WHERE l.run_id = $1 AND l.worker_id = $2 AND l.state = 'expired' AND lp.pair_index = ANY($3)",
            &[&(run.get() as i64), &(worker as i64), &pairs],
        )
        .expect("query leases")
        .get(0);
    let taken: i64 = db
        .query_one(
            "SELECT count(*) FROM lease_pairs lp JOIN leases l ON l.id = lp.lease_id
             WHERE l.run_id = $1 AND l.worker_id <> $2 AND lp.pair_index = ANY($3)",
            &[&(run.get() as i64), &(worker as i64), &pairs],
        )
        .expect("query leases")
        .get(0);
    (returned > 0, taken > 0)
}

/// The run's statistics from the side of `candidate` (the run's `variants[0]`), replayed from
/// its games.
fn replayed_stats(games: &[farmdata::GameRow], candidate: &str) -> PairingStats {
    let mut points: BTreeMap<u64, u32> = BTreeMap::new();
    let mut stats = PairingStats::default();
    for g in games {
        assert!(g.red_variant == candidate || g.black_variant == candidate, "game {}: {g:?}", g.game_id);
        let candidate_red = g.red_variant == candidate;
        let half_points = match (g.result.as_str(), candidate_red) {
            ("1-0", true) | ("0-1", false) => 2,
            ("1/2-1/2", _) => 1,
            ("1-0", false) | ("0-1", true) => 0,
            (other, _) => panic!("game {}: result {other:?}", g.game_id),
        };
        match half_points {
            2 => stats.wins += 1,
            1 => stats.draws += 1,
            _ => stats.losses += 1,
        }
        *points.entry(g.pair_id).or_default() += half_points;
    }
    for p in points.values() {
        stats.pentanomial[*p as usize] += 1;
    }
    stats
}

/// Every game of `run` in Parquet is the stored game: same pair, players, result, reason and
/// moves, played by the same worker; and none is missing on either side.
fn assert_parquet_equals_store(storage: &dyn coordinator::Storage, data: &Path, run: RunId) {
    let stored = storage.games_since(run, 0, 100_000).expect("stored games");
    let parquet = farmdata::read_games(data, run).expect("read Parquet");
    assert_eq!(stored.len(), parquet.len(), "games in the database and in Parquet");
    let by_id: BTreeMap<u64, &farmdata::GameRow> = parquet.iter().map(|g| (g.game_id, g)).collect();
    for s in &stored {
        let p = by_id.get(&s.game_id).unwrap_or_else(|| panic!("game {} is not in Parquet", s.game_id));
        assert_eq!(p.pair_id, s.pair_index, "game {}", s.game_id);
        assert_eq!(p.red_variant, s.report.red.to_string(), "game {}", s.game_id);
        assert_eq!(p.black_variant, s.report.black.to_string(), "game {}", s.game_id);
        assert_eq!(p.result, s.report.outcome.as_str(), "game {}", s.game_id);
        assert_eq!(p.reason, s.report.reason.as_str(), "game {}", s.game_id);
        assert_eq!(p.moves, s.report.moves, "game {}", s.game_id);
        assert_eq!(p.worker, s.worker, "game {}", s.game_id);
    }
}

#[test]
fn partition_latency_kill_9_and_a_killed_coordinator_lose_and_double_nothing() {
    let uid = Command::new("id").arg("-u").output().ok().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    if uid.as_deref() != Some("0") {
        skip("network namespaces need root");
        return;
    }
    let net = match Net::new(3) {
        Ok(net) => net,
        Err(e) => {
            skip(&format!("cannot make network namespaces and veth links: {e}"));
            return;
        }
    };
    let pg = match PgServer::start(&net.coord) {
        Ok(pg) => pg,
        Err(e) => {
            skip(&e);
            return;
        }
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let data = d.join("data");
    let c = Place(Some(&net.coord));
    let listen = |port: u16| format!("0.0.0.0:{port}");
    // A starts first and so holds the exporter's role.
    let a = Coordinator::start_at(c, &listen(PORTS[0]), OsStr::new(&pg.url), &data);
    let b = Coordinator::start_at(c, &listen(PORTS[1]), OsStr::new(&pg.url), &data);
    let (a_local, b_local) = (format!("http://127.0.0.1:{}", PORTS[0]), format!("http://127.0.0.1:{}", PORTS[1]));
    let run = create_run_at(c, &a_local, d, PAIRS, NET_TC);

    // w1 (to be cut off) and w3 (to be killed) on B, w2 (latency) on A, each on its own link.
    let via = |i: usize, port: u16| format!("http://10.77.{i}.1:{port}");
    let start = |i: usize, port: u16| {
        Worker::start_at(
            Place(Some(&net.workers[i - 1])),
            &via(i, port),
            &d.join(format!("spool{i}")),
            &format!("w{i}"),
            &[],
        )
    };
    let w1 = start(1, PORTS[1]);
    let w2 = start(2, PORTS[0]);
    let mut w3 = start(3, PORTS[1]);

    let mut db = postgres::Client::connect(&pg.socket_url(), postgres::NoTls).expect("the test reaches the database");
    wait_until("w1 and w3 to hold leases and a pair to finish", Duration::from_secs(120), || {
        [&w1, &w3].iter().all(|w| registered_id(&w.log()).is_some_and(|id| !pending_pairs(&mut db, run, id).is_empty()))
            && show_at(c, &b_local, run).is_some_and(|s| games_of(&s) >= 2)
    });
    let (w1_id, w3_id) = (w1.worker_id(), w3.worker_id());

    let netem = net.qdisc(2, &["netem", "delay", LATENCY]);
    match &netem {
        Ok(()) => eprintln!("w2's link: {LATENCY} of latency each way (netem)"),
        Err(e) => eprintln!("skipped: {LATENCY} of latency on w2's link: the kernel refuses netem ({e})"),
    }

    // The partition, then the kill -9 of a worker that holds a lease.
    net.qdisc(1, &["blackhole"]).expect("a blackhole qdisc on w1's link");
    let cut = Instant::now();
    let held = pending_pairs(&mut db, run, w3_id);
    assert!(!held.is_empty(), "w3 holds pairs when it is killed");
    w3.kill();
    let killed = Instant::now();
    let (mut returned_after, mut reassigned_after) = (None, None);
    // When w3's pairs go back to the pool, and when another worker leases one of them.
    let observe = |db: &mut postgres::Client, returned: &mut Option<Duration>, reassigned: &mut Option<Duration>| {
        if reassigned.is_none() {
            let (back, taken) = reassignment(db, run, w3_id, &held);
            if back && returned.is_none() {
                *returned = Some(killed.elapsed());
            }
            if taken {
                *reassigned = Some(killed.elapsed());
            }
        }
    };
    let mut a = Some(a);
    let mut restarted = None;
    while cut.elapsed() < PARTITION {
        if a.is_some() && cut.elapsed() >= KILL_A_AFTER {
            a.take().expect("A").kill();
            eprintln!("coordinator A killed (SIGKILL) {:?} into the partition", cut.elapsed());
        }
        if restarted.is_none() && cut.elapsed() >= RESTART_A_AFTER {
            let again = Coordinator::start_at(c, &listen(PORTS[0]), OsStr::new(&pg.url), &data);
            eprintln!("coordinator A restarted {:?} into the partition", cut.elapsed());
            restarted = Some(again);
        }
        observe(&mut db, &mut returned_after, &mut reassigned_after);
        std::thread::sleep(Duration::from_millis(100));
    }
    let a = restarted.expect("A was restarted");
    assert!(!completed_at(c, &b_local, run), "the partition must heal mid-run");
    assert!(spooled(&w1.spool).len() + pending_pairs(&mut db, run, w1_id).len() > 0, "w1 had work when cut off");
    net.clear(1).expect("heal w1's link");
    eprintln!("w1's link healed after {:?}", cut.elapsed());

    wait_until("the run to complete", Duration::from_secs(600), || {
        observe(&mut db, &mut returned_after, &mut reassigned_after);
        completed_at(c, &b_local, run)
    });
    eprintln!(
        "w3 killed holding {} pairs: back in the pool after {:?}, leased to another worker after {:?}",
        held.len(),
        returned_after,
        reassigned_after,
    );
    assert!(returned_after.is_some(), "w3's lease expired and its pairs went back to the pool");
    assert!(reassigned_after.is_some(), "another worker played w3's pairs");
    for w in [&w1, &w2] {
        wait_until("an empty spool", Duration::from_secs(60), || spooled(&w.spool).is_empty());
    }
    let logs = [w1.terminate(), w2.terminate()];
    assert!(logs[0].contains("registered"), "{}", logs[0]);
    if netem.is_ok() {
        net.clear(2).expect("w2's link back to normal");
    }
    drop(db);
    a.stop();
    b.stop();

    let storage = coordinator::PgStorage::open(&pg.socket_url()).expect("open the database");
    assert_each_pair_once_in(&storage, &data, run, PAIRS);
    assert_parquet_equals_store(&storage, &data, run);
    let stored = storage.get_run(run).expect("the run");
    let candidate = stored.spec.variants[0].to_string();
    let stored = stored.stats[0];
    let replayed = replayed_stats(&farmdata::read_games(&data, run).expect("read Parquet"), &candidate);
    assert_eq!(stored, replayed, "the run's result is its games' replay");
    eprintln!("run {run}: {stored:?}");
}
