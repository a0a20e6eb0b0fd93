//! The network evaluation from outside: a network file through the UCI options, the HCE
//! default untouched.

use std::sync::{Arc, Mutex};

use engine::nnue::Network;
use engine::uci::{Captured, SharedOut, UciSession};
use engine::{Engine, EvalKind, Limits, Position};

fn run(input: &str) -> String {
    let captured = Captured::default();
    let out: SharedOut = Arc::new(Mutex::new(captured.clone()));
    UciSession::new(out).run(input.as_bytes()).expect("in-memory io");
    captured.text()
}

#[test]
fn uci_loads_a_network_file_and_searches_with_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("random.xqnn");
    Network::random(3, 128).save(&path).expect("write");
    let out = run(&format!(
        "uci\nsetoption name EvalFile value {}\nsetoption name Eval value nnue\nposition startpos\neval\ngo nodes 2000\n\
         setoption name EvalFile value <empty>\neval\n",
        path.display()
    ));
    assert!(out.contains("option name EvalFile type string default <empty>"), "{out}");
    assert!(out.contains("option name Eval type combo default hce var hce var nnue"), "{out}");
    assert!(!out.contains("info string error"), "{out}");
    let net = Arc::new(Network::load(&path).expect("read"));
    let expected = engine::nnue::evaluate(&net, &Position::startpos());
    assert!(out.contains(&format!("info string static eval {expected} cp (side to move, nnue)")), "{out}");
    let best = out.lines().find(|l| l.starts_with("bestmove ")).expect("a bestmove line");
    let m = engine::notation::parse_uci(best.split_whitespace().nth(1).expect("a move")).expect("uci move");
    assert!(Position::startpos().is_legal_move(m), "{best}");
    // An empty EvalFile unloads the network: back to the hand-crafted evaluation.
    let last = out.lines().rfind(|l| l.starts_with("info string static eval")).expect("an eval line");
    assert!(last.ends_with("(side to move, hce)"), "{out}");
}

#[test]
fn a_default_network_is_the_starting_evaluation_and_an_empty_evalfile_returns_to_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let default = Arc::new(Network::random(5, 32));
    let other = dir.path().join("other.xqnn");
    Network::random(6, 32).save(&other).expect("write");
    let captured = Captured::default();
    let out: SharedOut = Arc::new(Mutex::new(captured.clone()));
    let input = format!(
        "uci\neval\nsetoption name EvalFile value {}\neval\nsetoption name EvalFile value <empty>\neval\n\
         setoption name Eval value hce\neval\nsetoption name Eval value nnue\neval\n",
        other.display()
    );
    UciSession::new(out).with_default_network(Arc::clone(&default)).run(input.as_bytes()).expect("in-memory io");
    let out = captured.text();
    assert!(out.contains("option name Eval type combo default nnue var hce var nnue"), "{out}");
    assert!(!out.contains("info string error"), "{out}");
    let start = Position::startpos();
    let other = Arc::new(Network::load(&other).expect("read"));
    let (d, o) = (engine::nnue::evaluate(&default, &start), engine::nnue::evaluate(&other, &start));
    assert_ne!(d, o, "two networks that differ at the start");
    let evals: Vec<&str> = out.lines().filter(|l| l.starts_with("info string static eval")).collect();
    let hce = engine::eval::evaluate(&start, &engine::eval::Params::default());
    let expected = [
        format!("info string static eval {d} cp (side to move, nnue)"),
        format!("info string static eval {o} cp (side to move, nnue)"),
        format!("info string static eval {d} cp (side to move, nnue)"),
        format!("info string static eval {hce} cp (side to move, hce)"),
        format!("info string static eval {d} cp (side to move, nnue)"),
    ];
    assert_eq!(evals, expected, "{out}");
}

#[test]
fn a_bad_network_file_or_a_missing_one_keeps_the_evaluation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("corrupt.xqnn");
    let mut bytes = Network::random(3, 16).to_bytes();
    bytes[100] ^= 1;
    std::fs::write(&path, bytes).expect("write");
    let out = run(&format!(
        "setoption name Eval value nnue\nsetoption name EvalFile value {}\nsetoption name Eval value nnue\neval\n",
        path.display()
    ));
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("info string error:")).collect();
    assert_eq!(errors.len(), 3, "{out}");
    assert!(errors[0].contains("none is loaded") && errors[0].contains("stays hce"), "{out}");
    assert!(errors[1].contains("corrupt.xqnn") && errors[1].contains("checksum"), "{out}");
    assert!(out.contains("cp (side to move, hce)"), "{out}");

    // A good network in use stays in use when a bad file is offered (UCCI spelling).
    let good = dir.path().join("good.xqnn");
    Network::random(4, 32).save(&good).expect("write");
    let out = run(&format!(
        "ucci\nsetoption evalfile {}\nsetoption eval nnue\nsetoption evalfile {}\neval\n",
        good.display(),
        path.display()
    ));
    assert!(out.contains("option eval type combo default hce var hce var nnue"), "{out}");
    assert_eq!(out.matches("info string error:").count(), 1, "{out}");
    assert!(out.contains("cp (side to move, nnue)"), "{out}");
}

#[test]
fn the_engine_api_searches_with_a_network_deterministically() {
    let net = Arc::new(Network::random(9, 64));
    let search = || {
        let mut engine = Engine::new();
        engine.set_eval(EvalKind::Nnue(Arc::clone(&net)));
        engine.go(&Limits::nodes(5_000), |_| {})
    };
    let (a, b) = (search(), search());
    assert_eq!((a.best_move, a.nodes, a.value), (b.best_move, b.nodes, b.value));
    assert!(a.best_move.is_some());
}

/// The hand-crafted evaluation stays the default and the search with it is untouched: the
/// bench signature of `engine/SEARCH.md` (update both with a search change).
#[test]
fn the_hce_bench_signature_is_unchanged() {
    let result = engine::bench::run(engine::bench::DEFAULT_DEPTH, &engine::ParamSet::default(), |_, _, _| {});
    assert_eq!(result.nodes, 1_862_357);
    let explicit = engine::bench::run_with_eval(4, &engine::ParamSet::default(), &EvalKind::Hce, |_, _, _| {}).nodes;
    assert_eq!(explicit, engine::bench::run(4, &engine::ParamSet::default(), |_, _, _| {}).nodes);
}
