//! A database written by the previous schema opens with this build: migrated in place, with
//! every run, variant, suite, lease, result and count still there, and the farm goes on.
//!
//! `tests/data/farm-v1.db` was written by xqfarm at commit 0bcb051 (schema version 1) with
//! `tests/data/make-farm-v1.sh`: a completed run, a run whose worker was killed mid-lease
//! (active lease, 1 of 6 pairs recorded), an SPRT pinned to a bench signature, a stopped round
//! robin with an external engine, two workers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use coordinator::scheduler::EngineNeed;
use coordinator::tc_scale::ReferenceNps;
use coordinator::{SqliteStorage, Storage};
use engine::nnue::SimdLevel;
use proto::domain::{
    EngineInfo, GameOutcome, GameReport, LeaseId, MoveStat, PairReport, PairTask, RunId, RunKind, RunState,
    Termination, VariantId, VariantKind, WorkerId, WorkerInfo,
};
use rusqlite::Connection;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/farm-v1.db");
/// Written by `tests/data/make-farm-v2.sh` with xqfarm at commit 30ff466 (schema version 2): the
/// runs of the version 1 fixture, workers with keys, and an active run `fairy-run` (run 5) of the
/// command-line variant `/usr/games/fairy-stockfish` against an in-process one, never leased.
const FIXTURE_V2: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/farm-v2.db");
/// Written by `tests/data/make-farm-v3.sh` (schema version 3): a completed run `done-run` (run 1),
/// a completed run `fairy-run` (run 2) of the external engine `fairy-stockfish`, pinned to the
/// binary worker `w-fairy` advertised, whose games ended by illegal move (two with no move), a
/// run `half-run` (run 3) whose worker was killed mid-lease, an SPRT and a stopped round robin.
const FIXTURE_V3: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/farm-v3.db");
/// Written by `tests/data/make-farm-v4.sh` with xqfarm at commit e2cadce (schema version 4): the
/// same farm as the version 3 fixture, with schema 4's trigger-kept tallies.
const FIXTURE_V4: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/farm-v4.db");
/// Written by `tests/data/make-farm-v5.sh` with xqfarm at commit 61e0615 (schema version 5): the
/// farm of the version 3 fixture with `half-run` (run 3) stopped after its killed worker's lease
/// expired, then a completed SPSA run `spsa-run` (run 6) of 4 pairs played by a fourth worker
/// `w-spsa` in one lease (lease 4).
const FIXTURE_V5: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/farm-v5.db");
/// Written by `tests/data/make-farm-v6.sh` with xqfarm at commit a9126ec (schema version 6): a
/// suite of four lines and one completed run `done-run` (run 1) of 4 pairs; with it the
/// Parquet files of `tests/data/data-v6/` (see `tests/it/parquet_migration.rs`).
const FIXTURE_V6: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/farm-v6.db");
/// Written by `tests/data/make-farm-v7.sh` with xqfarm at commit aa0fefb (schema version 7): a
/// suite of four lines, three variants, a completed round robin `rr-run` (run 1) of 3 pairs in
/// one lease and a stopped SPRT `stopped-sprt` (run 2) never leased.
const FIXTURE_V7: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/farm-v7.db");
/// Written by `tests/data/make-farm-v8.sh` with a build of schema version 8 (from before the
/// datagen branch, base f1bfb31): a suite of four lines, two variants and a completed games run
/// `sampled-run` (run 1) of 2 pairs with positions sampled every 4 plies (110 positions, whose
/// `search_score` is NOT NULL); with it the Parquet files of `tests/data/data-v8/`.
const FIXTURE_V8: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/farm-v8.db");
/// Written by `tests/data/make-farm-v10.sh` with a debug build of commit df61f06 (schema version
/// 10): a suite of four lines, a network, two variants (`base`, and `net` naming the network), a
/// completed games run `net-run` (run 1) of 1 pair at nodes=1000 in one lease, and one worker
/// `w-measured` registered at 500,000 nps.
const FIXTURE_V10: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/farm-v10.db");

/// A private copy of the fixture (opening migrates the file).
fn copy() -> (tempfile::TempDir, PathBuf) {
    copy_of(FIXTURE)
}

fn copy_of(fixture: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("farm.db");
    std::fs::copy(fixture, &path).expect("copy the fixture");
    (dir, path)
}

/// The fixture's tables before migration, read after checking its schema versions.
struct Before {
    columns: BTreeMap<String, Vec<String>>,
    rows: BTreeMap<String, Vec<String>>,
}

impl Before {
    fn read(path: &Path, versions: &[i64]) -> Before {
        let raw = Connection::open(path).expect("raw open");
        assert_eq!(schema_versions(&raw), versions, "the fixture's schema versions");
        let columns = v1_columns(&raw);
        let rows = rows(&raw, &columns);
        Before { columns, rows }
    }

    fn count(&self, table: &str) -> usize {
        self.rows.get(table).map_or(0, Vec::len)
    }

    /// Runs, variants, suites, leases, workers and games, in that order.
    fn counts(&self) -> [usize; 6] {
        ["runs", "variants", "suites", "leases", "workers", "games"].map(|t| self.count(t))
    }

