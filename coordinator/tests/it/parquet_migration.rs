//! Parquet files written by the previous schemas are upgraded in place when the coordinator
//! starts: the games gain their opening line (version 1), the positions their nullable
//! `search_score` (versions 1 and 2), and no value of any file changes.
//!
//! `tests/data/data-v6/` (Parquet schema version 1) and `tests/data/farm-v6.db` (SQLite schema
//! version 6) were written together by xqfarm at commit a9126ec with
//! `tests/data/make-farm-v6.sh`: a suite of four lines of 0 to 3 moves and one completed run
//! (run 1) of 4 pairs, positions sampled every 4 plies. `tests/data/data-v8/` (Parquet schema
//! version 2) and `tests/data/farm-v8.db` (SQLite schema version 8) were written together by
//! `tests/data/make-farm-v8.sh` (see `tests/it/migration.rs`).

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use coordinator::farm::Farm;
use coordinator::{ManualClock, SqliteStorage, Storage};
use farmdata::{Table, part_files, read_games, read_positions};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use proto::columns::{games, positions};
use proto::domain::RunId;

const DB_V6: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/farm-v6.db");
const DATA_V6: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/data-v6");
const DB_V8: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/farm-v8.db");
const DATA_V8: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/data-v8");

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read fixture dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A private copy of the fixture: the database and the data directory.
fn fixture() -> (tempfile::TempDir, PathBuf, PathBuf) {
    fixture_of(DB_V6, DATA_V6)
}

fn fixture_of(db_file: &str, data_dir: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("farm.db");
    std::fs::copy(db_file, &db).expect("copy the database");
    let data = dir.path().join("data");
    copy_dir(Path::new(data_dir), &data);
    (dir, db, data)
}

/// Every column of a part file as text, by name, with the file's schema version.
fn columns(path: &Path) -> (Option<String>, BTreeMap<String, Vec<String>>) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).expect("open")).expect("a parquet file");
    let version = builder.schema().metadata().get("xqfarm.schema_version").cloned();
    let batches: Vec<RecordBatch> = builder.build().expect("reader").map(|b| b.expect("batch")).collect();
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for batch in &batches {
        for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
            let texts = (0..column.len()).map(|i| arrow_cast_text(column.as_ref(), i)).collect::<Vec<_>>();
            out.entry(field.name().clone()).or_default().extend(texts);
        }
    }
    (version, out)
}

fn arrow_cast_text(column: &dyn arrow_array::Array, i: usize) -> String {
    format!("{:?}", column.slice(i, 1))
}

fn all_parts(data: &Path, table: Table, run: RunId) -> Vec<PathBuf> {
    part_files(data, table, run).expect("part files").into_iter().map(|(_, p)| p).collect()
}

