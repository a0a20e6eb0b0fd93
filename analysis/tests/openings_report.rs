//! The report's ECCO section end to end: a `games` table with the coordinator's full column
//! set written with polars, read back by the openings query and rendered.

use std::fs::File;
use std::path::Path;

use analysis::data::{self, EccoFamily};
use analysis::report::{self, ReportOptions};
use analysis::stats::Wdl;
use engine::START_FEN;
use polars::prelude::*;
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

fn move_list(moves: &[&str]) -> Series {
    if moves.is_empty() { Series::new_empty("".into(), &DataType::String) } else { Series::new("".into(), moves) }
}

/// Writes `list` as one file of run `run`, every column of [`games::ALL`] typed as the
/// coordinator's schema types it.
fn write_games(dir: &Path, run: u64, list: &[Game]) -> TestResult {
    let n = list.len();
    let mut df = df!(
        games::GAME_ID => (1..=n as u64).collect::<Vec<_>>(),
        games::PAIR_ID => (0..n as u64).map(|g| g / 2).collect::<Vec<_>>(),
        games::OPENING_ID => vec![0u32; n],
        games::OPENING_FEN => list.iter().map(|g| g.opening_fen).collect::<Vec<_>>(),
        games::OPENING_MOVES => list.iter().map(|g| move_list(&g.opening_moves)).collect::<Vec<_>>(),
        // Only the classifier's input matters here; the start position is not read.
        games::START_FEN => vec![START_FEN; n],
        games::RED_VARIANT => vec!["a"; n],
        games::BLACK_VARIANT => vec!["b"; n],
        games::RESULT => list.iter().map(|g| g.result).collect::<Vec<_>>(),
        games::REASON => vec!["checkmate"; n],
        games::PLIES => list.iter().map(|g| g.moves.len() as u32).collect::<Vec<_>>(),
        games::MOVES => list.iter().map(|g| move_list(&g.moves)).collect::<Vec<_>>(),
        games::DURATION_MS => vec![1000u64; n],
        games::NODES => vec![5000u64; n],
        games::WORKER => vec!["w1"; n],
    )?;
    let names: Vec<&str> = df.get_column_names().into_iter().map(|s| s.as_str()).collect();
    assert_eq!(names, games::ALL, "the file has the coordinator's columns in order");
    let path = dir.join(format!("games/run={run}/part-000000000001-{n:012}.parquet"));
    std::fs::create_dir_all(path.parent().ok_or("no parent")?)?;
    ParquetWriter::new(File::create(path)?).finish(&mut df)?;
    Ok(())
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
    let moves = [Series::new("".into(), ["h2e2", "h9g7", "h0g2", "b9c7"]), Series::new("".into(), ["h9g7"])];
    let mut df = df!(
        games::GAME_ID => [1u64, 2],
        games::START_FEN => ["startpos", ROOKLESS],
        games::RESULT => ["1-0", "0-1"],
        games::MOVES => moves,
    )?;
    let path = dir.path().join("games/run=5/part-000000000001-000000000002.parquet");
    std::fs::create_dir_all(path.parent().ok_or("no parent")?)?;
    ParquetWriter::new(File::create(path)?).finish(&mut df)?;
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