    /// Opens (and so migrates) the database, checks it is at the latest version with every row
    /// of every table unchanged, and returns the storage and a raw connection.
    fn migrate(&self, path: &Path) -> (SqliteStorage, Connection) {
        let storage = SqliteStorage::open(path).expect("open and migrate");
        let raw = Connection::open(path).expect("raw open");
        assert_eq!(schema_versions(&raw), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        assert_eq!(rows(&raw, &self.columns), self.rows, "every row of every table is unchanged");
        (storage, raw)
    }
}

fn schema_versions(conn: &Connection) -> Vec<i64> {
    conn.prepare("SELECT version FROM schema_version ORDER BY version")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("versions")
}

/// The columns of every table, as version 1 has them.
fn v1_columns(conn: &Connection) -> BTreeMap<String, Vec<String>> {
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("tables");
    tables
        .into_iter()
        .map(|t| {
            let cols: Vec<String> = conn
                .prepare(&format!("SELECT name FROM pragma_table_info('{t}') ORDER BY cid"))
                .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
                .expect("columns");
            (t, cols)
        })
        .collect()
}

/// Every row of every table, restricted to `columns`, quoted as SQL text, in a fixed order.
fn rows(conn: &Connection, columns: &BTreeMap<String, Vec<String>>) -> BTreeMap<String, Vec<String>> {
    columns
        .iter()
        .filter(|(t, _)| *t != "schema_version")
        .map(|(t, cols)| {
            let quoted: Vec<String> = cols.iter().map(|c| format!("quote({c})")).collect();
            let sql = format!("SELECT {} FROM {t} ORDER BY 1", quoted.join(" || '|' || "));
            let rows: Vec<String> = conn
                .prepare(&sql)
                .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
            (t.clone(), rows)
        })
        .collect()
}

#[test]
fn a_version_1_database_keeps_everything() {
    let (_dir, path) = copy();
    let before = Before::read(&path, &[1]);
    assert_eq!(before.counts(), [4, 3, 1, 2, 2, 6], "the fixture is what its script made");
    assert_eq!(before.count("positions"), 93);

    let (storage, raw) = before.migrate(&path);
    let workers = v1_columns(&raw).remove("workers").expect("workers");
    assert!(workers.iter().any(|c| c == "key_digest"), "{workers:?}");

    // The same, read back through the storage.
    let runs = storage.list_runs().expect("runs");
    let summary: Vec<(&str, RunState)> = runs.iter().map(|r| (r.spec.name.as_str(), r.state.clone())).collect();
    assert_eq!(
        summary,
        [
            ("done-run", RunState::Completed),
            ("half-run", RunState::Active),
            ("sprt-run", RunState::Active),
            ("stopped-run", RunState::Stopped)
        ]
    );
    assert_eq!(runs[0].stats[0].pentanomial, [0, 0, 2, 0, 0]);
    assert_eq!((runs[0].stats[0].wins, runs[0].stats[0].draws, runs[0].stats[0].losses), (2, 0, 2));
    assert_eq!(runs[1].stats[0].pentanomial, [0, 1, 0, 0, 0]);
    assert!(matches!(runs[2].spec.kind, RunKind::Sprt(_)));
    assert_eq!(runs[2].spec.bench_signature, Some(12_345));
    assert_eq!(runs[3].stats.len(), 3, "a round robin of three");
    let external = storage.get_variant(&runs[3].spec.variants[2]).expect("the external engine");
    // A command-line variant of schema 1 names the engine of its command's file stem.
    assert!(matches!(&external.spec.kind, VariantKind::External { engine, .. } if engine == "fairy-stockfish"));
    assert_eq!(storage.run_engines(RunId::new(4)).expect("engines")[0].name, "fairy-stockfish");
    assert_eq!(storage.get_suite(runs[0].spec.openings).expect("suite").openings.len(), 3);

    let games = |run| storage.games_since(RunId::new(run), 0, 100).expect("games");
    let (done, half) = (games(1), games(2));
    assert_eq!((done.len(), half.len()), (4, 2));
    assert!(done.iter().all(|g| g.worker == "w-done") && half.iter().all(|g| g.worker == "w-killed"));
    let positions: usize = done.iter().chain(&half).map(|g| g.report.positions.len()).sum();
    assert_eq!(positions, 93);
    assert_eq!(
        (storage.exported_up_to(RunId::new(1)).expect("mark"), storage.exported_up_to(RunId::new(2)).expect("mark")),
        (4, 6)
    );
}

fn game(red: &VariantId, black: &VariantId, outcome: GameOutcome) -> GameReport {
    GameReport {
        red: red.clone(),
        black: black.clone(),
        start_fen: "startpos".into(),
        outcome,
        reason: Termination::Rules(engine::rules::Reason::Checkmate),
        moves: vec!["h2e2".into(), "h9g7".into()],
        move_stats: vec![MoveStat { score: None, time_ms: 1 }; 2],
        forfeit: None,
        duration_ms: 5,
        nodes: 50,
        positions: vec![],
    }
}

fn play(task: &PairTask) -> PairReport {
    let [a, b] = &task.variants;
    PairReport { pair_index: task.pair_index, games: [game(a, b, GameOutcome::RedWins), game(b, a, GameOutcome::Draw)] }
}

#[test]
fn the_farm_goes_on_after_migration() {
    let (_dir, path) = copy();
    let storage = SqliteStorage::open(&path).expect("open and migrate");
    let leases: Vec<(i64, i64, String, i64)> = {
        let raw = Connection::open(&path).expect("raw open");
        raw.prepare("SELECT id, worker_id, state, deadline_ms FROM leases ORDER BY id")
            .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?.collect())
            .expect("leases")
    };
    let (lease, killed_worker, state, deadline) = leases[1].clone();
    assert_eq!(state, "active", "the killed worker's lease");
    let (lease, killed_worker, deadline) =
        (LeaseId::new(lease as u64), WorkerId::new(killed_worker as u64), deadline as u64);
    let task = |pair_index: u64| {
        let spec = storage.get_run(RunId::new(2)).expect("run").spec;
        PairTask {
            pair_index,
            pairing: 0,
            opening_index: 0,
            opening: String::new(),
            second_opening: None,
            variants: [spec.variants[0].clone(), spec.variants[1].clone()],
        }
    };

