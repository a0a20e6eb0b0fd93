//! The Parquet side of the analysis: a small data directory in the coordinator's layout, made
//! here with the parquet crate's Arrow writer, read back by the report queries and the positions pipeline, with every
//! count known in advance.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use analysis::data::{self, PositionFilter};
use analysis::report::{self, ReportOptions};
use analysis::tune::is_validation_game;
use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::{
    ArrayRef, BooleanArray, Float32Array, Float64Array, Int32Array, RecordBatch, StringArray, UInt32Array, UInt64Array,
};
use engine::rules::Reason;
use parquet::arrow::ArrowWriter;
use proto::domain::{EloModel, RunKindName, RunState, Termination};

type TestResult = Result<(), Box<dyn std::error::Error>>;

const CAND: &str = "aaaa000000000000000000000000000000000000000000000000000000000000";
const BASE: &str = "bbbb000000000000000000000000000000000000000000000000000000000000";

/// Writes the named columns as one Parquet file at `path`.
fn write(columns: Vec<(&str, ArrayRef)>, path: &Path) -> TestResult {
    std::fs::create_dir_all(path.parent().ok_or("no parent")?)?;
    let batch = RecordBatch::try_from_iter(columns)?;
    let mut writer = ArrowWriter::try_new(File::create(path)?, batch.schema(), None)?;
    writer.write(&batch)?;
    writer.close()?;
    Ok(())
}

fn strings<S: AsRef<str>>(values: &[S]) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(values.iter().map(AsRef::as_ref)))
}

fn u64s(values: Vec<u64>) -> ArrayRef {
    Arc::new(UInt64Array::from(values))
}

/// A List<Utf8> column: one list of strings per row.
fn string_lists(lists: &[&[&str]]) -> ArrayRef {
    let mut builder = ListBuilder::new(StringBuilder::new());
    for list in lists {
        for item in *list {
            builder.values().append_value(item);
        }
        builder.append(true);
    }
    Arc::new(builder.finish())
}

/// Run 1: an SPRT of CAND against BASE. Pair p has games 2p and 2p+1; CAND is Red in the
/// first. Pair outcomes for CAND: pairs 0..6 win both (2 points), 6..10 win+draw (1.5),
/// 10..12 draw both (1), 12..13 lose both (0); the pair 13 has one game only (incomplete).
/// Worker "w1" plays pairs 0..8, "w2" plays 8..14.
fn games(dir: &Path) -> TestResult {
    let mut game_id = Vec::new();
    let mut pair_id = Vec::new();
    let mut red = Vec::new();
    let mut black = Vec::new();
    let mut result = Vec::new();
    let mut reason = Vec::new();
    let mut plies = Vec::new();
    let mut worker = Vec::new();
    for p in 0u64..14 {
        let cand_points: [f64; 2] = match p {
            0..6 => [1.0, 1.0],
            6..10 => [1.0, 0.5],
            10..12 => [0.5, 0.5],
            _ => [0.0, 0.0],
        };
        let games_in_pair = if p == 13 { 1 } else { 2 };
        for (g, &points) in cand_points.iter().enumerate().take(games_in_pair) {
            let cand_red = g == 0;
            let red_score = if cand_red { points } else { 1.0 - points };
            game_id.push(2 * p + g as u64 + 1);
            pair_id.push(p);
            red.push(if cand_red { CAND } else { BASE });
            black.push(if cand_red { BASE } else { CAND });
            result.push(match red_score {
                1.0 => "1-0",
                0.0 => "0-1",
                _ => "1/2-1/2",
            });
            reason.push(if red_score == 0.5 { "repetition" } else { "checkmate" });
            plies.push(40 + p as u32);
            worker.push(if p < 8 { "w1" } else { "w2" });
        }
    }
    let n = game_id.len();
    let columns = vec![
        ("game_id", u64s(game_id)),
        ("pair_id", u64s(pair_id)),
        ("opening_id", Arc::new(UInt32Array::from(vec![0u32; n])) as ArrayRef),
        ("start_fen", strings(&vec!["startpos"; n])),
        ("red_variant", strings(&red)),
        ("black_variant", strings(&black)),
        ("result", strings(&result)),
        ("reason", strings(&reason)),
        ("plies", Arc::new(UInt32Array::from(plies))),
        ("moves", string_lists(&vec![&["h2e2"][..]; n])),
        ("duration_ms", u64s(vec![1000; n])),
        ("nodes", u64s(vec![5000; n])),
        ("worker", strings(&worker)),
    ];
    write(columns, &dir.join("games/run=1/part-000000000001-000000000027.parquet"))?;
    runs_table(dir, "active")
}

