//! `xqfarm db prune-positions` against a real farm's SQLite file: the exported games lose their
//! sampled positions in the database, Parquet keeps every one untouched, the VACUUM runs, and
//! it refuses (named) while a coordinator holds the file, where pruning alone is safe.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use crate::common::*;
use proto::domain::RunId;

fn prune(args: &[&str]) -> Output {
    xqfarm().args(["db", "prune-positions"]).args(args).output().expect("xqfarm runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every part file of the run's positions, with its bytes.
fn positions_files(data: &Path, run: RunId) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    farmdata::part_files(data, farmdata::Table::Positions, run)
        .expect("part files")
        .into_iter()
        .map(|(_, path)| {
            let bytes = std::fs::read(&path).expect("read");
            (path, bytes)
        })
        .collect()
}

/// Positions per game in the database, in game order.
fn stored_positions(db: &Path, run: RunId) -> Vec<usize> {
    let storage = coordinator::SqliteStorage::open(db).expect("open the database");
    coordinator::Storage::games_since(&storage, run, 0, 1_000)
        .expect("games")
        .iter()
        .map(|g| g.report.positions.len())
        .collect()
}

#[test]
fn exported_positions_are_pruned_parquet_keeps_them_and_vacuum_waits_for_the_coordinator() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let (db, data) = (d.join("farm.db"), d.join("data"));
    let db_arg = db.to_str().expect("utf-8 path");
    let coord = Coordinator::start("127.0.0.1:0", d);
    let url = coord.url();
    let run = create_run(&url, d, 2);
    let w = Worker::start(&url, &d.join("spool"), "w1", &[]);
    wait_until("the run to complete", Duration::from_secs(180), || completed(&url, run));
    w.terminate();
    let addr = coord.addr.clone();
    coord.stop();

    // Stopped: everything is exported, and Parquet holds every position the database holds.
    let per_game = stored_positions(&db, run);
    let total: usize = per_game.iter().sum();
    assert_eq!(per_game.len(), 4);
    assert!(total > 0, "the games sampled positions: {per_game:?}");
    assert_eq!(farmdata::read_positions(&data, run).expect("Parquet").len(), total);
    let files = positions_files(&data, run);

    // Beside a running coordinator: pruned, but the VACUUM refuses, naming why.
    let coord = Coordinator::start(&addr, d);
    let out = prune(&["--db", db_arg]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stdout(&out).contains(&format!("run {run}: {total} positions pruned")), "{}", stdout(&out));
    assert!(stderr(&out).contains("is open in another process"), "{}", stderr(&out));
    assert!(stderr(&out).contains("--no-vacuum"), "{}", stderr(&out));
    let out = prune(&["--db", db_arg, "--no-vacuum", "--run", &run.to_string()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains(&format!("run {run}: 0 positions pruned")), "{}", stdout(&out));
    assert!(stdout(&out).contains("not vacuumed"), "{}", stdout(&out));
    assert!(show(&url, run).is_some_and(|s| s.contains("state: completed")), "the coordinator still serves");
    coord.stop();

    // Stopped: the VACUUM runs. (These few games free too few pages for the file to shrink
    // visibly; `maintenance::vacuum`'s own test measures a shrink.)
    let out = prune(&["--db", db_arg]);
    assert!(out.status.success(), "{}", stderr(&out));
    let sizes = stdout(&out);
    let line = sizes.lines().find(|l| l.contains("after VACUUM")).unwrap_or_else(|| panic!("{sizes}"));
    let numbers: Vec<u64> = line.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    assert!(numbers.len() == 2 && numbers[1] <= numbers[0], "{line}");

    assert_eq!(stored_positions(&db, run), [0; 4], "the database keeps the games, without positions");
    assert_eq!(positions_files(&data, run), files, "Parquet is untouched");
    assert_eq!(farmdata::read_positions(&data, run).expect("Parquet").len(), total);

    let out = prune(&["--db", db_arg, "--run", "999"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("run 999 not found"), "{}", stderr(&out));
    let missing = d.join("missing.db");
    let out = prune(&["--db", missing.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no such database file"), "{}", stderr(&out));
    assert!(!missing.exists(), "a missing file is not created");
}
