//! The tuner, black box: it recovers weights that made the labels, its gradient is the loss's
//! derivative, the split keeps games whole, the store stays within its size bound, ranges and
//! frozen groups hold, and early stopping keeps the best weights.
//!
//! Positions come from random legal playouts (xorshift, fixed seeds) from the start position
//! and the FENs of the shared perft suite (`$XQFARM_SHARED/xiangqi/perft.txt`, by default
//! `../../shared` from this crate).

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::path::PathBuf;

use analysis::tune::playout::{XorShift64, random_playout_traces};
use analysis::tune::{
    AdamConfig, DEFAULT_VALIDATION_FRACTION, Selection, TuningSet, TuningSetBuilder, fit_k, mse, mse_and_gradient,
    ridge_penalty, sigmoid, tune, weights_of,
};
use engine::Position;
use engine::eval::{Group, NUM_PARAMS, PHASE_MAX, Params, Trace};

fn perft_suite() -> PathBuf {
    let shared = std::env::var_os("XQFARM_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    shared.join("xiangqi/perft.txt")
}

/// The start position and every position of the perft suite.
fn starts() -> Vec<Position> {
    let path = perft_suite();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut starts = vec![Position::startpos()];
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let fen = line.split(';').next().unwrap();
        starts.push(Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}")));
    }
    starts
}

/// The evaluation in centipawns (Red's view) a trace gives under real weights.
fn eval_of(trace: &Trace, weights: &[f64]) -> f64 {
    trace.coefficients.iter().map(|&(i, c)| f64::from(c) * weights[usize::from(i)]).sum::<f64>() / f64::from(PHASE_MAX)
}

/// A set whose labels are the expected results of a logistic model with these weights.
fn expected_labels(traces: &[(Trace, u64)], weights: &[f64], k: f64) -> TuningSet {
    let mut builder = TuningSetBuilder::new();
    for (trace, game) in traces {
        builder.push_trace(trace, sigmoid(k, eval_of(trace, weights)) as f32, None, *game).unwrap();
    }
    builder.build()
}

fn index(name: &str) -> usize {
    Params::index_of(name).unwrap_or_else(|| panic!("no parameter {name}"))
}

/// The material weights of the "true" model: the defaults with most pieces moved by 30-80 cp.
fn true_material() -> Params {
    let mut p = Params::default();
    for (name, value) in [
        ("material.rook.mg", 980),
        ("material.rook.eg", 940),
        ("material.knight.mg", 360),
        ("material.knight.eg", 500),
        ("material.cannon.mg", 500),
        ("material.cannon.eg", 380),
        ("material.pawn.mg", 70),
        ("material.pawn.eg", 150),
        ("material.advisor.mg", 230),
        ("material.bishop.eg", 250),
    ] {
        p.set_by_name(name, value).unwrap();
    }
    p
}

