//! The NNUE trainer, black box, on positions written as real Parquet by the farm's own writer
//! (`farmdata::export_segment`): a small run lowers the validation loss and gives the same
//! bytes twice; a resumed run gives the bytes of an uninterrupted one; the written network
//! evaluates within the contract's 5 cp of the float model; bad inputs give named errors; a
//! nullable `search_score` column reads, its nulls counted as positions without a score.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use analysis::Error;
use analysis::nnue::data::{DataFilter, Filter, load_dataset};
use analysis::nnue::run::{RunConfig, RunOutcome, train_network};
use analysis::nnue::{LabelScale, TrainConfig, TrainState, fit_score_k, mean_loss};
use analysis::tune::playout::XorShift64;
use arrow_array::{
    ArrayRef, BooleanArray, Float32Array, Int32Array, RecordBatch, StringArray, UInt32Array, UInt64Array,
};
use engine::Position;
use engine::eval::{Params, evaluate};
use farmdata::{GameRow, PositionRow, export_segment};
use parquet::arrow::ArrowWriter;
use proto::domain::RunId;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// One random game of run `run`: random legal moves, every position from ply 4 sampled, its
/// score the hand-crafted evaluation (side to move's view) and its best move a random legal
/// move; the result follows the material at the end.
fn game(run: u64, game_id: u64, rng: &mut XorShift64) -> (GameRow, Vec<PositionRow>) {
    let params = Params::default();
    let mut pos = Position::startpos();
    let mut rows = Vec::new();
    let mut moves = Vec::new();
    for ply in 0..60u32 {
        let legal = pos.legal_moves().to_vec();
        if legal.is_empty() {
            break;
        }
        let best = legal[rng.below(legal.len())];
        if ply >= 4 {
            rows.push(PositionRow {
                run: RunId::new(run),
                game_id,
                ply,
                fen: pos.fen(),
                side_to_move: if pos.side_to_move() == engine::Color::Red { "w" } else { "b" }.into(),
                static_eval: 0,
                search_score: Some(evaluate(&pos, &params) + rng.below(41) as i32 - 20),
                best_move: best.to_string(),
                in_check: pos.in_check(),
                quiet: !pos.is_capture(best),
                result: Some(0.0),
            });
        }
        moves.push(best.to_string());
        pos.play_unchecked(best);
    }
    let red_view = if pos.side_to_move() == engine::Color::Red { 1 } else { -1 } * evaluate(&pos, &params);
    let result = if red_view > 150 {
        1.0
    } else if red_view < -150 {
        0.0
    } else {
        0.5
    };
    for r in &mut rows {
        r.result = Some(result);
    }
    let text = match result {
        1.0 => "1-0",
        0.0 => "0-1",
        _ => "1/2-1/2",
    };
    let row = GameRow {
        run: RunId::new(run),
        game_id,
        pair_id: game_id / 2,
        opening_id: 0,
        opening_fen: engine::START_FEN.into(),
        opening_moves: vec![],
        start_fen: "startpos".into(),
        red_variant: "a".into(),
        black_variant: "b".into(),
        result: text.into(),
        reason: "move_limit".into(),
        plies: moves.len() as u32,
        moves,
        duration_ms: 1,
        nodes: 1,
        worker: "w".into(),
    };
    (row, rows)
}

/// `games` random games in run `run`, written by the farm's writer.
fn write_run(data: &Path, run: u64, games: u64, seed: u64) -> TestResult {
    let mut rng = XorShift64::new(seed);
    let rows: Vec<_> = (0..games).map(|g| game(run, g, &mut rng)).collect();
    export_segment(data, RunId::new(run), &rows)?;
    Ok(())
}

fn config(data: &Path, out: PathBuf) -> RunConfig {
    RunConfig {
        data: data.to_path_buf(),
        filter: DataFilter { validation_fraction: 0.1, min_positions: 100, ..DataFilter::default() },
        train: TrainConfig { hidden: 16, epochs: 3, batch_size: 256, learning_rate: 0.01, ..TrainConfig::default() },
        out,
        checkpoint: None,
        resume: false,
        warm_start: None,
        stop_after: None,
        check_positions: 10_000,
        command_line: "test".into(),
        threads: 1,
    }
}

fn train(config: &RunConfig) -> Result<RunOutcome, Error> {
    train_network(config, |_| {})
}