    // The old worker's lease still takes its results (the owner check reads the old rows).
    let late = storage.record_results(killed_worker, lease, 2, &[play(&task(1))], false, deadline - 1).expect("late");
    assert_eq!((late.accepted, late.duplicate), (1, false));
    // A resend of what the old worker sent before the upgrade is a duplicate.
    let resent = storage.record_results(killed_worker, lease, 1, &[play(&task(0))], false, deadline - 1).expect("old");
    assert!(resent.duplicate);

    // Its lease expires; a new worker (with a key, a column the old schema lacked) takes the rest.
    let now = deadline + 60_000;
    assert_eq!(storage.expire_leases(now).expect("expire"), 1);
    let info = WorkerInfo {
        name: "after-upgrade".into(),
        host: "h".into(),
        cores: 4,
        engine_version: "e".into(),
        bench_signature: 1,
        worker_key: "upgraded-worker".into(),
        rules_version: engine::RULES_VERSION,
        engines: Vec::new(),
        bench_nps: 0,
        simd: None,
        nnue_bench_nps: 0,
    };
    let worker = storage.register_worker(&info, now).expect("register");
    assert_eq!(worker.get(), 3, "ids continue after the old workers");
    assert_eq!(storage.register_worker(&info, now).expect("again"), worker);
    let next = storage.lease_batch(worker, 8, now).expect("lease").expect("work");
    assert_eq!(next.run, RunId::new(2));
    assert_eq!(next.tasks.iter().map(|t| t.pair_index).collect::<Vec<_>>(), [2, 3, 4, 5]);
    let reports: Vec<PairReport> = next.tasks.iter().map(play).collect();
    assert_eq!(storage.record_results(worker, next.id, 0, &reports, true, now).expect("record").accepted, 4);

