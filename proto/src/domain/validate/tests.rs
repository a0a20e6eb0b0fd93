//! Each check at its boundary: the last accepted value and the first refused one, and the
//! field the refusal names.

use super::*;
use crate::domain::{DatagenSettings, EngineProtocol, MAX_RANDOM_PLIES, NO_ADJUDICATION, SuiteId};

/// The field a refusal names; panics on success.
fn refused(result: Result<()>) -> String {
    match result {
        Err(Error::InvalidField { field, .. }) => field,
        other => panic!("expected an invalid field, got {other:?}"),
    }
}

const DAY: u64 = MAX_TIME_MS;

#[test]
fn time_controls_at_their_bounds() {
    for ok in [
        TimeControl::Nodes(1),
        TimeControl::Nodes(u64::MAX),
        TimeControl::Depth(1),
        TimeControl::Depth(MAX_DEPTH),
        TimeControl::MoveTimeMs(1),
        TimeControl::MoveTimeMs(DAY),
        TimeControl::Clock { base_ms: 1, inc_ms: 0 },
        TimeControl::Clock { base_ms: DAY, inc_ms: DAY },
    ] {
        assert_eq!(ok.validate(), Ok(()), "{ok}");
    }
    let cases = [
        (TimeControl::Nodes(0), "nodes"),
        (TimeControl::Depth(0), "depth"),
        (TimeControl::Depth(MAX_DEPTH + 1), "depth"),
        (TimeControl::MoveTimeMs(0), "movetime_ms"),
        (TimeControl::MoveTimeMs(DAY + 1), "movetime_ms"),
        (TimeControl::Clock { base_ms: 0, inc_ms: 100 }, "clock.base_ms"),
        (TimeControl::Clock { base_ms: DAY + 1, inc_ms: 0 }, "clock.base_ms"),
        (TimeControl::Clock { base_ms: 1000, inc_ms: DAY + 1 }, "clock.inc_ms"),
    ];
    for (tc, field) in cases {
        assert_eq!(refused(tc.validate()), field, "{tc}");
    }
    let err = TimeControl::Depth(101).validate().unwrap_err();
    assert_eq!(err.to_string(), "invalid field `depth`: 101, expected 1..=100");
}

#[test]
fn adjudication_scores_are_not_negative() {
    assert_eq!(Adjudication::default().validate(), Ok(()));
    assert_eq!(NO_ADJUDICATION.validate(), Ok(()), "0 everywhere switches adjudication off");
    let a = Adjudication::default();
    assert_eq!(refused(Adjudication { resign_score: -1, ..a }.validate()), "resign_score");
    assert_eq!(refused(Adjudication { draw_score: -1, ..a }.validate()), "draw_score");
    assert_eq!(Adjudication { resign_score: 0, draw_score: 0, ..a }.validate(), Ok(()));
}

fn params(name: &str, toml: &str) -> VariantSpec {
    VariantSpec { name: name.into(), kind: VariantKind::Params { toml: toml.into() } }
}

fn external(engine: &str, options: Vec<(String, String)>) -> VariantSpec {
    VariantSpec {
        name: "pikafish".into(),
        kind: VariantKind::External { engine: engine.into(), protocol: EngineProtocol::Uci, options },
    }
}

#[test]
fn variant_names_and_texts_at_their_bounds() {
    assert_eq!(params(&"n".repeat(MAX_NAME_BYTES), "").validate(), Ok(()));
    assert_eq!(refused(params(&"n".repeat(MAX_NAME_BYTES + 1), "").validate()), "name");
    assert_eq!(refused(params("", "").validate()), "name");
    assert_eq!(refused(params(" \t", "").validate()), "name");
    assert_eq!(refused(params("two\nlines", "").validate()), "name");
    assert_eq!(params("中炮", &"x".repeat(MAX_VARIANT_TEXT_BYTES)).validate(), Ok(()));
    assert_eq!(refused(params("big", &"x".repeat(MAX_VARIANT_TEXT_BYTES + 1)).validate()), "params.toml");

    assert_eq!(external("fairy-stockfish", vec![]).validate(), Ok(()));
    assert_eq!(refused(external(" ", vec![]).validate()), "external.engine");
    assert_eq!(refused(external("/usr/games/fairy-stockfish", vec![]).validate()), "external.engine");
    let at_limit = external("e", vec![("k".into(), "v".repeat(MAX_VARIANT_TEXT_BYTES - 1))]);
    assert_eq!(at_limit.validate(), Ok(()));
    let over = external("e", vec![("k".into(), "v".repeat(MAX_VARIANT_TEXT_BYTES))]);
    assert_eq!(refused(over.validate()), "external.options");
    let unnamed = external("e", vec![("Hash".into(), "16".into()), (" ".into(), "1".into())]);
    assert_eq!(refused(unnamed.validate()), "external.options[1].name");
}