/// Recovery: labels are the logistic model's expected results under `true_material()` (K = 1);
/// tuning only the material group from the defaults (30-80 cp off on ten of the twelve weights)
/// must bring every material weight back within `TOLERANCE` cp. Only material moves because the
/// other groups are collinear with it (every horse stands on one `pst.knight` square, so adding
/// c to `material.knight` and removing c from every entry of `pst.knight` gives the same
/// evaluation): no data can separate them, whatever the tuner. Measured: every weight within
/// 0.01 cp, the loss from 8.8e-4 to 1.6e-16, early stopping at epoch 922 of 3000.
#[test]
fn recovers_the_material_weights_that_made_the_labels() {
    const TOLERANCE: f64 = 3.0;
    let traces = random_playout_traces(&starts(), 4000, 0xC0FFEE);
    let truth = true_material();
    let set = expected_labels(&traces, &weights_of(&truth), 1.0);
    let (train, validation) = set.split_by_game(0.1).unwrap();
    assert!(validation.len() > 200 && train.len() > 3000, "{} / {}", train.len(), validation.len());

    // K is a property of the labels: with the true weights the fit finds the K that made them.
    let fit = fit_k(&set, &weights_of(&truth)).unwrap();
    assert!((fit.k - 1.0).abs() < 1e-3, "{fit:?}");

    let start = Params::default();
    let config = AdamConfig {
        k: 1.0,
        epochs: 3000,
        learning_rate: 2.0,
        learning_rate_decay: 0.999,
        patience: 200,
        selection: Selection::only(&[Group::Material]),
        ..AdamConfig::default()
    };
    let mut reports = Vec::new();
    let outcome = tune(&train, &validation, &start, &config, |r| reports.push(*r)).unwrap();
    assert_eq!(reports, outcome.history, "the callback saw every epoch");

    let mut worst = (0.0, String::new());
    for i in (0..NUM_PARAMS).filter(|&i| Params::group_of(i) == Some(Group::Material)) {
        let error = (outcome.weights[i] - f64::from(truth.get(i))).abs();
        if error > worst.0 {
            worst = (error, Params::spec(i).name);
        }
        assert!(
            error <= TOLERANCE,
            "{}: tuned {:.2}, true {}, start {}",
            Params::spec(i).name,
            outcome.weights[i],
            truth.get(i),
            start.get(i)
        );
        assert!((f64::from(outcome.params.get(i)) - f64::from(truth.get(i))).abs() <= TOLERANCE.ceil());
    }
    for i in (0..NUM_PARAMS).filter(|&i| Params::group_of(i) != Some(Group::Material)) {
        assert_eq!(outcome.params.get(i), start.get(i), "{} is frozen", Params::spec(i).name);
    }

    // The loss falls: far below the start, and every tenth of the run ends below the tenth before.
    let first = outcome.history[0];
    let best = outcome.best().unwrap();
    assert!(best.train_loss < first.train_loss / 100.0, "{first:?} -> {best:?}");
    assert!(best.validation_loss < first.validation_loss / 100.0, "{first:?} -> {best:?}");
    let tenth = (outcome.history.len() / 10).max(1);
    let marks: Vec<f64> = outcome.history.iter().step_by(tenth).map(|r| r.train_loss).collect();
    assert!(marks.windows(2).all(|w| w[1] <= w[0]), "{marks:?}");
    eprintln!(
        "recovery: {} train / {} validation positions, best epoch {} of {}, loss {:.3e} -> {:.3e}, worst error {:.2} cp ({})",
        train.len(),
        validation.len(),
        outcome.best_epoch,
        outcome.history.len() - 1,
        first.train_loss,
        best.train_loss,
        worst.0,
        worst.1
    );
}