    let run = storage.get_run(RunId::new(2)).expect("run");
    assert_eq!(run.state, RunState::Completed);
    assert_eq!(run.stats[0].pentanomial.iter().sum::<u64>(), 6);
    assert_eq!(storage.games_since(RunId::new(2), 0, 100).expect("games").len(), 12);
    // The tallies counted by the migration and those counted since add up.
    let aggregates = storage.run_aggregates(RunId::new(2)).expect("aggregates");
    assert_eq!(aggregates.games, 12);
    assert_eq!(
        aggregates.workers.iter().map(|w| (w.name.as_str(), w.pairs)).collect::<Vec<_>>(),
        [("w-killed", 2), ("after-upgrade", 4)]
    );
    let per_worker = aggregates.workers.iter().fold([0; 5], |mut sum, w| {
        sum.iter_mut().zip(w.pentanomial).for_each(|(s, p)| *s += p);
        sum
    });
    assert_eq!(per_worker, run.stats[0].pentanomial);
    let sequence = storage.run_pair_sequence(RunId::new(2)).expect("sequence");
    assert_eq!(sequence.len(), 6);
    assert_eq!(&sequence[2..], [(0, 3); 4], "after the upgrade: a win as Red and a draw, 3 half points");
    drop(storage);
    // Reopening a migrated database migrates nothing again.
    SqliteStorage::open(&path).expect("reopen");
    assert_eq!(schema_versions(&Connection::open(Path::new(&path)).expect("raw")), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
}

fn engine_worker(name: &str, engines: Vec<EngineInfo>) -> WorkerInfo {
    WorkerInfo {
        name: name.into(),
        host: "h".into(),
        cores: 4,
        engine_version: "e".into(),
        bench_signature: 1,
        worker_key: format!("key-{name}"),
        rules_version: engine::RULES_VERSION,
        engines,
        bench_nps: 0,
        simd: None,
        nnue_bench_nps: 0,
    }
}

fn fairy(sha: char) -> EngineInfo {
    EngineInfo {
        name: "fairy-stockfish".into(),
        id_name: "Fairy-Stockfish 11.1 LB 64".into(),
        sha256: sha.to_string().repeat(64),
    }
}

#[test]
fn a_version_2_database_keeps_everything_and_its_command_variant_names_an_engine() {
    let (_dir, path) = copy_of(FIXTURE_V2);
    let before = Before::read(&path, &[1, 2]);
    assert_eq!(before.counts(), [5, 3, 1, 2, 2, 6], "the fixture is what its script made");

    let (storage, raw) = before.migrate(&path);
    drop(raw);

    let runs = storage.list_runs().expect("runs");
    let fairy_run = &runs[4];
    assert_eq!((fairy_run.spec.name.as_str(), &fairy_run.state), ("fairy-run", &RunState::Active));
    let variant = storage.get_variant(&fairy_run.spec.variants[0]).expect("the stored command-line variant");
    assert_eq!(
        variant.spec.kind,
        VariantKind::External {
            engine: "fairy-stockfish".into(),
            protocol: proto::domain::EngineProtocol::Ucci,
            options: vec![("UCI_Variant".into(), "xiangqi".into())],
        }
    );
    let needs = |run| storage.run_engines(RunId::new(run)).expect("engines");
    assert_eq!(needs(5), [EngineNeed { name: "fairy-stockfish".into(), pinned_sha256: None }]);
    assert_eq!(needs(4).len(), 1, "the stopped round robin names it too");
    assert!(needs(1).is_empty() && needs(2).is_empty(), "in-process runs need no engine");

    // A worker without the engine drains the in-process run and never gets the fairy run.
    let now = 4_000_000_000_000;
    storage.expire_leases(now).expect("expire");
    let plain = storage.register_worker(&engine_worker("plain", vec![]), now).expect("register");
    let mut leased_runs = Vec::new();
    while let Some(lease) = storage.lease_batch(plain, 8, now).expect("lease") {
        leased_runs.push(lease.run);
        let reports: Vec<PairReport> = lease.tasks.iter().map(play).collect();
        storage.record_results(plain, lease.id, 0, &reports, true, now).expect("record");
        assert!(leased_runs.len() < 10, "{leased_runs:?}");
    }
    assert!(!leased_runs.is_empty() && leased_runs.iter().all(|&r| r == RunId::new(2)), "{leased_runs:?}");

    // A worker with the engine gets it, and pins its binary; another binary gets nothing.
    let other = storage.register_worker(&engine_worker("other", vec![fairy('b')]), now).expect("register");
    let with = storage.register_worker(&engine_worker("with", vec![fairy('a')]), now).expect("register");
    let lease = storage.lease_batch(with, 1, now).expect("lease").expect("the fairy run");
    assert_eq!(lease.run, RunId::new(5));
    assert_eq!(lease.variants.iter().filter(|v| v.spec.kind.engine() == Some("fairy-stockfish")).count(), 1);
    assert_eq!(needs(5)[0].pinned_sha256.as_deref(), Some("a".repeat(64).as_str()));
    assert_eq!(storage.lease_batch(other, 8, now).expect("lease"), None, "another binary under the name");
}

/// `games` as the raw file has them: (id, run, pair, game in pair, moves, plies, pairing).
fn raw_games(conn: &Connection) -> Vec<(i64, i64, i64, i64, String, i64, i64)> {
    conn.prepare(
        "SELECT g.id, g.run_id, g.pair_index, g.game_in_pair, g.moves, g.plies, g.pairing FROM games g ORDER BY g.id",
    )
    .and_then(|mut s| {
        s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?)))?
            .collect()
    })
    .expect("games")
}

/// A migrated database has a new one's schema, and is sound.
fn assert_like_new(raw: &Connection) {
    let fresh_dir = tempfile::tempdir().expect("temp dir");
    drop(SqliteStorage::open(fresh_dir.path().join("new.db")).expect("a new database"));
    let fresh = Connection::open(fresh_dir.path().join("new.db")).expect("raw open");
    assert_eq!(schema_sql(raw), schema_sql(&fresh), "a migrated database is a new one");
    let integrity: String = raw.query_row("PRAGMA integrity_check", [], |r| r.get(0)).expect("integrity");
    assert_eq!(integrity, "ok");
}

fn schema_sql(conn: &Connection) -> Vec<(String, String)> {
    conn.prepare("SELECT name, sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY name")
        .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .expect("schema")
}