/// `runs.parquet` with one SPRT run in `state`.
fn runs_table(dir: &Path, state: &str) -> TestResult {
    let float = |v: f64| Arc::new(Float64Array::from(vec![v])) as ArrayRef;
    let runs = vec![
        ("run", u64s(vec![1])),
        ("name", strings(&["tuned vs base"])),
        ("kind", strings(&["sprt"])),
        ("elo0", float(0.0)),
        ("elo1", float(5.0)),
        ("alpha", float(0.05)),
        ("beta", float(0.05)),
        ("model", strings(&["normalized"])),
        ("variant_ids", string_lists(&[&[CAND, BASE]])),
        ("variant_names", string_lists(&[&["tuned", "base"]])),
        ("state", strings(&[state])),
        ("tc", strings(&["nodes=5000"])),
        ("sample_every", Arc::new(UInt32Array::from(vec![8u32]))),
        ("created_unix_ms", u64s(vec![0])),
    ];
    write(runs, &dir.join("runs.parquet"))?;
    Ok(())
}

#[test]
fn run_states_read_in_the_one_vocabulary_and_old_tables_still_read() -> TestResult {
    let dir = tempfile::tempdir()?;
    for (text, state) in [
        ("sprt_h1", RunState::SprtDone { h1: true }),
        ("h1", RunState::SprtDone { h1: true }),
        ("h0", RunState::SprtDone { h1: false }),
        ("stopped", RunState::Stopped),
    ] {
        runs_table(dir.path(), text)?;
        let runs = data::read_runs(dir.path())?;
        assert_eq!(runs[0].state, state, "{text}");
        assert_eq!(runs[0].kind, RunKindName::Sprt);
        assert_eq!(runs[0].model, Some(EloModel::Normalized));
    }
    runs_table(dir.path(), "finished")?;
    let err = data::read_runs(dir.path()).unwrap_err().to_string();
    assert!(err.contains("runs.parquet") && err.contains("unknown run state `finished`"), "{err}");
    Ok(())
}

#[test]
fn pairing_counts_and_report() -> TestResult {
    let dir = tempfile::tempdir()?;
    games(dir.path())?;
    let counts = data::pairing_counts(dir.path(), None)?;
    assert_eq!(counts.len(), 1);
    // Oriented by id: CAND < BASE, so `a` is the candidate.
    let c = &counts[0];
    assert_eq!((c.a.as_str(), c.b.as_str()), (CAND, BASE));
    assert_eq!(c.pentanomial, [1, 0, 2, 4, 6]);
    // Wins: 6*2 + 4 = 16; draws: 4 + 2*2 = 8; losses: 2 + the incomplete pair's game = 3.
    assert_eq!((c.wins, c.draws, c.losses), (16, 8, 3));

    let report = report::build(dir.path(), &ReportOptions::default())?;
    assert_eq!(report.games, 27);
    let p = &report.pairings[0];
    assert_eq!((p.first.as_str(), p.second.as_str()), ("tuned", "base"));
    assert!(p.elo.elo > 100.0, "{:?}", p.elo);
    let (_, sprt) = p.sprt.as_ref().ok_or("the SPRT run has no LLR")?;
    assert_eq!(p.llr_series.last().map(|&(g, _)| g), Some(26));
    assert!((p.llr_series.last().map_or(0.0, |&(_, l)| l) - sprt.llr).abs() < 1e-9);
    // The rating list anchors the variant named `base` at 0.
    assert_eq!(report.anchor.as_deref(), Some("base"));
    let base = report.ratings.iter().find(|r| r.name == "base").ok_or("base missing")?;
    assert_eq!(base.elo, 0.0);
    let reasons: u64 = report.reasons.iter().map(|r| r.games).sum();
    assert_eq!(reasons, 27);
    let by_reason: Vec<(Termination, u64)> = report.reasons.iter().map(|r| (r.reason, r.games)).collect();
    assert_eq!(
        by_reason,
        [(Termination::Rules(Reason::Checkmate), 19), (Termination::Rules(Reason::Repetition), 8)],
        "read back as the closed set, most frequent first"
    );
    assert_eq!(report.lengths[0].min_plies, 40);
    assert_eq!(report.lengths[0].max_plies, 53);
    // w1 won everything, w2 lost most: the per-worker check sees two workers.
    assert_eq!(report.workers.len(), 2);
    assert_eq!(report.workers.iter().map(|w| w.pairs).sum::<u64>(), 13);

    let out = dir.path().join("out");
    let files = report::write(&report, &out)?;
    let md = std::fs::read_to_string(out.join("report.md"))?;
    assert!(md.contains("| 1 | tuned vs base | sprt |"), "{md}");
    assert!(files.iter().any(|f| f.ends_with("llr.png")) && files.iter().any(|f| f.ends_with("elo.png")));
    Ok(())
}

