//! The report's ECCO section end to end: a `games` table with the coordinator's full column
//! set written with the parquet crate's Arrow writer, read back by the openings query and rendered.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use analysis::data::{self, EccoFamily};
use analysis::report::{self, ReportOptions};
use analysis::stats::Wdl;
use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch, StringArray, UInt32Array, UInt64Array};
use engine::START_FEN;
use parquet::arrow::ArrowWriter;
use proto::columns::games;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The initial position without Red's left rook: not a position ECCO classifies.
const ROOKLESS: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/1NBAKABNR w - - 0 1";

/// One game: the suite's line (FEN and moves), the players' moves and the result.
struct Game<'a> {
    opening_fen: &'a str,
    opening_moves: Vec<&'a str>,
    moves: Vec<&'a str>,
    result: &'a str,
}

fn game<'a>(opening_fen: &'a str, opening_moves: &'a str, moves: &'a str, result: &'a str) -> Game<'a> {
    Game {
        opening_fen,
        opening_moves: opening_moves.split_whitespace().collect(),
        moves: moves.split_whitespace().collect(),
        result,
    }
}

/// A List<Utf8> column: one move list per row.
fn move_lists<'a>(lists: impl IntoIterator<Item = &'a [&'a str]>) -> ArrayRef {
    let mut builder = ListBuilder::new(StringBuilder::new());
    for list in lists {
        for m in list {
            builder.values().append_value(m);
        }
        builder.append(true);
    }
    Arc::new(builder.finish())
}

fn strings<'a>(values: impl IntoIterator<Item = &'a str>) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(values))
}

fn u64s(values: impl IntoIterator<Item = u64>) -> ArrayRef {
    Arc::new(UInt64Array::from_iter_values(values))
}

/// Writes the named columns as one Parquet file at `path`.
fn write(columns: Vec<(&str, ArrayRef)>, path: &Path) -> TestResult {
    std::fs::create_dir_all(path.parent().ok_or("no parent")?)?;
    let batch = RecordBatch::try_from_iter(columns)?;
    let mut writer = ArrowWriter::try_new(File::create(path)?, batch.schema(), None)?;
    writer.write(&batch)?;
    writer.close()?;
    Ok(())
}

/// Writes `list` as one file of run `run`, every column of [`games::ALL`] typed as the
/// coordinator's schema types it.
fn write_games(dir: &Path, run: u64, list: &[Game]) -> TestResult {
    let n = list.len();
    let columns = vec![
        (games::GAME_ID, u64s(1..=n as u64)),
        (games::PAIR_ID, u64s((0..n as u64).map(|g| g / 2))),
        (games::OPENING_ID, Arc::new(UInt32Array::from(vec![0u32; n])) as ArrayRef),
        (games::OPENING_FEN, strings(list.iter().map(|g| g.opening_fen))),
        (games::OPENING_MOVES, move_lists(list.iter().map(|g| g.opening_moves.as_slice()))),
        // Only the classifier's input matters here; the start position is not read.
        (games::START_FEN, strings(vec![START_FEN; n])),
        (games::RED_VARIANT, strings(vec!["a"; n])),
        (games::BLACK_VARIANT, strings(vec!["b"; n])),
        (games::RESULT, strings(list.iter().map(|g| g.result))),
        (games::REASON, strings(vec!["checkmate"; n])),
        (games::PLIES, Arc::new(UInt32Array::from_iter_values(list.iter().map(|g| g.moves.len() as u32)))),
        (games::MOVES, move_lists(list.iter().map(|g| g.moves.as_slice()))),
        (games::DURATION_MS, u64s(vec![1000; n])),
        (games::NODES, u64s(vec![5000; n])),
        (games::WORKER, strings(vec!["w1"; n])),
    ];
    let names: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, games::ALL, "the file has the coordinator's columns in order");
    write(columns, &dir.join(format!("games/run={run}/part-000000000001-{n:012}.parquet")))
}

fn wdl(wins: u64, draws: u64, losses: u64) -> Wdl {
    Wdl { wins, draws, losses }
}

