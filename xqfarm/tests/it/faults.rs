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

use crate::common::*;
use std::time::Duration;

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