/// Recovery from noisy labels: each position's label is a win or a loss drawn from the logistic
/// model under `true_material()`, as real games would give. With noise the data's own optimum
/// is no longer the truth, so the test asks two things of the tuner: that it reaches that
/// optimum (a training loss no higher than the true weights' own), and that what the data does
/// determine comes back: each piece's value `p * mg + (1 - p) * eg` at `p`, the mean phase
/// share of the positions where that piece's count differs, within `TOLERANCE` cp. Measured on
/// 19,000 positions with three label seeds: worst errors 25, 13 and 15 cp, the sign changing
/// with the seed (noise, not bias). The split of a value into mg and eg is nearly collinear with
/// the rook count (the phase is mostly rooks) and is left to the noise-free test above: drawn
/// labels move single mg or eg weights by up to about 100 cp at this size.
#[test]
fn recovers_material_values_from_drawn_results() {
    const TOLERANCE: f64 = 40.0;
    let traces = random_playout_traces(&starts(), 20_000, 0xBE77);
    let truth = weights_of(&true_material());
    let mut rng = XorShift64::new(0xD1CE);
    let mut builder = TuningSetBuilder::new();
    for (trace, game) in &traces {
        let win = rng.unit() < sigmoid(1.0, eval_of(trace, &truth));
        builder.push_trace(trace, if win { 1.0 } else { 0.0 }, None, *game).unwrap();
    }
    let (train, _) = builder.build().split_by_game(DEFAULT_VALIDATION_FRACTION).unwrap();
    let config = AdamConfig {
        k: 1.0,
        epochs: 1000,
        learning_rate: 2.0,
        patience: 0,
        selection: Selection::only(&[Group::Material]),
        ..AdamConfig::default()
    };
    // No validation set: the kept weights are those of the lowest training loss.
    let outcome = tune(&train, &TuningSet::new(), &Params::default(), &config, |_| {}).unwrap();
    let best = *outcome.best().unwrap();
    let truth_loss = mse(&train, &truth, 1.0).unwrap();
    assert!(best.train_loss <= truth_loss, "tuned {} vs true {truth_loss}", best.train_loss);

    let mut worst = (0.0, "", 0.0);
    for piece in ["advisor", "bishop", "knight", "rook", "cannon", "pawn"] {
        let (mg, eg) = (index(&format!("material.{piece}.mg")), index(&format!("material.{piece}.eg")));
        // The mean phase share of the positions where the piece counts, weighted by its count.
        let (mut weighted, mut total) = (0.0, 0.0);
        for p in train.iter() {
            for (&f, &n) in p.features.iter().zip(p.counts) {
                if 2 * usize::from(f) == mg {
                    weighted += f64::from(n).abs() * f64::from(p.phase) / f64::from(PHASE_MAX);
                    total += f64::from(n).abs();
                }
            }
        }
        let share = weighted / total;
        let value = |w: &[f64]| share * w[mg] + (1.0 - share) * w[eg];
        let error = (value(&outcome.weights) - value(&truth)).abs();
        if error > worst.0 {
            worst = (error, piece, share);
        }
    }
    assert!(worst.0 <= TOLERANCE, "{worst:?}");
    eprintln!(
        "drawn results: {} positions, loss {:.5} -> {:.5} (true weights {truth_loss:.5}), \
         worst value error {:.1} cp ({})",
        train.len(),
        outcome.history[0].train_loss,
        best.train_loss,
        worst.0,
        worst.1
    );
}

/// The analytic gradient against central finite differences, on every parameter.
#[test]
fn gradient_matches_finite_differences() {
    let traces = random_playout_traces(&starts(), 300, 0xD1FF);
    let mut rng = XorShift64::new(3);
    let mut builder = TuningSetBuilder::new();
    for (trace, game) in &traces {
        builder.push_trace(trace, [0.0, 0.5, 1.0][rng.below(3)], None, *game).unwrap();
    }
    let set = builder.build();
    let k = 0.8;
    let weights = weights_of(&Params::default());
    let analytic = mse_and_gradient(&set, &weights, k).unwrap().gradient;
    let scale = analytic.iter().fold(0.0f64, |m, g| m.max(g.abs()));
    assert!(scale > 0.0);
    let h = 1e-3;
    let mut checked = 0;
    for i in 0..NUM_PARAMS {
        let mut w = weights.clone();
        w[i] += h;
        let up = mse(&set, &w, k).unwrap();
        w[i] -= 2.0 * h;
        let down = mse(&set, &w, k).unwrap();
        let numeric = (up - down) / (2.0 * h);
        let tolerance = 1e-6 * analytic[i].abs() + 1e-9 * scale;
        assert!(
            (numeric - analytic[i]).abs() <= tolerance,
            "{}: analytic {:e}, numeric {:e}",
            Params::spec(i).name,
            analytic[i],
            numeric
        );
        checked += usize::from(analytic[i] != 0.0);
    }
    assert!(checked > NUM_PARAMS / 3, "only {checked} parameters have a gradient");
}