#[test]
fn the_report_counts_openings_over_the_suite_line_and_the_moves() -> TestResult {
    let dir = tempfile::tempdir()?;
    // 24 plies of rook shuffles: a game longer than what the classifier reads.
    let shuffles = "a0a1 a9a8 a1a0 a8a9 ".repeat(6);
    let pawn_then_shuffles = format!("c3c4 {shuffles}");
    write_games(
        dir.path(),
        1,
        &[
            // The screen horses, the suite playing the central cannon (a Red win)...
            game(START_FEN, "h2e2", "h9g7 h0g2 b9c7", "1-0"),
            // ...and the players playing all of it (a draw): one opening either way.
            game(START_FEN, "", "h2e2 h9g7 h0g2 b9c7", "1/2-1/2"),
            // The pawn opening, all in the suite's line (a Red loss).
            game(START_FEN, "c3c4", "", "0-1"),
            // Not from the initial position (a Red win).
            game(ROOKLESS, "", "h2e2", "1-0"),
        ],
    )?;
    write_games(
        dir.path(),
        2,
        &[game(START_FEN, "h0g2", "h9g7", "1-0"), game(START_FEN, "", &pawn_then_shuffles, "1/2-1/2")],
    )?;

    let runs = data::openings(dir.path(), None)?;
    assert_eq!(runs.iter().map(|r| r.run).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(*runs[0].family(EccoFamily::C), wdl(1, 1, 0));
    assert_eq!(*runs[0].family(EccoFamily::E), wdl(0, 0, 1));
    assert_eq!(runs[0].unclassified, wdl(1, 0, 0));
    assert_eq!(runs[0].games(), 4);
    assert_eq!(runs[0].codes[0].opening.code, "C00");
    assert_eq!(*runs[1].family(EccoFamily::A), wdl(1, 0, 0));
    assert_eq!(*runs[1].family(EccoFamily::E), wdl(0, 1, 0));
    assert_eq!(data::openings(dir.path(), Some(2))?.len(), 1);

    let report = report::build(dir.path(), &ReportOptions::default())?;
    assert_eq!(report.openings, runs);
    let md = report::render(&report, &[]);
    for row in [
        "| 1 | C 中炮对屏风马 (central cannon against the screen horses) | 2 | 1 | 1 | 0 | 75.0% |",
        "| 1 | E 仙人指路 (the pawn opening) | 1 | 0 | 0 | 1 | 0.0% |",
        "| 1 | unclassified (not from the initial position) | 1 | 1 | 0 | 0 | 100.0% |",
        "| 1 | C00 | 中炮对屏风马 | 2 | 1 | 1 | 0 | 75.0% |",
        "| 2 | E 仙人指路 (the pawn opening) | 1 | 0 | 1 | 0 | 50.0% |",
    ] {
        assert!(md.lines().any(|l| l == row), "missing `{row}` in\n{md}");
    }
    Ok(())
}

#[test]
fn files_without_the_opening_line_are_read_from_their_start() -> TestResult {
    // A version-1 file: no `opening_fen` nor `opening_moves`; `start_fen` as older runs wrote it.
    let dir = tempfile::tempdir()?;
    let moves: [&[&str]; 2] = [&["h2e2", "h9g7", "h0g2", "b9c7"], &["h9g7"]];
    let columns = vec![
        (games::GAME_ID, u64s([1, 2])),
        (games::START_FEN, strings(["startpos", ROOKLESS])),
        (games::RESULT, strings(["1-0", "0-1"])),
        (games::MOVES, move_lists(moves)),
    ];
    write(columns, &dir.path().join("games/run=5/part-000000000001-000000000002.parquet"))?;
    let runs = data::openings(dir.path(), None)?;
    assert_eq!(runs.len(), 1);
    assert_eq!(*runs[0].family(EccoFamily::C), wdl(1, 0, 0));
    assert_eq!(runs[0].unclassified, wdl(0, 0, 1));
    Ok(())
}

#[test]
fn a_result_outside_the_closed_set_is_an_error_naming_it() -> TestResult {
    let dir = tempfile::tempdir()?;
    write_games(dir.path(), 9, &[game(START_FEN, "", "h2e2", "2-0")])?;
    let err = data::openings(dir.path(), None).expect_err("`2-0` is no result").to_string();
    assert!(err.contains("run 9") && err.contains("`2-0`") && err.contains(&dir.path().display().to_string()), "{err}");
    Ok(())
}