#[test]
fn a_small_run_lowers_the_validation_loss_and_gives_the_same_bytes_twice() -> TestResult {
    let dir = tempfile::tempdir()?;
    write_run(dir.path(), 3, 60, 1)?;
    let first = config(dir.path(), dir.path().join("a/net.xqnn"));
    let a = train(&first)?;
    let b = train(&config(dir.path(), dir.path().join("b.xqnn")))?;
    assert_eq!(std::fs::read(dir.path().join("a/net.xqnn"))?, std::fs::read(dir.path().join("b.xqnn"))?);
    assert_eq!(a.sha256, b.sha256);

    // Against the untrained network on the same held-out positions.
    let data = load_dataset(dir.path(), &first.filter)?;
    let k = fit_score_k(&data.train)?.k;
    let start = mean_loss(&TrainState::fresh(&first.train)?.model, &data.validation, LabelScale::new(k, 0.75));
    assert!(a.validation_loss < 0.8 * start, "validation loss {start} -> {}", a.validation_loss);
    assert_eq!(a.history.len(), 3);
    assert!(a.counts.dropped_by(Filter::CaptureBestMove) > 0 && a.counts.dropped_by(Filter::BeforeMinPly) > 0);

    // The contract: the engine's integers within 5 cp of the float model, on every held-out position.
    assert_eq!(a.check.positions, data.validation.len());
    assert!(a.check.within_contract() && a.check.max_abs_cp <= 5.0, "{:?}", a.check);
    let net = engine::nnue::Network::load(&a.network)?;
    assert_eq!(net.hidden(), 16);

    let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&a.manifest)?)?;
    assert_eq!(manifest["sha256"], a.sha256.as_str());
    assert_eq!(manifest["data"]["filters"][5]["filter"], "best move captures");
    assert_eq!(manifest["training"]["seed"], 1);
    Ok(())
}

#[test]
fn a_resumed_run_writes_the_bytes_of_an_uninterrupted_one() -> TestResult {
    let dir = tempfile::tempdir()?;
    write_run(dir.path(), 3, 40, 2)?;
    let whole = train(&config(dir.path(), dir.path().join("whole.xqnn")))?;

    let mut sliced = config(dir.path(), dir.path().join("sliced.xqnn"));
    sliced.checkpoint = Some(dir.path().join("ck"));
    sliced.stop_after = Some(1);
    let part = train(&sliced)?;
    assert_eq!(part.history.len(), 1);
    sliced.resume = true;
    sliced.stop_after = None;
    let rest = train(&sliced)?;
    assert_eq!(rest.resumed_from, Some(1));
    assert_eq!(rest.history.len(), 3);
    assert_eq!(std::fs::read(&whole.network)?, std::fs::read(&rest.network)?);

    // A resume under other settings is refused, naming the setting.
    sliced.train.seed = 2;
    let err = train(&sliced).expect_err("another seed").to_string();
    assert!(err.contains("seed is 2"), "{err}");
    Ok(())
}

#[test]
fn a_warm_start_begins_from_the_file() -> TestResult {
    let dir = tempfile::tempdir()?;
    write_run(dir.path(), 3, 30, 3)?;
    let first = train(&config(dir.path(), dir.path().join("first.xqnn")))?;
    let mut warm = config(dir.path(), dir.path().join("warm.xqnn"));
    warm.warm_start = Some(first.network.clone());
    warm.train.epochs = 1;
    warm.train.learning_rate = 1e-9;
    let again = train(&warm)?;
    let (a, b) = (engine::nnue::Network::load(&first.network)?, engine::nnue::Network::load(&again.network)?);
    // A vanishing learning rate: the warm-started network is the file it started from.
    assert_eq!(a, b);
    Ok(())
}

#[test]
fn bad_inputs_give_named_errors() -> TestResult {
    let dir = tempfile::tempdir()?;
    let err = train(&config(dir.path(), dir.path().join("n.xqnn"))).expect_err("empty").to_string();
    assert!(err.contains("no positions") && err.contains(&dir.path().display().to_string()), "{err}");

    write_run(dir.path(), 3, 10, 4)?;
    let mut late = config(dir.path(), dir.path().join("n.xqnn"));
    late.filter.min_ply = 1000;
    let err = train(&late).expect_err("nothing past ply 1000").to_string();
    assert!(err.contains("only 0 positions") && err.contains("before min ply removed the most"), "{err}");

    let mut lambda = config(dir.path(), dir.path().join("n.xqnn"));
    lambda.train.lambda = 1.5;
    let err = train(&lambda).expect_err("lambda 1.5").to_string();
    assert!(err.contains("lambda = 1.5") && err.contains("0..=1"), "{err}");

    let mut runs = config(dir.path(), dir.path().join("n.xqnn"));
    runs.filter.runs = vec![7];
    let err = train(&runs).expect_err("no run 7").to_string();
    assert!(err.contains("no positions") && err.contains("[7]"), "{err}");
    Ok(())
}