#[test]
fn a_version_3_database_gets_plies_counted_from_its_moves_and_nothing_else_changes() {
    let (_dir, path) = copy_of(FIXTURE_V3);
    let before = Before::read(&path, &[1, 2, 3]);
    assert_eq!(before.counts(), [5, 3, 1, 3, 3, 10], "the fixture is what its script made");
    assert_eq!(before.count("worker_engines"), 1);

    let (storage, raw) = before.migrate(&path);
    // A migrated database has the schema a new one has (so the binary that wrote the fixture
    // wrote schema 3 as this build knows it).
    let fresh_dir = tempfile::tempdir().expect("temp dir");
    drop(SqliteStorage::open(fresh_dir.path().join("new.db")).expect("a new database"));
    let fresh = Connection::open(fresh_dir.path().join("new.db")).expect("raw open");
    assert_eq!(schema_sql(&raw), schema_sql(&fresh));

    // Plies are the number of stored moves; pairings those of the games' pairs.
    let games = raw_games(&raw);
    assert_eq!(games.len(), 10);
    for (id, _, _, _, moves, plies, _) in &games {
        assert_eq!(*plies as usize, moves.split_ascii_whitespace().count(), "game {id}: {moves:?}");
    }
    let plies: Vec<i64> = games.iter().map(|g| g.5).collect();
    assert_eq!(&plies[4..8], [0, 1, 0, 1], "fairy-run's games: no move, or one before the illegal one");
    assert!(plies[..4].iter().chain(&plies[8..]).all(|&p| p > 20), "{plies:?}");
    let pairings: Vec<(i64, i64)> = raw
        .prepare("SELECT g.pairing, p.pairing FROM games g JOIN pairs p USING (run_id, pair_index)")
        .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .expect("pairings");
    assert_eq!(pairings.len(), 10);
    assert!(pairings.iter().all(|(g, p)| g == p), "{pairings:?}");

    // The web's reads over the migrated games agree with the games themselves.
    for run in 1..=3 {
        let run = RunId::new(run);
        let stored = storage.games_since(run, 0, 100).expect("games");
        let page = storage.run_games_page(run, 0, 100).expect("page");
        assert_eq!(page.len(), stored.len());
        for (summary, game) in page.iter().zip(&stored) {
            assert_eq!((summary.game_id, summary.plies as usize), (game.game_id, game.report.moves.len()));
            assert_eq!((summary.outcome, summary.reason), (game.report.outcome, game.report.reason));
        }
        let aggregates = storage.run_aggregates(run).expect("aggregates");
        assert_eq!(aggregates.games, stored.len() as u64);
        let mut lengths = BTreeMap::new();
        for g in &stored {
            *lengths.entry(g.report.moves.len() as u32).or_insert(0u64) += 1;
        }
        assert_eq!(aggregates.lengths, lengths.into_iter().collect::<Vec<_>>());
        let sequence = storage.run_pair_sequence(run).expect("sequence");
        let from_games: Vec<(u32, u8)> = stored
            .chunks(2)
            .map(|pair| {
                let report = PairReport {
                    pair_index: pair[0].pair_index,
                    games: [pair[0].report.clone(), pair[1].report.clone()],
                };
                (0, report.first_half_points() as u8)
            })
            .collect();
        assert_eq!(sequence, from_games, "run {run}");
        let run_stats = storage.get_run(run).expect("run").stats[0].pentanomial;
        let per_worker: Vec<[u64; 5]> = aggregates.workers.iter().map(|w| w.pentanomial).collect();
        assert_eq!(per_worker.len(), 1, "one worker per run");
        assert_eq!(per_worker[0], run_stats);
    }
    let fairy = storage.run_aggregates(RunId::new(2)).expect("aggregates");
    assert_eq!(fairy.terminations, [(Termination::IllegalMove, 4)]);
    assert_eq!(fairy.workers[0].name, "w-fairy");
    let workers = storage.list_workers(4_000_000_000_000).expect("workers");
    let names: Vec<&str> = workers.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["w-done", "w-fairy", "w-killed"]);
    assert_eq!(workers.iter().map(|w| w.leases_held).collect::<Vec<_>>(), [0, 0, 1], "w-killed's lease is active");
    assert_eq!(workers[1].engines.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["fairy-stockfish"]);
    assert_eq!(
        storage.run_engines(RunId::new(2)).expect("engines")[0].pinned_sha256,
        Some(workers[1].engines[0].sha256.clone())
    );
    assert!(storage.get_game(11).expect_err("ten games").is_not_found());
}

#[test]
fn a_version_4_database_takes_spsa_runs_and_keeps_everything() {
    use proto::domain::{RunKind, RunSpec, SpsaSettings, parse_spsa_lines};
    let (_dir, path) = copy_of(FIXTURE_V4);
    let before = Before::read(&path, &[1, 2, 3, 4]);
    assert_eq!(before.counts(), [5, 3, 1, 3, 3, 10], "the fixture is what its script made");
    let (storage, raw) = before.migrate(&path);
    let old_runs = storage.list_runs().expect("runs");
    let read: Vec<(&str, &str, &str)> =
        old_runs.iter().map(|r| (r.spec.name.as_str(), r.spec.kind.name().as_str(), r.state.as_str())).collect();
    assert_eq!(
        read,
        [
            ("done-run", "games", "completed"),
            ("fairy-run", "games", "completed"),
            ("half-run", "games", "active"),
            ("sprt-run", "sprt", "active"),
            ("stopped-run", "round_robin", "stopped"),
        ]
    );
    assert_eq!(old_runs[0].stats[0].games(), 4);
    let fresh_dir = tempfile::tempdir().expect("temp dir");
    drop(SqliteStorage::open(fresh_dir.path().join("new.db")).expect("a new database"));
    let fresh = Connection::open(fresh_dir.path().join("new.db")).expect("raw open");
    assert_eq!(schema_sql(&raw), schema_sql(&fresh), "a migrated database is a new one");
    let runs_sql: String =
        raw.query_row("SELECT sql FROM sqlite_schema WHERE name = 'runs'", [], |r| r.get(0)).expect("runs table");
    assert!(runs_sql.contains("'spsa'"), "{runs_sql}");
    let integrity: String = raw.query_row("PRAGMA integrity_check", [], |r| r.get(0)).expect("integrity");
    assert_eq!(integrity, "ok");

    // An SPSA run now fits, and reads back with its parameters.
    let base = old_runs[0].spec.variants[0].clone();
    let settings =
        SpsaSettings { pairs: 10, params: parse_spsa_lines("search.rfp_margin,90,20,300,10,0.002").expect("a line") };
    let spec = RunSpec {
        name: "spsa".into(),
        kind: RunKind::Spsa(settings.clone()),
        variants: vec![base],
        ..old_runs[0].spec.clone()
    };
    let run = storage.create_run(&spec, 1).expect("an SPSA run in a migrated database");
    drop(storage);
    let reopened = SqliteStorage::open(&path).expect("reopen");
    let read = reopened.get_run(run.id).expect("read back");
    assert_eq!(read.spec.kind, RunKind::Spsa(settings));
    assert_eq!(reopened.spsa_values(run.id).expect("values")[0].value, 90.0);
}

