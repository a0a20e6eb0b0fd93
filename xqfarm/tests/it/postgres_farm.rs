//! Two coordinators (`xqfarm serve --db postgres://...`) on one PostgreSQL database and one data
//! directory, each with a worker: they share one farm. The second learns from the first's
//! announcements (LISTEN/NOTIFY) how far the run is in Parquet; when the first, the exporter, is
//! killed with SIGKILL, the second takes the export over. At the end each pair is counted
//! exactly once, in the database and in Parquet. Skips without a test server
//! (`XQFARM_TEST_POSTGRES`; `./test-all.sh` starts one) unless `XQFARM_REQUIRE_POSTGRES=1`.

use crate::postgres_support;

use std::ffi::OsStr;
use std::time::Duration;

use crate::common::*;
use proto::client::{ClientConfig, FarmClient};
use proto::domain::RunId;

/// The games of `run` that the coordinator at `url` says are in Parquet.
fn exported_games(rt: &tokio::runtime::Runtime, url: &str, run: RunId) -> u64 {
    rt.block_on(async {
        let client = FarmClient::connect(url, None, TOKEN, ClientConfig::default()).await.ok()?;
        client.get_run(run).await.ok().map(|status| status.exported_games)
    })
    .unwrap_or(0)
}

#[test]
fn two_coordinators_share_a_farm_and_the_survivor_takes_over_the_export() {
    let Some(db) = postgres_support::fresh() else { return };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let data = d.join("data");
    // The first to start holds the exporter's role.
    let a = Coordinator::start_on("127.0.0.1:0", OsStr::new(&db.url), &data);
    let b = Coordinator::start_on("127.0.0.1:0", OsStr::new(&db.url), &data);
    let (a_url, b_url) = (a.url(), b.url());
    let pairs = 4;

    let first = create_run(&a_url, d, pairs);
    let _w1 = Worker::start(&a_url, &d.join("spool1"), "w1", &[]);
    let w2 = Worker::start(&b_url, &d.join("spool2"), "w2", &[]);
    wait_until("the first run to complete, as b sees it", Duration::from_secs(180), || completed(&b_url, first));
    // Only a exports; b knows how far from a's announcements.
    wait_for("b to hear that a exported the first run", Duration::from_secs(60), 2 * pairs, || {
        exported_games(&rt, &b_url, first)
    });

    // The exporter dies; b takes the role over and exports the next run.
    a.kill();
    let second = create_run(&b_url, d, pairs);
    wait_until("the second run to complete", Duration::from_secs(180), || completed(&b_url, second));
    wait_for("b to export the second run", Duration::from_secs(60), 2 * pairs, || exported_games(&rt, &b_url, second));
    let log = w2.terminate();
    assert_nothing_refused(&log);
    // The clients' connections close with their runtime; a graceful stop waits for them.
    drop(rt);
    b.stop();

    let storage = coordinator::PgStorage::open(&db.url).expect("open the database");
    for run in [first, second] {
        assert_each_pair_once_in(&storage, &data, run, pairs);
    }

    // The offline commands read the same database: PGN headers name the variants.
    let pgn = run_ok(&[
        "export",
        "pgn",
        "--data",
        data.to_str().expect("path"),
        "--run",
        &first.to_string(),
        "--db",
        &db.url,
    ]);
    assert_eq!(pgn.matches("[Event ").count() as u64, 2 * pairs, "{pgn}");
    assert!(pgn.contains("[Red \"a\"]") && pgn.contains("[Black \"a\"]"), "{pgn}");
}