#[test]
fn duplicates_across_runs_keep_the_first_and_null_scores_are_counted() -> TestResult {
    let dir = tempfile::tempdir()?;
    write_run(dir.path(), 3, 8, 5)?;
    write_run(dir.path(), 5, 8, 5)?; // the same games again in a later run
    let filter = DataFilter { min_positions: 1, validation_fraction: 0.3, ..DataFilter::default() };
    let once = {
        let only = DataFilter { runs: vec![3], ..filter.clone() };
        load_dataset(dir.path(), &only)?
    };
    let both = load_dataset(dir.path(), &filter)?;
    assert_eq!(both.counts.rows, 2 * once.counts.rows);
    assert_eq!(both.counts.kept, once.counts.kept, "run 5 repeats run 3");
    assert_eq!(both.counts.dropped_by(Filter::Duplicate), once.counts.kept + once.counts.dropped_by(Filter::Duplicate));

    // A positions file whose search_score is nullable (the newer schema): nulls are positions
    // without an engine score.
    let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/2P6/P3P1P1P/1C5C1/9/RNBAKABNR b - - 0 1";
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("game_id", Arc::new(UInt64Array::from(vec![1u64, 1, 2]))),
        ("ply", Arc::new(UInt32Array::from(vec![10u32, 11, 10]))),
        ("fen", Arc::new(StringArray::from(vec![fen, fen, fen]))),
        ("side_to_move", Arc::new(StringArray::from(vec!["b", "b", "b"]))),
        ("static_eval", Arc::new(Int32Array::from(vec![0, 0, 0]))),
        ("search_score", Arc::new(Int32Array::from(vec![Some(20), None, None]))),
        ("best_move", Arc::new(StringArray::from(vec!["h9g7", "h9g7", "h9g7"]))),
        ("in_check", Arc::new(BooleanArray::from(vec![false, false, false]))),
        ("quiet", Arc::new(BooleanArray::from(vec![true, true, true]))),
        ("result", Arc::new(Float32Array::from(vec![1.0f32, 1.0, 1.0]))),
    ];
    let path = dir.path().join("positions/run=9/part-000000000001-000000000002.parquet");
    let batch = RecordBatch::try_from_iter_with_nullable(
        columns.into_iter().map(|(name, array)| (name, array, name == "search_score")),
    )?;
    let mut writer = ArrowWriter::try_new(
        File::create(&path).or_else(|_| {
            std::fs::create_dir_all(path.parent().unwrap())?;
            File::create(&path)
        })?,
        batch.schema(),
        None,
    )?;
    writer.write(&batch)?;
    writer.close()?;
    let nine =
        load_dataset(dir.path(), &DataFilter { runs: vec![9], min_positions: 1, validation_fraction: 0.0, ..filter })
            .expect_err("no validation game at fraction 0");
    assert!(nine.to_string().contains("no engine score -2"), "{nine}");
    assert!(nine.to_string().contains("kept 1"), "{nine}");
    Ok(())
}

#[test]
fn rows_out_of_order_give_the_sets_of_rows_in_order() -> TestResult {
    // Run `later` replays run 2's games (the same seed): each of its positions is a duplicate,
    // and which copy is kept decides its game, and so its set. The parts are read by path, so
    // run=10 comes before run=2: out of (run, game, ply) order, read again and sorted.
    let write = |dir: &Path, later: u64| -> TestResult {
        for (run, first) in [(2, 0), (later, 15)] {
            let mut rng = XorShift64::new(4);
            let games: Vec<_> = (first..first + 15).map(|g| game(run, g, &mut rng)).collect();
            export_segment(dir, RunId::new(run), &games)?;
        }
        Ok(())
    };
    let (in_order, out_of_order) = (tempfile::tempdir()?, tempfile::tempdir()?);
    write(in_order.path(), 3)?;
    write(out_of_order.path(), 10)?;
    let filter = DataFilter { min_positions: 1, validation_fraction: 0.3, ..DataFilter::default() };
    let (a, b) = (load_dataset(in_order.path(), &filter)?, load_dataset(out_of_order.path(), &filter)?);
    assert_eq!(a.counts.dropped_by(Filter::Duplicate), a.counts.kept, "{}", a.counts.summary());
    assert!(a.validation_games > 0 && a.train_games > 0);
    assert_eq!(a, b, "run 2's copies are kept, whatever order the parts come in");
    Ok(())
}
