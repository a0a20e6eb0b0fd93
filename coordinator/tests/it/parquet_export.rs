//! The Parquet export end to end: segments written and read back, retried, compacted, and
//! repaired after simulated crashes; every game must end up in exactly one part file.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use farmdata::{
    CompactionPolicy, Error, GameRow, PartRange, PositionRow, Recovered, Table, compact, export_segment, part_files,
    part_path, partition_dir, read_games, read_positions, recover, temp_dir,
};
use proto::domain::RunId;

type Game = (GameRow, Vec<PositionRow>);

fn game(run: u64, game_id: u64) -> Game {
    let run = RunId::new(run);
    // Lengths vary from 0 moves (a game lost on time before its first move) upwards.
    let plies = (game_id * 7 % 23) as usize;
    let moves: Vec<String> =
        ["h2e2", "h9g7", "h0g2", "i9h9", "b0c2", "b9c7"].iter().cycle().take(plies).map(|m| m.to_string()).collect();
    let result = ["1-0", "0-1", "1/2-1/2"][(game_id % 3) as usize];
    let row = GameRow {
        run,
        game_id,
        pair_id: game_id / 2,
        opening_id: (game_id / 2 % 200) as u32,
        opening_fen: engine::START_FEN.to_owned(),
        // Opening lines of 0 to 3 moves.
        opening_moves: ["b2e2", "b9c7", "b0c2"].iter().take((game_id % 4) as usize).map(|m| m.to_string()).collect(),
        start_fen: format!("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 {game_id}"),
        red_variant: if game_id.is_multiple_of(2) { "base" } else { "candidate" }.to_owned(),
        black_variant: if game_id.is_multiple_of(2) { "candidate" } else { "base" }.to_owned(),
        result: result.to_owned(),
        reason: "checkmate".to_owned(),
        plies: plies as u32,
        moves,
        duration_ms: 1000 + game_id,
        nodes: 5000 * game_id,
        worker: format!("工作机-{}", game_id % 3),
    };
    let red_score = match result {
        "1-0" => 1.0,
        "0-1" => 0.0,
        _ => 0.5,
    };
    let positions = (0..game_id % 4)
        .map(|k| PositionRow {
            run,
            game_id,
            ply: 10 + k as u32,
            fen: format!("fen of game {game_id} ply {k}"),
            side_to_move: if k % 2 == 0 { "w" } else { "b" }.to_owned(),
            static_eval: k as i32 * 13 - 20,
            // A position whose engine gave no score: null in Parquet.
            search_score: (k != 2).then(|| -(k as i32) * 7),
            best_move: "h2e2".to_owned(),
            in_check: k == 1,
            quiet: k != 1,
            result: Some(red_score),
        })
        .collect();
    (row, positions)
}

fn games(run: u64, ids: std::ops::RangeInclusive<u64>) -> Vec<Game> {
    let run = RunId::new(run);
    ids.map(|id| game(run.get(), id)).collect()
}

fn game_rows(games: &[Game]) -> Vec<GameRow> {
    games.iter().map(|(g, _)| g.clone()).collect()
}

fn position_rows(games: &[Game]) -> Vec<PositionRow> {
    games.iter().flat_map(|(_, p)| p.clone()).collect()
}