#[test]
fn suites_at_their_bounds() {
    let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(validate_suite("s", &lines(&["startpos"])), Ok(()));
    assert_eq!(refused(validate_suite("s", &[])), "openings");
    assert_eq!(refused(validate_suite("", &lines(&["startpos"]))), "name");
    assert_eq!(refused(validate_suite("s", &lines(&["startpos", "  "]))), "openings[1]");
    assert_eq!(refused(validate_suite("s", &lines(&["startpos", "startpos\nmoves h2e2"]))), "openings[1]");
    let longest = "x".repeat(MAX_OPENING_BYTES);
    assert_eq!(validate_suite("s", std::slice::from_ref(&longest)), Ok(()));
    assert_eq!(refused(validate_suite("s", &[longest + "x"])), "openings[0]");
    let spec = OpeningSuiteSpec { name: "s".into(), openings: vec![] };
    assert_eq!(spec.validate(), validate_suite("s", &[]), "one check, two spellings");
}

fn run(kind: RunKind, n: usize) -> RunSpec {
    RunSpec {
        name: "r".into(),
        kind,
        variants: (0..n).map(|i| VariantId::new(format!("v{i}"))).collect(),
        tc: TimeControl::Nodes(1000),
        openings: SuiteId::new(1),
        adjudication: Adjudication::default(),
        bench_signature: None,
        sample_every: 0,
    }
}

#[test]
fn run_players_at_their_bounds() {
    let sprt = || RunKind::Sprt(SprtSettings::default());
    assert_eq!(run(sprt(), 2).validate(), Ok(()));
    assert_eq!(refused(run(sprt(), 1).validate()), "variants");
    assert_eq!(refused(run(sprt(), 3).validate()), "variants");
    assert_eq!(refused(run(RunKind::Games { pairs: 1 }, 3).validate()), "variants");
    for kind in [RunKind::Gauntlet { pairs_per_opponent: 1 }, RunKind::RoundRobin { pairs_per_pairing: 1 }] {
        assert_eq!(run(kind.clone(), 2).validate(), Ok(()));
        assert_eq!(run(kind.clone(), MAX_RUN_VARIANTS).validate(), Ok(()));
        assert_eq!(refused(run(kind.clone(), 1).validate()), "variants");
        assert_eq!(refused(run(kind, MAX_RUN_VARIANTS + 1).validate()), "variants");
    }
    let mut twice = run(RunKind::RoundRobin { pairs_per_pairing: 1 }, 3);
    twice.variants[2] = twice.variants[0].clone();
    assert_eq!(refused(twice.validate()), "variants");
    let mut aa = run(RunKind::Games { pairs: 1 }, 2);
    aa.variants[1] = aa.variants[0].clone();
    assert_eq!(aa.validate(), Ok(()), "an A/A test is allowed");
    let mut blank = run(sprt(), 2);
    blank.variants[1] = VariantId::new(String::new());
    assert_eq!(refused(blank.validate()), "variants[1]");
}

#[test]
fn run_pair_counts_at_their_bounds() {
    assert_eq!(refused(run(RunKind::Games { pairs: 0 }, 2).validate()), "games.pairs");
    assert_eq!(run(RunKind::Games { pairs: MAX_RUN_PAIRS }, 2).validate(), Ok(()));
    assert_eq!(refused(run(RunKind::Games { pairs: MAX_RUN_PAIRS + 1 }, 2).validate()), "games.pairs");
    // Three variants: a gauntlet has two pairings, a round robin three.
    let per = MAX_RUN_PAIRS / 2;
    assert_eq!(run(RunKind::Gauntlet { pairs_per_opponent: per }, 3).validate(), Ok(()));
    assert_eq!(
        refused(run(RunKind::Gauntlet { pairs_per_opponent: per + 1 }, 3).validate()),
        "gauntlet.pairs_per_opponent"
    );
    let per = MAX_RUN_PAIRS / 3;
    assert_eq!(run(RunKind::RoundRobin { pairs_per_pairing: per }, 3).validate(), Ok(()));
    assert_eq!(
        refused(run(RunKind::RoundRobin { pairs_per_pairing: per + 1 }, 3).validate()),
        "round_robin.pairs_per_pairing"
    );
    assert_eq!(
        refused(run(RunKind::RoundRobin { pairs_per_pairing: u64::MAX }, 3).validate()),
        "round_robin.pairs_per_pairing",
        "no overflow on the way"
    );
}