#[test]
fn a_version_5_database_has_unmeasured_workers_and_unscaled_leases() {
    use std::num::NonZeroU64;

    use proto::domain::{RunSpec, TimeControl};
    let (_dir, path) = copy_of(FIXTURE_V5);
    let before = Before::read(&path, &[1, 2, 3, 4, 5]);
    assert_eq!(before.counts(), [6, 3, 1, 4, 4, 18], "the fixture is what its script made");
    assert_eq!((before.count("spsa_leases"), before.count("spsa_history")), (1, 5));
    let runs_sql = |conn: &Connection| -> String {
        conn.query_row("SELECT sql FROM sqlite_schema WHERE name = 'runs'", [], |r| r.get(0)).expect("runs table")
    };
    // The first schema-5 release wrote the kind check as an IN list; version 6 makes it the OR
    // chain a new database has.
    assert!(runs_sql(&Connection::open(&path).expect("raw open")).contains("kind IN ("), "the fixture's check");
    let (storage, raw) = before.migrate(&path);
    assert!(runs_sql(&raw).contains("OR kind = 'spsa'"), "{}", runs_sql(&raw));
    assert_like_new(&raw);

    // Every old worker is unmeasured, every old lease was granted the run's own time control.
    let nps: Vec<i64> = raw
        .prepare("SELECT bench_nps FROM workers ORDER BY id")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("speeds");
    assert_eq!(nps, [0, 0, 0, 0]);
    let scales: Vec<i64> = raw
        .prepare("SELECT tc_scale_permille FROM leases ORDER BY id")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("scales");
    assert_eq!(scales, [1_000; 4]);
    let workers = storage.list_workers(4_000_000_000_000).expect("workers");
    let listed: Vec<(&str, u64)> = workers.iter().map(|w| (w.name.as_str(), w.bench_nps)).collect();
    assert_eq!(listed, [("w-done", 0), ("w-fairy", 0), ("w-killed", 0), ("w-spsa", 0)]);
    for lease in 1..=4 {
        let terms = storage.lease_terms(LeaseId::new(lease)).expect("terms");
        let run = storage.get_run(terms.run).expect("run");
        assert_eq!(terms.tc, run.spec.tc, "lease {lease}: the run's time control, unscaled");
    }
    // The SPSA run's rows are still read.
    let spsa = storage.list_runs().expect("runs").pop().expect("the SPSA run");
    assert_eq!((spsa.spec.name.as_str(), spsa.state.as_str()), ("spsa-run", "completed"));
    assert_eq!(storage.spsa_history(spsa.id).expect("history").len(), 5, "the start and 4 submissions");

    // A measured worker now gets scaled leases of a new run, kept across a reopening.
    let now = 4_000_000_000_000;
    storage.expire_leases(now).expect("expire");
    let old = storage.list_runs().expect("runs");
    for run in old.iter().filter(|r| r.state == RunState::Active) {
        storage.set_run_state(run.id, RunState::Stopped).expect("stop");
    }
    let spec = RunSpec { name: "scaled".into(), tc: TimeControl::MoveTimeMs(100), ..old[0].spec.clone() };
    let run = storage.create_run(&spec, now).expect("a run");
    let info = WorkerInfo { bench_nps: 400_000, ..engine_worker("measured", Vec::new()) };
    let worker = storage.register_worker(&info, now).expect("register");
    let reference = ReferenceNps::hce(NonZeroU64::new(1_000_000));
    let lease = storage.lease_batch_scaled(worker, 1, reference, now).expect("lease").expect("work");
    assert_eq!((lease.run, lease.tc), (run.id, TimeControl::MoveTimeMs(250)));
    drop(storage);
    let reopened = SqliteStorage::open(&path).expect("reopen");
    assert_eq!(reopened.lease_terms(lease.id).expect("terms").tc, TimeControl::MoveTimeMs(250));
    assert_eq!(reopened.list_workers(now).expect("workers")[4].bench_nps, 400_000);
}

#[test]
fn a_version_6_database_pins_no_tables_for_its_runs_and_new_runs_pin_theirs() {
    use proto::domain::{RunSpec, TablePin};
    let (_dir, path) = copy_of(FIXTURE_V6);
    let before = Before::read(&path, &[1, 2, 3, 4, 5, 6]);
    assert_eq!(before.counts(), [1, 2, 1, 1, 1, 8], "the fixture is what its script made");
    let (storage, raw) = before.migrate(&path);
    assert_like_new(&raw);
    // The old run pins nothing, and its lease's terms say so.
    let old = storage.get_run(RunId::new(1)).expect("run 1");
    assert!(old.tablebases.is_empty());
    assert!(storage.lease_terms(LeaseId::new(1)).expect("terms").tablebases.is_empty());
    // A new run pins its tables, kept across a reopening and handed out with its leases.
    let pins = vec![TablePin { set: "KNK".into(), checksum: u64::MAX }, TablePin { set: "KRK".into(), checksum: 42 }];
    let spec = RunSpec { name: "pinned".into(), ..old.spec.clone() };
    let run = storage.create_run_pinned(&spec, &pins, 4_000_000_000_000).expect("a run");
    assert_eq!(run.tablebases, pins);
    let worker = storage.register_worker(&engine_worker("w-new", Vec::new()), 4_000_000_000_000).expect("register");
    let lease = storage.lease_batch(worker, 1, 4_000_000_000_000).expect("lease").expect("work");
    assert_eq!((lease.run, &lease.tablebases), (run.id, &pins));
    drop(storage);
    let reopened = SqliteStorage::open(&path).expect("reopen");
    assert_eq!(reopened.get_run(run.id).expect("run").tablebases, pins);
    assert_eq!(reopened.lease_terms(lease.id).expect("terms").tablebases, pins);
}