fn names(data: &Path, table: Table, run: u64) -> Vec<String> {
    let run = RunId::new(run);
    let mut names: Vec<String> = std::fs::read_dir(partition_dir(data, table, run))
        .map(|entries| entries.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

fn ranges(data: &Path, table: Table, run: u64) -> Vec<PartRange> {
    let run = RunId::new(run);
    part_files(data, table, run).expect("listable").into_iter().map(|(r, _)| r).collect()
}

/// Every game id of the run, read back, exactly once and in order, with its positions.
fn assert_exactly_once(data: &Path, run: u64, expected: &[Game]) {
    let run = RunId::new(run);
    assert_eq!(read_games(data, run).expect("readable"), game_rows(expected));
    assert_eq!(read_positions(data, run).expect("readable"), position_rows(expected));
    assert_eq!(ranges(data, Table::Games, run.get()), ranges(data, Table::Positions, run.get()), "segments pair up");
    for table in Table::ALL {
        let strays: Vec<String> =
            names(data, table, run.get()).into_iter().filter(|n| !n.starts_with("part-")).collect();
        assert!(strays.is_empty(), "only part files in the partition: {strays:?}");
    }
}

fn export_in_segments(data: &Path, run: u64, all: &[Game], size: usize) {
    let run = RunId::new(run);
    for chunk in all.chunks(size) {
        export_segment(data, run, chunk).expect("exported");
    }
}

/// Copies every part file of the run aside, to put some back later and so fake a crash.
fn snapshot(data: &Path, run: u64) -> Vec<(PathBuf, Vec<u8>)> {
    let run = RunId::new(run);
    Table::ALL
        .into_iter()
        .flat_map(|t| part_files(data, t, run).expect("listable"))
        .map(|(_, path)| {
            let bytes = std::fs::read(&path).expect("readable");
            (path, bytes)
        })
        .collect()
}

#[test]
fn segments_read_back_exactly() {
    let data = tempfile::tempdir().expect("temp dir");
    let run1 = games(1, 1..=25);
    let run2 = games(2, 1..=4);
    export_in_segments(data.path(), 1, &run1, 10);
    export_in_segments(data.path(), 2, &run2, 10);
    assert_eq!(
        names(data.path(), Table::Games, 1),
        [
            "part-000000000001-000000000010.parquet",
            "part-000000000011-000000000020.parquet",
            "part-000000000021-000000000025.parquet"
        ]
    );
    assert!(data.path().join("positions/run=1/part-000000000021-000000000025.parquet").is_file());
    assert_exactly_once(data.path(), 1, &run1);
    assert_exactly_once(data.path(), 2, &run2);
    let read = read_games(data.path(), RunId::new(1)).expect("readable");
    assert!(read.iter().any(|g| g.moves.is_empty()), "an empty move list survives");
    assert_eq!(read[5].moves, run1[5].0.moves);
    assert!(read_games(data.path(), RunId::new(3)).expect("an absent run is empty").is_empty());
}

#[test]
fn a_segment_without_positions_still_gets_its_positions_file() {
    let data = tempfile::tempdir().expect("temp dir");
    let segment = vec![game(1, 4)]; // 4 % 4 == 0 positions
    assert!(segment[0].1.is_empty());
    export_segment(data.path(), RunId::new(1), &segment).expect("exported");
    assert_eq!(ranges(data.path(), Table::Positions, 1), [PartRange { first: 4, last: 4 }]);
    assert_exactly_once(data.path(), 1, &segment);
}

#[test]
fn rewriting_a_segment_is_idempotent() {
    let data = tempfile::tempdir().expect("temp dir");
    let all = games(1, 1..=20);
    export_in_segments(data.path(), 1, &all, 10);
    let path = part_path(data.path(), Table::Games, RunId::new(1), PartRange { first: 11, last: 20 });
    let before = std::fs::read(&path).expect("readable");
    export_segment(data.path(), RunId::new(1), &all[10..]).expect("retried");
    export_segment(data.path(), RunId::new(1), &all[10..]).expect("retried again");
    assert_eq!(std::fs::read(&path).expect("readable"), before, "a retry writes the same bytes");
    assert_exactly_once(data.path(), 1, &all);
}

#[test]
fn overlapping_and_malformed_segments_are_refused() {
    let data = tempfile::tempdir().expect("temp dir");
    let all = games(1, 1..=20);
    export_segment(data.path(), RunId::new(1), &all[..10]).expect("exported");
    assert!(matches!(export_segment(data.path(), RunId::new(1), &all[5..15]), Err(Error::Overlap { .. })));
    assert!(matches!(export_segment(data.path(), RunId::new(1), &[]), Err(Error::BadSegment { .. })));
    let mut reversed = all[10..12].to_vec();
    reversed.reverse();
    assert!(matches!(export_segment(data.path(), RunId::new(1), &reversed), Err(Error::BadSegment { .. })));
    assert!(matches!(export_segment(data.path(), RunId::new(2), &all[10..12]), Err(Error::BadSegment { .. })));
    let mut stray = all[10..12].to_vec();
    stray[0].1.push(game(1, 3).1[0].clone());
    assert!(matches!(export_segment(data.path(), RunId::new(1), &stray), Err(Error::BadSegment { .. })));
    assert_exactly_once(data.path(), 1, &all[..10]);
}

#[test]
fn recover_deletes_temp_files() {
    let data = tempfile::tempdir().expect("temp dir");
    let all = games(1, 1..=10);
    export_segment(data.path(), RunId::new(1), &all).expect("exported");
    // A write killed before its rename: half a Parquet file under a temp name, in both tables.
    let games_file = part_path(data.path(), Table::Games, RunId::new(1), PartRange { first: 1, last: 10 });
    let bytes = std::fs::read(&games_file).expect("readable");
    let temps = temp_dir(data.path());
    for table in ["games", "positions"] {
        let temp = temps.join(format!("{table}-run=1-4242-7-part-000000000011-000000000020.parquet"));
        std::fs::write(temp, &bytes[..bytes.len() / 2]).expect("writable");
    }
    // A write of run 12 in flight is not run 1's business.
    let other = temps.join("games-run=12-4242-8-part-000000000001-000000000009.parquet");
    std::fs::write(&other, b"PAR1").expect("writable");
    assert_eq!(recover(data.path(), RunId::new(1), 10).expect("recovered"), dense(10));
    assert_exactly_once(data.path(), 1, &all);
    let left: Vec<_> = std::fs::read_dir(&temps).expect("listable").filter_map(|e| e.ok()).map(|e| e.path()).collect();
    assert_eq!(left, [other]);
}

/// What `recover` says of a run whose game ids are 1..=`last`, all exported.
fn dense(last: u64) -> Recovered {
    Recovered { exported_up_to: last, games: last }
}

#[test]
fn recover_counts_the_games_in_the_files_not_the_ids_below_the_mark() {
    let data = tempfile::tempdir().expect("temp dir");
    // Game ids are shared by all runs: run 2's games are 101..=120 and 141..=150.
    let mut all = games(2, 101..=120);
    all.extend(games(2, 141..=150));
    export_in_segments(data.path(), 2, &all, 10);
    assert_eq!(
        recover(data.path(), RunId::new(2), 120).expect("recovered"),
        Recovered { exported_up_to: 150, games: 30 },
        "20 games below the mark, 10 adopted beyond it"
    );
    assert_eq!(
        recover(data.path(), RunId::new(2), 0).expect("recovered"),
        Recovered { exported_up_to: 150, games: 30 }
    );
}

#[test]
fn recover_adopts_a_segment_the_bookkeeping_missed() {
    let data = tempfile::tempdir().expect("temp dir");
    let all = games(1, 1..=30);
    export_in_segments(data.path(), 1, &all, 10);
    // The coordinator died after the renames of 21..=30 but before recording them.
    assert_eq!(recover(data.path(), RunId::new(1), 20).expect("recovered"), dense(30));
    // And after the renames of both 11..=20 and 21..=30 (an exporter that pipelines).
    assert_eq!(recover(data.path(), RunId::new(1), 10).expect("recovered"), dense(30));
    assert_exactly_once(data.path(), 1, &all);
    // Recovering again changes nothing.
    assert_eq!(recover(data.path(), RunId::new(1), 30).expect("recovered"), dense(30));
    assert_exactly_once(data.path(), 1, &all);
}

#[test]
fn recover_drops_an_export_cut_between_its_two_renames() {
    let data = tempfile::tempdir().expect("temp dir");
    let all = games(1, 1..=30);
    export_in_segments(data.path(), 1, &all[..20], 10);
    std::fs::remove_file(part_path(data.path(), Table::Games, RunId::new(1), PartRange { first: 11, last: 20 }))
        .expect("removed");
    assert_eq!(recover(data.path(), RunId::new(1), 10).expect("recovered"), dense(10));
    assert_exactly_once(data.path(), 1, &all[..10]);
    // The caller re-exports from the mark, with other bounds this time.
    export_segment(data.path(), RunId::new(1), &all[10..]).expect("exported");
    assert_exactly_once(data.path(), 1, &all);
}

#[test]
fn recover_drops_torn_and_foreign_part_files_beyond_the_mark() {
    let data = tempfile::tempdir().expect("temp dir");
    let all = games(1, 1..=20);
    export_in_segments(data.path(), 1, &all, 10);
    // A games file cut short (a file system that lost the tail), and then one holding the
    // positions table's columns under a games name.
    let games_file = part_path(data.path(), Table::Games, RunId::new(1), PartRange { first: 11, last: 20 });
    let bytes = std::fs::read(&games_file).expect("readable");
    std::fs::write(&games_file, &bytes[..bytes.len() - 100]).expect("writable");
    assert_eq!(recover(data.path(), RunId::new(1), 10).expect("recovered"), dense(10));
    assert_exactly_once(data.path(), 1, &all[..10]);

    export_segment(data.path(), RunId::new(1), &all[10..]).expect("exported");
    let positions_file = part_path(data.path(), Table::Positions, RunId::new(1), PartRange { first: 11, last: 20 });
    std::fs::copy(&positions_file, &games_file).expect("copied");
    assert_eq!(recover(data.path(), RunId::new(1), 10).expect("recovered"), dense(10));
    assert_exactly_once(data.path(), 1, &all[..10]);
}

#[test]
fn recover_refuses_to_delete_the_only_copy_of_committed_games() {
    let data = tempfile::tempdir().expect("temp dir");
    let all = games(1, 1..=20);
    export_in_segments(data.path(), 1, &all, 10);
    std::fs::remove_file(part_path(data.path(), Table::Games, RunId::new(1), PartRange { first: 11, last: 20 }))
        .expect("removed");
    assert!(matches!(recover(data.path(), RunId::new(1), 20), Err(Error::Inconsistent { .. })));
    assert_eq!(ranges(data.path(), Table::Positions, 1).len(), 2, "nothing deleted");
}

fn small_policy() -> CompactionPolicy {
    CompactionPolicy { small_part_games: 20, max_small_parts: 3, max_merged_games: 40 }
}

#[test]
fn compaction_merges_consecutive_small_segments() {
    let data = tempfile::tempdir().expect("temp dir");
    let all = games(1, 1..=130);
    // Ten small segments, one large one (61..=90), then four small ones.
    export_in_segments(data.path(), 1, &all[..50], 5);
    export_segment(data.path(), RunId::new(1), &all[50..90]).expect("exported");
    export_in_segments(data.path(), 1, &all[90..110], 5);
    export_in_segments(data.path(), 1, &all[110..], 5); // 111..=130, not yet recorded
    let merged = compact(data.path(), RunId::new(1), 110, &small_policy()).expect("compacted");
    let r = |first, last| PartRange { first, last };
    assert_eq!(merged, [r(1, 40), r(41, 50), r(91, 110)]);
    assert_eq!(
        ranges(data.path(), Table::Games, 1),
        [r(1, 40), r(41, 50), r(51, 90), r(91, 110), r(111, 115), r(116, 120), r(121, 125), r(126, 130)]
    );
    assert_exactly_once(data.path(), 1, &all);
    // Below the threshold nothing happens.
    assert!(compact(data.path(), RunId::new(1), 110, &small_policy()).expect("compacted").is_empty());
}

#[test]
fn compaction_cut_after_its_renames_is_repaired() {
    let data = tempfile::tempdir().expect("temp dir");
    let all = games(1, 1..=30);
    export_in_segments(data.path(), 1, &all, 5);
    let inputs = snapshot(data.path(), 1);
    assert_eq!(compact(data.path(), RunId::new(1), 30, &small_policy()).expect("compacted").len(), 1);
    // Put the inputs back: the crash came after both renames, before any deletion.
    for (path, bytes) in &inputs {
        std::fs::write(path, bytes).expect("restored");
    }
    assert_eq!(recover(data.path(), RunId::new(1), 30).expect("recovered"), dense(30));
    assert_eq!(ranges(data.path(), Table::Games, 1), [PartRange { first: 1, last: 30 }]);
    assert_exactly_once(data.path(), 1, &all);
}

#[test]
fn compaction_cut_during_its_deletions_is_repaired() {
    let data = tempfile::tempdir().expect("temp dir");
    let all = games(1, 1..=30);
    export_in_segments(data.path(), 1, &all, 5);
    let inputs = snapshot(data.path(), 1);
    compact(data.path(), RunId::new(1), 30, &small_policy()).expect("compacted");
    // Some inputs deleted, some half deleted (positions file only), some not at all.
    for (path, bytes) in inputs.iter().filter(|(p, _)| p.to_string_lossy().contains("positions")).step_by(2) {
        std::fs::write(path, bytes).expect("restored");
    }
    for (path, bytes) in inputs.iter().skip(2).step_by(3) {
        std::fs::write(path, bytes).expect("restored");
    }
    // A compaction that finds covered leftovers deletes them itself ...
    let before = snapshot(data.path(), 1);
    assert!(compact(data.path(), RunId::new(1), 30, &small_policy()).expect("compacted").is_empty());
    assert_exactly_once(data.path(), 1, &all);
    // ... and so does recover.
    for (path, bytes) in &before {
        std::fs::write(path, bytes).expect("restored");
    }
    assert_eq!(recover(data.path(), RunId::new(1), 30).expect("recovered"), dense(30));
    assert_eq!(ranges(data.path(), Table::Games, 1), [PartRange { first: 1, last: 30 }]);
    assert_exactly_once(data.path(), 1, &all);
}

#[test]
fn compaction_cut_between_its_renames_is_repaired() {
    let data = tempfile::tempdir().expect("temp dir");
    let all = games(1, 1..=30);
    export_in_segments(data.path(), 1, &all, 5);
    let inputs = snapshot(data.path(), 1);
    compact(data.path(), RunId::new(1), 30, &small_policy()).expect("compacted");
    for (path, bytes) in &inputs {
        std::fs::write(path, bytes).expect("restored");
    }
    // The merged positions file was renamed, the merged games file was not.
    std::fs::remove_file(part_path(data.path(), Table::Games, RunId::new(1), PartRange { first: 1, last: 30 }))
        .expect("removed");
    // Compaction leaves such a state to recover.
    assert!(compact(data.path(), RunId::new(1), 30, &small_policy()).expect("compacted").is_empty());
    assert_eq!(recover(data.path(), RunId::new(1), 30).expect("recovered"), dense(30));
    assert_eq!(ranges(data.path(), Table::Positions, 1).len(), 6, "the inputs stay, the orphan goes");
    assert_exactly_once(data.path(), 1, &all);
    // And the next compaction goes through.
    assert_eq!(compact(data.path(), RunId::new(1), 30, &small_policy()).expect("compacted").len(), 1);
    assert_exactly_once(data.path(), 1, &all);
}

/// The files as pyarrow, pandas (and polars when installed) see them. Skipped with a note
/// when pyarrow or pandas cannot be imported; `.ci/run` installs them.
#[test]
fn python_reads_the_dataset() {
    let importable = Command::new("python3").args(["-c", "import pyarrow, pandas"]).output();
    if !importable.is_ok_and(|o| o.status.success()) {
        println!("note: skipped, python3 cannot import pyarrow and pandas (pip install pyarrow pandas)");
        return;
    }
    let data = tempfile::tempdir().expect("temp dir");
    let run1 = games(1, 1..=40);
    let run2 = games(2, 1..=7);
    export_in_segments(data.path(), 1, &run1, 10);
    export_in_segments(data.path(), 2, &run2, 3);
    compact(
        data.path(),
        RunId::new(1),
        40,
        &CompactionPolicy { small_part_games: 100, max_small_parts: 2, max_merged_games: 25 },
    )
    .expect("compacted");
    // A write in flight (under <data>/.tmp) must not disturb readers of the tables.
    std::fs::write(temp_dir(data.path()).join("games-run=1-1-1-part-000000000041-000000000050.parquet"), b"PAR1")
        .expect("writable");

    let script = r#"
import sys, pyarrow as pa, pyarrow.dataset as ds, pandas as pd
root = sys.argv[1]
games = ds.dataset(root + "/games", format="parquet", partitioning="hive").to_table()
positions = ds.dataset(root + "/positions", format="parquet", partitioning="hive").to_table()
moves_type = games.schema.field("moves").type
print("pyarrow_games", games.num_rows)
print("pyarrow_positions", positions.num_rows)
print("moves_is_list_of_string", pa.types.is_list(moves_type) and pa.types.is_string(moves_type.value_type))
print("types", ",".join(str(games.schema.field(c).type) for c in ["game_id", "opening_id", "duration_ms"]),
      ",".join(str(positions.schema.field(c).type) for c in ["static_eval", "in_check", "result"]))
def moves_of(rows):
    return ";".join(f"{g}:{' '.join(m)}" for g, m in sorted(rows))
t = games.filter(ds.field("run") == 1).to_pydict()
print("pyarrow_moves_run1", moves_of(zip(t["game_id"], t["moves"])))
df = pd.read_parquet(root + "/games")
print("pandas_games", len(df))
r1 = df[df["run"].astype(int) == 1]
print("pandas_moves_run1", moves_of(zip(r1["game_id"], (list(m) for m in r1["moves"]))))
print("pandas_workers", sorted(set(df["worker"])))
pos = pd.read_parquet(root + "/positions")
print("pandas_positions_run2", int((pos["run"].astype(int) == 2).sum()), sorted(set(pos["side_to_move"])))
try:
    import polars as pl
except ImportError:
    pl = None
if pl is not None:
    g = pl.scan_parquet(root + "/games/").filter(pl.col("run") == 1).sort("game_id").collect()
    print("polars_moves_run1", moves_of(zip(g["game_id"].to_list(), g["moves"].to_list())))
"#;
    let output = Command::new("python3").arg("-c").arg(script).arg(data.path()).output().expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "python failed:\n{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    let line = |key: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(key).and_then(|rest| rest.strip_prefix(' ')))
            .unwrap_or_else(|| panic!("no `{key}` in:\n{stdout}"))
            .to_owned()
    };
    let expected_moves =
        run1.iter().map(|(g, _)| format!("{}:{}", g.game_id, g.moves.join(" "))).collect::<Vec<_>>().join(";");
    let total_positions = run1.iter().chain(&run2).map(|(_, p)| p.len()).sum::<usize>();
    assert_eq!(line("pyarrow_games"), "47");
    assert_eq!(line("pyarrow_positions"), total_positions.to_string());
    assert_eq!(line("moves_is_list_of_string"), "True");
    assert_eq!(line("types"), "uint64,uint32,uint64 int32,bool,float");
    assert_eq!(line("pyarrow_moves_run1"), expected_moves);
    assert_eq!(line("pandas_games"), "47");
    assert_eq!(line("pandas_moves_run1"), expected_moves);
    assert_eq!(line("pandas_workers"), "['工作机-0', '工作机-1', '工作机-2']");
    let run2_positions = run2.iter().map(|(_, p)| p.len()).sum::<usize>();
    assert_eq!(line("pandas_positions_run2"), format!("{run2_positions} ['b', 'w']"));
    if stdout.contains("polars_moves_run1") {
        assert_eq!(line("polars_moves_run1"), expected_moves);
    } else {
        println!("note: Python's polars not importable; pandas and pyarrow checked the files");
    }
}

/// `cargo test -p coordinator --release --test it -- --ignored parquet_export:: --nocapture`
#[test]
#[ignore = "a measurement, not a check"]
fn export_throughput() {
    let data = tempfile::tempdir().expect("temp dir");
    let (segments, per_segment) = (40u64, 500u64);
    // Game and sample sizes of a nodes=5000 self-play game: ~120 plies, ~12 samples, every
    // FEN and most moves distinct (a linear congruential generator stands in for play).
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move |n: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let square = |next: &mut dyn FnMut(u64) -> u64| format!("{}{}", (b'a' + next(9) as u8) as char, next(10));
    let all: Vec<Game> = (1..=segments * per_segment)
        .map(|id| {
            let (mut g, _) = game(1, id);
            g.moves = (0..120).map(|_| format!("{}{}", square(&mut next), square(&mut next))).collect();
            g.plies = 120;
            let p = (0..12)
                .map(|k| PositionRow {
                    run: RunId::new(1),
                    game_id: id,
                    ply: 10 + 9 * k,
                    fen: format!(
                        "r1bakab1r/9/1cn4c1/p1p1p{}p1p/9/2P6/P3P1P1P/1C2C1N2/9/RNBAKAB1R {} - - 0 {}",
                        next(9) + 1,
                        if k % 2 == 0 { 'w' } else { 'b' },
                        next(1 << 40)
                    ),
                    side_to_move: if k % 2 == 0 { "w" } else { "b" }.to_owned(),
                    static_eval: next(600) as i32 - 300,
                    search_score: Some(next(800) as i32 - 400),
                    best_move: format!("{}{}", square(&mut next), square(&mut next)),
                    in_check: next(10) == 0,
                    quiet: next(3) != 0,
                    result: Some(0.5),
                })
                .collect();
            (g, p)
        })
        .collect();
    let rows = all.iter().map(|(_, p)| 1 + p.len()).sum::<usize>();
    let start = Instant::now();
    export_in_segments(data.path(), 1, &all, per_segment as usize);
    let export = start.elapsed();
    let start = Instant::now();
    let merged =
        compact(data.path(), RunId::new(1), segments * per_segment, &CompactionPolicy::default()).expect("compacted");
    let compaction = start.elapsed();
    let bytes: u64 = Table::ALL
        .into_iter()
        .flat_map(|t| part_files(data.path(), t, RunId::new(1)).expect("listable"))
        .map(|(_, p)| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
        .sum();
    println!(
        "export: {} games + {} positions = {rows} rows in {segments} segments, {:.3} s, {:.0} rows/s ({:.0} games/s); \
         compaction into {} part(s): {:.3} s; {:.1} bytes/game on disk",
        all.len(),
        rows - all.len(),
        export.as_secs_f64(),
        rows as f64 / export.as_secs_f64(),
        all.len() as f64 / export.as_secs_f64(),
        merged.len(),
        compaction.as_secs_f64(),
        bytes as f64 / all.len() as f64,
    );
    assert_exactly_once(data.path(), 1, &all);
}