#[test]
fn run_parts_are_checked_under_their_field() {
    let mut spec = run(RunKind::Sprt(SprtSettings { alpha: 0.0, ..SprtSettings::default() }), 2);
    assert_eq!(refused(spec.validate()), "sprt.alpha");
    // The one SPRT rule: alpha and beta in (0, 1) with alpha + beta < 1 (0.5 is allowed).
    spec.kind = RunKind::Sprt(SprtSettings { alpha: 0.5, beta: 0.4, ..SprtSettings::default() });
    assert_eq!(spec.validate(), Ok(()));
    spec.kind = RunKind::Sprt(SprtSettings { alpha: 0.5, beta: 0.5, ..SprtSettings::default() });
    assert_eq!(refused(spec.validate()), "sprt.beta");
    spec.kind = RunKind::Games { pairs: 10 };
    spec.tc = TimeControl::Depth(MAX_DEPTH + 1);
    assert_eq!(refused(spec.validate()), "tc.depth");
    spec.tc = TimeControl::Depth(MAX_DEPTH);
    spec.adjudication.draw_score = -1;
    assert_eq!(refused(spec.validate()), "adjudication.draw_score");
    spec.adjudication.draw_score = 0;
    spec.name = "\u{7}".into();
    assert_eq!(refused(spec.validate()), "name");
}

fn worker() -> WorkerInfo {
    WorkerInfo {
        name: "w".into(),
        host: "h".into(),
        cores: 1,
        engine_version: "1".into(),
        bench_signature: 1,
        worker_key: String::new(),
        rules_version: engine::RULES_VERSION,
        engines: Vec::new(),
        bench_nps: 0,
        simd: None,
        nnue_bench_nps: 0,
    }
}

#[test]
fn workers_at_their_bounds() {
    let w = worker();
    assert_eq!(w.validate(), Ok(()), "a worker without a key");
    assert_eq!(refused(WorkerInfo { cores: 0, ..worker() }.validate()), "cores");
    assert_eq!(refused(WorkerInfo { name: String::new(), ..worker() }.validate()), "name");
    assert_eq!(WorkerInfo { host: "h".repeat(MAX_NAME_BYTES), ..worker() }.validate(), Ok(()));
    assert_eq!(refused(WorkerInfo { host: "h".repeat(MAX_NAME_BYTES + 1), ..worker() }.validate()), "host");
    assert_eq!(
        refused(WorkerInfo { engine_version: "v".repeat(MAX_NAME_BYTES + 1), ..worker() }.validate()),
        "engine_version"
    );
    assert_eq!(WorkerInfo { worker_key: "k".repeat(MAX_WORKER_KEY_BYTES), ..worker() }.validate(), Ok(()));
    assert_eq!(
        refused(WorkerInfo { worker_key: "k".repeat(MAX_WORKER_KEY_BYTES + 1), ..worker() }.validate()),
        "worker_key"
    );
    assert_eq!(refused(WorkerInfo { worker_key: "two words".into(), ..worker() }.validate()), "worker_key");
}

#[test]
fn a_datagen_run_plays_one_variant_at_every_ply_within_its_bounds() {
    let datagen = |pairs, random_plies| RunKind::Datagen(DatagenSettings { pairs, random_plies });
    let every = |mut spec: RunSpec| {
        spec.sample_every = 1;
        spec
    };
    assert_eq!(every(run(datagen(10, 8), 1)).validate(), Ok(()));
    assert_eq!(refused(every(run(datagen(10, 8), 0)).validate()), "variants");
    assert_eq!(refused(every(run(datagen(10, 8), 2)).validate()), "variants");
    assert_eq!(refused(every(run(datagen(0, 8), 1)).validate()), "datagen.pairs");
    assert_eq!(every(run(datagen(MAX_RUN_PAIRS, 8), 1)).validate(), Ok(()));
    assert_eq!(refused(every(run(datagen(MAX_RUN_PAIRS + 1, 8), 1)).validate()), "datagen.pairs");
    assert_eq!(every(run(datagen(1, 0), 1)).validate(), Ok(()), "no random plies: the suite's openings as they are");
    assert_eq!(every(run(datagen(1, MAX_RANDOM_PLIES), 1)).validate(), Ok(()));
    assert_eq!(refused(every(run(datagen(1, MAX_RANDOM_PLIES + 1), 1)).validate()), "datagen.random_plies");
    // Every position is recorded: any other sampling is refused, naming the rule.
    for sample_every in [0, 2, 8] {
        let mut spec = run(datagen(1, 8), 1);
        spec.sample_every = sample_every;
        let err = spec.validate().expect_err("not every position");
        assert_eq!(err.field(), Some("sample_every"));
        assert!(err.to_string().contains("records every position"), "{err}");
    }
}