#[test]
fn a_version_7_database_keeps_its_runs_and_takes_tournaments() {
    use proto::domain::{RunSpec, TournamentFormat, TournamentSettings};
    let (_dir, path) = copy_of(FIXTURE_V7);
    let before = Before::read(&path, &[1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(before.counts(), [2, 3, 1, 1, 1, 6], "the fixture is what its script made");
    let (storage, raw) = before.migrate(&path);
    assert_like_new(&raw);
    let rr = storage.get_run(RunId::new(1)).expect("run 1");
    assert_eq!(
        (rr.spec.kind.clone(), rr.state.clone()),
        (RunKind::RoundRobin { pairs_per_pairing: 1 }, RunState::Completed)
    );
    assert_eq!(rr.stats.len(), 3);
    assert_eq!(storage.get_run(RunId::new(2)).expect("run 2").state, RunState::Stopped);
    assert_eq!(storage.tournament_draw(RunId::new(1)).expect("draw"), None, "an old run is no tournament");
    // A tournament of the fixture's three variants: round 1 drawn, a bye for the odd field.
    let settings = TournamentSettings::new(TournamentFormat::Swiss, 2);
    let spec = RunSpec { name: "swiss".into(), kind: RunKind::Tournament(settings.clone()), ..rr.spec.clone() };
    let run = storage.create_run(&spec, 4_000_000_000_000).expect("a tournament");
    let draw = storage.tournament_draw(run.id).expect("draw").expect("a tournament");
    assert_eq!((draw.matches.len(), draw.byes.len()), (1, 1));
    drop(storage);
    let reopened = SqliteStorage::open(&path).expect("reopen");
    assert_eq!(reopened.get_run(run.id).expect("run").spec.kind, RunKind::Tournament(settings));
    assert_eq!(reopened.tournament_draw(run.id).expect("draw").expect("a tournament"), draw);
}

#[test]
fn a_version_8_database_keeps_its_positions_and_takes_datagen_runs_and_unscored_positions() {
    use proto::domain::{DATAGEN_TC, DatagenSettings, RunSpec};
    let (_dir, path) = copy_of(FIXTURE_V8);
    let before = Before::read(&path, &[1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(before.counts(), [1, 2, 1, 1, 1, 4], "the fixture is what its script made");
    assert_eq!(before.count("positions"), 110);
    let (storage, raw) = before.migrate(&path);
    assert_like_new(&raw);
    // Every stored position keeps its score (the raw rows are compared whole by `migrate`); the
    // column now takes NULL, and old runs have no random plies.
    let nulls: i64 =
        raw.query_row("SELECT COUNT(*) FROM positions WHERE search_score IS NULL", [], |r| r.get(0)).expect("count");
    assert_eq!(nulls, 0);
    let plies: Option<i64> =
        raw.query_row("SELECT random_plies FROM runs WHERE id = 1", [], |r| r.get(0)).expect("run 1");
    assert_eq!(plies, None);
    let old = storage.get_run(RunId::new(1)).expect("run 1");
    assert_eq!((old.spec.kind.clone(), old.state.clone()), (RunKind::Games { pairs: 2 }, RunState::Completed));
    let game = storage.get_game(1).expect("game 1");
    assert!(game.report.positions.iter().all(|p| p.search_score.is_some()), "old positions keep their scores");

    // A datagen run of the fixture's first variant: stored, read back, leased to itself.
    let settings = DatagenSettings { pairs: 2, random_plies: 8 };
    let spec = RunSpec {
        name: "datagen".into(),
        kind: RunKind::Datagen(settings),
        variants: vec![old.spec.variants[0].clone()],
        tc: DATAGEN_TC,
        sample_every: 1,
        ..old.spec.clone()
    };
    let run = storage.create_run(&spec, 4_000_000_000_000).expect("a datagen run");
    let plies: Option<i64> =
        raw.query_row("SELECT random_plies FROM runs WHERE id = ?1", [run.id.get() as i64], |r| r.get(0)).expect("run");
    assert_eq!(plies, Some(8));
    drop(storage);
    let reopened = SqliteStorage::open(&path).expect("reopen");
    assert_eq!(reopened.get_run(run.id).expect("run").spec, spec);
    // A position without a score is stored as NULL and read back as none.
    let w = reopened.register_worker(&engine_worker("w-datagen", Vec::new()), 4_000_000_000_001).expect("worker");
    let lease = reopened.lease_batch(w, 2, 4_000_000_000_002).expect("lease").expect("work");
    let mut report = play(&lease.tasks[0]);
    for g in &mut report.games {
        g.positions = vec![proto::domain::PositionSample {
            ply: 1,
            fen: engine::START_FEN.into(),
            red_to_move: true,
            static_eval: 7,
            search_score: None,
            best_move: "h2e2".into(),
            in_check: false,
            quiet: true,
        }];
    }
    reopened.record_results(w, lease.id, 0, &[report], false, 4_000_000_000_003).expect("recorded");
    let nulls: i64 =
        raw.query_row("SELECT COUNT(*) FROM positions WHERE search_score IS NULL", [], |r| r.get(0)).expect("count");
    assert_eq!(nulls, 2);
    let last = reopened.games_since(run.id, 0, 10).expect("games");
    assert!(last.iter().all(|g| g.report.positions[0].search_score.is_none()));
}

#[test]
fn a_version_8_database_gains_networks_and_keeps_its_farm() {
    let (_dir, path) = copy_of(FIXTURE_V8);
    let before = Before::read(&path, &[1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(before.counts(), [1, 2, 1, 1, 1, 4], "the fixture is what its script made");
    let (storage, raw) = before.migrate(&path);
    assert_like_new(&raw);
    let run = storage.get_run(RunId::new(1)).expect("run 1");
    assert_eq!((run.spec.kind.clone(), run.state.clone()), (RunKind::Games { pairs: 2 }, RunState::Completed));
    // Networks can be stored, and a variant may name one once it is.
    let bytes = engine::nnue::Network::random(5, 16).to_bytes();
    let id = engine::nnue::NetworkId::of_file(&bytes);
    let set = engine::ParamSet { eval_spec: engine::EvalSpec::Nnue(id), ..engine::ParamSet::default() };
    let spec = proto::domain::VariantSpec { name: "net".into(), kind: VariantKind::Params { toml: set.to_toml() } };
    let refused = storage.add_variant(&spec).expect_err("the network is not stored yet");
    assert!(refused.to_string().contains(&format!("network {id} not found")), "{refused}");
    storage.add_network(id, &bytes, 4_000_000_000_000).expect("stored");
    let variant = storage.add_variant(&spec).expect("now it is");
    drop(storage);
    let reopened = SqliteStorage::open(&path).expect("reopen");
    assert_eq!(reopened.get_network(id).expect("kept"), bytes);
    assert_eq!(reopened.get_variant(&variant.id).expect("kept").spec, spec);
}

#[test]
fn a_version_10_database_has_workers_of_no_simd_level_whose_network_runs_are_unscaled() {
    use std::num::NonZeroU64;

    use proto::domain::{RunSpec, TimeControl};
    let (_dir, path) = copy_of(FIXTURE_V10);
    let before = Before::read(&path, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert_eq!(before.counts(), [1, 2, 1, 1, 1, 2], "the fixture is what its script made");
    let (storage, raw) = before.migrate(&path);
    assert_like_new(&raw);
    // The old worker said no SIMD level and measured no speed with a network; its HCE speed stays.
    let (simd, nnue): (Option<String>, i64) =
        raw.query_row("SELECT simd, nnue_bench_nps FROM workers", [], |r| Ok((r.get(0)?, r.get(1)?))).expect("worker");
    assert_eq!((simd, nnue), (None, 0));
    let listed = storage.list_workers(4_000_000_000_000).expect("workers");
    let row = &listed[0];
    assert_eq!((row.name.as_str(), row.bench_nps, row.simd, row.nnue_bench_nps), ("w-measured", 500_000, None, 0));

    // The fixture's network run, again at a move time: the old worker plays it unscaled (the
    // HCE's ratio would have doubled it), a worker that measured a network is scaled by it.
    let old = storage.get_run(RunId::new(1)).expect("run 1");
    assert_eq!((old.spec.name.as_str(), old.state.clone()), ("net-run", RunState::Completed));
    let now = 4_000_000_000_000;
    let spec = RunSpec {
        name: "net-timed".into(),
        kind: RunKind::Games { pairs: 10 },
        tc: TimeControl::MoveTimeMs(100),
        ..old.spec.clone()
    };
    let run = storage.create_run(&spec, now).expect("a run of the stored network");
    let both = ReferenceNps { hce: NonZeroU64::new(1_000_000), nnue: NonZeroU64::new(400_000) };
    let lease = storage.lease_batch_scaled(row.id, 1, both, now).expect("lease").expect("work");
    assert_eq!((lease.run, lease.tc), (run.id, TimeControl::MoveTimeMs(100)));
    let info = WorkerInfo {
        bench_nps: 500_000,
        simd: Some(SimdLevel::Avx2),
        nnue_bench_nps: 200_000,
        ..engine_worker("new", Vec::new())
    };
    let new = storage.register_worker(&info, now).expect("register");
    let scaled = storage.lease_batch_scaled(new, 1, both, now).expect("lease").expect("work");
    assert_eq!(scaled.tc, TimeControl::MoveTimeMs(200));
    drop(storage);
    let reopened = SqliteStorage::open(&path).expect("reopen");
    let rows = reopened.list_workers(now).expect("workers");
    assert_eq!((rows[1].simd, rows[1].nnue_bench_nps), (Some(SimdLevel::Avx2), 200_000));
    assert_eq!(reopened.lease_terms(scaled.id).expect("terms").tc, TimeControl::MoveTimeMs(200));
}