/// No game on both sides of the split, no position lost, both sides used.
#[test]
fn split_never_puts_one_game_on_both_sides() {
    let traces = random_playout_traces(&starts(), 5000, 0x5711);
    let mut builder = TuningSetBuilder::new();
    for (trace, game) in &traces {
        builder.push_trace(trace, 0.5, None, *game).unwrap();
    }
    let set = builder.build();
    for fraction in [DEFAULT_VALIDATION_FRACTION, 0.3] {
        let (train, validation) = set.split_by_game(fraction).unwrap();
        assert_eq!(train.len() + validation.len(), set.len());
        let train_games: std::collections::HashSet<u64> = train.game_ids().iter().copied().collect();
        let validation_games: std::collections::HashSet<u64> = validation.game_ids().iter().copied().collect();
        assert!(train_games.is_disjoint(&validation_games), "fraction {fraction}");
        assert!(!validation_games.is_empty() && !train_games.is_empty());
        let share = validation_games.len() as f64 / (train_games.len() + validation_games.len()) as f64;
        assert!((share - fraction).abs() < fraction / 2.0 + 0.01, "{share} of games for {fraction}");
        // Positions stay exactly as they were: the total scaled score is unchanged.
        let params = Params::default();
        let total = |s: &TuningSet| (0..s.len()).map(|i| s.dot(i, &params)).sum::<i64>();
        assert_eq!(total(&train) + total(&validation), total(&set));
    }
    assert!(set.split_by_game(1.5).is_err());
}

/// At most 24 bytes per position plus 3 per non-zero trace coefficient, capacity included.
#[test]
fn storage_stays_within_its_bound() {
    let traces = random_playout_traces(&starts(), 5000, 0xB17E);
    let mut builder = TuningSetBuilder::new();
    for (trace, game) in &traces {
        builder.push_trace(trace, 1.0, None, *game).unwrap();
    }
    let set = builder.build();
    let coefficients: usize = traces.iter().map(|(t, _)| t.coefficients.len()).sum();
    let bound = 24 * set.len() + 3 * coefficients;
    assert!(set.heap_bytes() <= bound, "{} bytes for a bound of {bound}", set.heap_bytes());
    eprintln!(
        "storage: {:.1} bytes per position, {:.1} trace coefficients and {:.1} stored entries per position (bound {:.1})",
        set.bytes_per_position(),
        coefficients as f64 / set.len() as f64,
        set.entries() as f64 / set.len() as f64,
        bound as f64 / set.len() as f64
    );
}

/// Weights pushed beyond their declared range stop at its edge.
#[test]
fn weights_stay_within_their_ranges() {
    let traces = random_playout_traces(&starts(), 1500, 0xC1A4);
    // Labels from a model in which pawns are worth -150 cp: below the range's 0.
    let mut weights = weights_of(&Params::default());
    let pawn_mg = index("material.pawn.mg");
    weights[pawn_mg] = -150.0;
    let set = expected_labels(&traces, &weights, 1.0);
    let config = AdamConfig {
        epochs: 300,
        learning_rate: 5.0,
        patience: 0,
        selection: Selection::all().freeze_params((0..NUM_PARAMS).filter(|&i| i != pawn_mg)),
        ..AdamConfig::default()
    };
    let outcome = tune(&set, &TuningSet::new(), &Params::default(), &config, |_| {}).unwrap();
    assert_eq!(outcome.weights[pawn_mg], 0.0);
    assert_eq!(outcome.params.get(pawn_mg), 0);
    let mut expected = Params::default();
    expected.set(pawn_mg, 0).unwrap();
    assert_eq!(outcome.params, expected, "only the selected parameter moved");
}

/// When training moves away from what validation rewards, tuning stops after `patience` epochs
/// and keeps the starting weights.
#[test]
fn early_stopping_keeps_the_best_weights() {
    let traces = random_playout_traces(&starts(), 2000, 0xEA51);
    let (train_traces, validation_traces) = traces.split_at(1500);
    let start = Params::default();
    let train = expected_labels(train_traces, &weights_of(&true_material()), 1.0);
    let validation = expected_labels(validation_traces, &weights_of(&start), 1.0);
    let config = AdamConfig {
        epochs: 500,
        patience: 20,
        selection: Selection::only(&[Group::Material]),
        ..AdamConfig::default()
    };
    let outcome = tune(&train, &validation, &start, &config, |_| {}).unwrap();
    assert!(outcome.stopped_early);
    assert_eq!((outcome.best_epoch, outcome.history.len()), (0, 21));
    assert_eq!(outcome.params, start);
    assert!(outcome.history[20].train_loss < outcome.history[0].train_loss);
    assert!(outcome.history[20].validation_loss > outcome.history[0].validation_loss);
}