#[test]
fn version_1_games_files_gain_their_opening_lines_and_nothing_else_changes() {
    let (_dir, db, data) = fixture();
    let run = RunId::new(1);
    let games_before = all_parts(&data, Table::Games, run);
    let positions_before = all_parts(&data, Table::Positions, run);
    assert!(!games_before.is_empty() && !positions_before.is_empty(), "the fixture has part files");
    let before: Vec<_> = games_before.iter().map(|p| columns(p)).collect();
    let positions: Vec<_> = positions_before.iter().map(|p| columns(p)).collect();
    for (version, cols) in &before {
        assert_eq!(version.as_deref(), Some("1"), "the fixture is of schema version 1");
        assert!(!cols.contains_key(games::OPENING_MOVES));
    }
    // The current build reads no version 1 file as it is: it would lack the opening line.
    assert!(read_games(&data, run).is_err());

    let storage = Arc::new(SqliteStorage::open(&db).expect("the database opens"));
    let suite = storage.get_suite(storage.get_run(run).expect("run 1").spec.openings).expect("its suite");
    let farm =
        Farm::new(storage.clone(), Arc::new(ManualClock::new(1_000)), Some(data.clone())).expect("the farm starts");

    // The same part files, each rewritten at the current schema version (3: version 2's games).
    assert_eq!(all_parts(&data, Table::Games, run), games_before);
    assert_eq!(all_parts(&data, Table::Positions, run), positions_before);
    for (path, (_, old)) in games_before.iter().zip(&before) {
        let (version, new) = columns(path);
        assert_eq!(version.as_deref(), Some(farmdata::SCHEMA_VERSION), "{}", path.display());
        let names: Vec<&str> = new.keys().map(String::as_str).collect();
        let mut expected: Vec<&str> = games::ALL.to_vec();
        expected.sort_unstable();
        assert_eq!(names, expected);
        for (name, values) in old {
            assert_eq!(&new[name], values, "column `{name}` of {}", path.display());
        }
    }
    for (path, (version, old)) in positions_before.iter().zip(&positions) {
        let (now, new) = columns(path);
        assert_eq!(version.as_deref(), Some("1"));
        assert_eq!(
            now.as_deref(),
            Some(farmdata::SCHEMA_VERSION),
            "positions files take the nullable score: {}",
            path.display()
        );
        assert_eq!(&new, old, "no value of a positions file changes: {}", path.display());
    }

    // Each game's line is its suite's line `opening_id`, and leads to its start position.
    let rows = read_games(&data, run).expect("the migrated run reads");
    assert_eq!(rows.len() as u64, farm.exported_games(run));
    let mut lengths = std::collections::BTreeSet::new();
    for g in &rows {
        let line = engine::OpeningLine::parse(&suite.openings[g.opening_id as usize]).expect("a suite line");
        assert_eq!(g.opening_fen, line.setup.fen(), "game {}", g.game_id);
        assert_eq!(g.opening_moves, line.moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(), "game {}", g.game_id);
        assert_eq!(g.start_fen, line.position.fen(), "game {}", g.game_id);
        lengths.insert(g.opening_moves.len());
    }
    assert!(lengths.len() > 1, "the fixture's games used lines of several lengths: {lengths:?}");
    assert_eq!(
        read_positions(&data, run).expect("positions read").len(),
        positions.iter().map(|(_, c)| c[games::GAME_ID].len()).sum::<usize>()
    );

    // Starting again finds nothing to upgrade and changes nothing.
    let after: Vec<_> = games_before.iter().map(|p| std::fs::read(p).expect("read")).collect();
    drop(farm);
    Farm::new(storage, Arc::new(ManualClock::new(2_000)), Some(data.clone())).expect("the farm starts again");
    let again: Vec<_> = games_before.iter().map(|p| std::fs::read(p).expect("read")).collect();
    assert_eq!(after, again);
}

#[test]
fn version_2_positions_files_take_a_nullable_score_and_keep_every_value() {
    let (_dir, db, data) = fixture_of(DB_V8, DATA_V8);
    let run = RunId::new(1);
    let games_before: Vec<_> =
        all_parts(&data, Table::Games, run).iter().map(|p| std::fs::read(p).expect("read")).collect();
    let positions_before = all_parts(&data, Table::Positions, run);
    assert!(!positions_before.is_empty(), "the fixture has positions");
    let before: Vec<_> = positions_before.iter().map(|p| columns(p)).collect();
    for (version, cols) in &before {
        assert_eq!(version.as_deref(), Some("2"), "the fixture is of schema version 2");
        assert!(cols[positions::SEARCH_SCORE].iter().all(|v| !v.contains("null")));
    }
    // Readable before the upgrade, every score given.
    let rows_before = read_positions(&data, run).expect("version 2 positions read");
    assert_eq!(rows_before.len(), 110);
    assert!(rows_before.iter().all(|p| p.search_score.is_some()));

    let storage = Arc::new(SqliteStorage::open(&db).expect("the database opens"));
    let farm = Farm::new(storage, Arc::new(ManualClock::new(1_000)), Some(data.clone())).expect("the farm starts");
    assert_eq!(all_parts(&data, Table::Positions, run), positions_before, "the same files");
    for (path, (_, old)) in positions_before.iter().zip(&before) {
        let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).expect("open")).expect("parquet");
        let field = builder.schema().field_with_name(positions::SEARCH_SCORE).expect("the column").clone();
        assert!(field.is_nullable(), "{}", path.display());
        let (version, new) = columns(path);
        assert_eq!(version.as_deref(), Some(farmdata::SCHEMA_VERSION));
        assert_eq!(&new, old, "every value as it was: {}", path.display());
    }
    assert_eq!(read_positions(&data, run).expect("reads"), rows_before);
    // Games files of version 2 did not change in version 3: left as they were.
    let games_after: Vec<_> =
        all_parts(&data, Table::Games, run).iter().map(|p| std::fs::read(p).expect("read")).collect();
    assert_eq!(games_after, games_before);
    assert_eq!(farm.exported_games(run), 4);
}