#[test]
fn a_run_filter_selects_only_that_run() -> TestResult {
    let dir = tempfile::tempdir()?;
    games(dir.path())?;
    assert_eq!(data::game_totals(dir.path(), Some(1))?.games, 27);
    assert_eq!(data::game_totals(dir.path(), Some(2))?.games, 0);
    assert!(data::pairing_counts(dir.path(), Some(2))?.is_empty());
    Ok(())
}

#[test]
fn a_reason_outside_the_closed_set_is_an_error_naming_it() -> TestResult {
    let dir = tempfile::tempdir()?;
    let columns = vec![("game_id", u64s(vec![1, 2])), ("reason", strings(&["checkmate", "resigned"]))];
    write(columns, &dir.path().join("games/run=3/part-000000000001-000000000002.parquet"))?;
    let err = data::reasons(dir.path(), None).expect_err("`resigned` is no termination");
    let text = err.to_string();
    assert!(text.contains("run 3") && text.contains("`resigned`"), "{text}");
    Ok(())
}

#[test]
fn empty_directory_reports_nothing() -> TestResult {
    let dir = tempfile::tempdir()?;
    let report = report::build(dir.path(), &ReportOptions::default())?;
    assert_eq!(report.games, 0);
    assert!(report.pairings.is_empty() && report.ratings.is_empty());
    let (positions, counts) = data::tuning_positions(dir.path(), &PositionFilter::default())?;
    assert!(positions.is_empty() && counts.sampled == 0);
    Ok(())
}

const FEN_A: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";
const FEN_B: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR";

#[test]
fn positions_are_filtered_deduplicated_and_labelled_from_red() -> TestResult {
    let dir = tempfile::tempdir()?;
    // (game, ply, board, side, score, in_check, quiet, result)
    let rows = [
        (1u64, 12u32, FEN_A, "w", Some(30), false, true, 1.0f32), // kept
        (1, 14, FEN_B, "b", Some(50), false, true, 1.0),          // kept, score from Black → -50 for Red
        (1, 4, FEN_B, "w", Some(0), false, true, 1.0),            // too early
        (2, 12, FEN_A, "w", Some(10), false, true, 0.0),          // same board and side as game 1: duplicate
        (2, 16, FEN_B, "w", Some(10), true, true, 0.0),           // in check
        (2, 18, FEN_B, "w", Some(10), false, false, 0.0),         // not quiet
        (3, 20, FEN_B, "w", None, false, true, 0.5),              // kept (FEN_B with Red to move is new), no score
    ];
    let n = rows.len();
    let columns = vec![
        ("game_id", u64s(rows.iter().map(|r| r.0).collect())),
        ("ply", Arc::new(UInt32Array::from(rows.iter().map(|r| r.1).collect::<Vec<_>>())) as ArrayRef),
        ("fen", strings(&rows.iter().map(|r| format!("{} {} - - 0 {}", r.2, r.3, r.1)).collect::<Vec<_>>())),
        ("side_to_move", strings(&rows.iter().map(|r| r.3).collect::<Vec<_>>())),
        ("static_eval", Arc::new(Int32Array::from(vec![0i32; n]))),
        ("search_score", Arc::new(Int32Array::from(rows.iter().map(|r| r.4).collect::<Vec<Option<i32>>>()))),
        ("best_move", strings(&vec!["h2e2"; n])),
        ("in_check", Arc::new(BooleanArray::from(rows.iter().map(|r| r.5).collect::<Vec<_>>()))),
        ("quiet", Arc::new(BooleanArray::from(rows.iter().map(|r| r.6).collect::<Vec<_>>()))),
        ("result", Arc::new(Float32Array::from(rows.iter().map(|r| r.7).collect::<Vec<_>>()))),
    ];
    write(columns, &dir.path().join("positions/run=3/part-000000000001-000000000003.parquet"))?;
    let (positions, counts) = data::tuning_positions(dir.path(), &PositionFilter::default())?;
    assert_eq!((counts.sampled, counts.quiet, counts.unique), (7, 4, 3));
    let summary: Vec<(u64, f32, Option<i32>)> =
        positions.iter().map(|p| (p.game & 0xff_ffff_ffff, p.result_red, p.search_score_red)).collect();
    assert_eq!(summary, vec![(1, 1.0, Some(30)), (1, 1.0, Some(-50)), (3, 0.5, None)]);
    assert!(positions.iter().all(|p| p.game >> 40 == 3), "the run is part of the game key");
    let (none, _) = data::tuning_positions(dir.path(), &PositionFilter { runs: vec![4], min_ply: 10 })?;
    assert!(none.is_empty());
    Ok(())
}

#[test]
fn the_split_keeps_every_game_on_one_side() {
    // Positions of one game share its key, so the by-game split cannot separate them.
    let games: Vec<u64> = (0..2000).map(|g| data::game_key(7, g)).collect();
    let validation = games.iter().filter(|&&g| is_validation_game(g, 0.05)).count();
    assert!((50..=150).contains(&validation), "{validation} of 2000 games held out");
}