/// The ridge pull: on drawn results (noise), every weight the data sees moves; with `l2` the
/// tuner minimises MSE + penalty, so the weights end nearer the start than without it, the
/// penalised objective is lower at the regularised weights than at the free ones, and a pull
/// far stronger than the data keeps every weight within a step of its start. Measured: the
/// mean move falls from 102 cp to 28 cp with l2 = 1e-4, and is 0 with l2 = 10 (the start wins).
#[test]
fn ridge_pull_keeps_weights_near_the_start() {
    let traces = random_playout_traces(&starts(), 3000, 0x5EED);
    let truth = weights_of(&true_material());
    let mut rng = XorShift64::new(0xAB);
    let mut builder = TuningSetBuilder::new();
    for (trace, game) in &traces {
        let win = rng.unit() < sigmoid(1.0, eval_of(trace, &truth));
        builder.push_trace(trace, if win { 1.0 } else { 0.0 }, None, *game).unwrap();
    }
    let set = builder.build();
    let start = Params::default();
    let start_weights = weights_of(&start);
    let selection = Selection::only(&[Group::Material, Group::Mobility]);
    let trainable: Vec<bool> = (0..NUM_PARAMS).map(|i| selection.is_trainable(i)).collect();
    let run = |l2: f64| {
        let config = AdamConfig {
            epochs: 400,
            learning_rate: 2.0,
            patience: 0,
            l2,
            selection: selection.clone(),
            ..AdamConfig::default()
        };
        tune(&set, &TuningSet::new(), &start, &config, |_| {}).unwrap().weights
    };
    let mean_move = |w: &[f64]| {
        let moved: Vec<f64> =
            (0..NUM_PARAMS).filter(|&i| trainable[i]).map(|i| (w[i] - start_weights[i]).abs()).collect();
        moved.iter().sum::<f64>() / moved.len() as f64
    };
    let objective = |w: &[f64], l2: f64| mse(&set, w, 1.0).unwrap() + ridge_penalty(l2, w, &start_weights, &trainable);

    let free = run(0.0);
    let pulled = run(1e-4);
    let held = run(10.0);
    let (free_move, pulled_move, held_move) = (mean_move(&free), mean_move(&pulled), mean_move(&held));
    assert!(pulled_move < free_move / 2.0, "mean move {pulled_move:.2} with l2 vs {free_move:.2} without");
    assert!(objective(&pulled, 1e-4) < objective(&free, 1e-4), "the pulled weights minimise the penalised loss");
    assert!(mse(&set, &free, 1.0).unwrap() < mse(&set, &pulled, 1.0).unwrap(), "the free ones the plain loss");
    assert!(held_move < 2.0, "mean move {held_move:.2} under a pull far stronger than the data");
    eprintln!("ridge: mean move {free_move:.1} cp free, {pulled_move:.1} cp at l2 1e-4, {held_move:.2} cp at l2 10");
}

#[test]
fn bad_settings_are_refused_with_their_name() {
    let set = expected_labels(&random_playout_traces(&starts(), 50, 1), &weights_of(&Params::default()), 1.0);
    for (config, name) in [
        (AdamConfig { learning_rate: 0.0, ..AdamConfig::default() }, "learning rate"),
        (AdamConfig { beta2: 1.0, ..AdamConfig::default() }, "beta2"),
        (AdamConfig { k: f64::NAN, ..AdamConfig::default() }, "K"),
        (AdamConfig { l2: -1.0, ..AdamConfig::default() }, "l2"),
    ] {
        let err = tune(&set, &set, &Params::default(), &config, |_| {}).expect_err(name).to_string();
        assert!(err.contains(name), "{err}");
    }
    let err = tune(&TuningSet::new(), &set, &Params::default(), &AdamConfig::default(), |_| {}).expect_err("empty");
    assert!(err.to_string().contains("training positions"), "{err}");
}
