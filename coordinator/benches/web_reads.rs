//! What the run page costs on a large run: a SQLite file with one run of 100,000 recorded games
//! (50,000 pairs by eight workers, recorded through the storage API in leases of 64 pairs), then
//! `run_aggregates`, `run_pair_sequence`, the last page of games (`run_games_page` at offset
//! 99,950, limit 50) and `get_run`, each and all four together. The target: well under 100 ms
//! together.
//!
//! `cargo bench --workspace --bench web_reads --profile dev` (the bench profile is the release
//! one, fat LTO of the whole workspace; the dev profile's opt-level 1 gives figures on the slow
//! side).

use std::hint::black_box;
use std::time::{Duration, Instant};

use coordinator::{SqliteStorage, Storage};
use criterion::{Criterion, criterion_group, criterion_main};
use engine::rules::Reason;
use proto::domain::{
    Adjudication, GameOutcome, GameReport, PairReport, PairTask, PositionSample, RunId, RunKind, RunSpec, Termination,
    TimeControl, VariantKind, VariantSpec, WorkerInfo,
};

const PAIRS: u64 = 50_000;
const WORKERS: usize = 8;
const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";

fn game(task: &PairTask, second: bool) -> GameReport {
    use GameOutcome::*;
    let i = task.pair_index * 2 + u64::from(second);
    let (outcome, reason) = match i % 7 {
        0 | 1 => (RedWins, Termination::Rules(Reason::Checkmate)),
        2 => (BlackWins, Termination::AdjudicatedResign),
        3 | 4 => (Draw, Termination::AdjudicatedDraw),
        5 => (Draw, Termination::Rules(Reason::Repetition)),
        _ => (BlackWins, Termination::Rules(Reason::PerpetualCheck)),
    };
    let plies = 40 + (i * 37 % 161) as usize;
    let moves = ["h2e2", "h9g7", "h0g2", "i9h9", "b0c2", "b9c7"];
    let [a, b] = &task.variants;
    let (red, black) = if second { (b, a) } else { (a, b) };
    GameReport {
        red: red.clone(),
        black: black.clone(),
        start_fen: START.into(),
        outcome,
        reason,
        moves: moves.iter().cycle().take(plies).map(|m| m.to_string()).collect(),
        move_stats: Vec::new(),
        forfeit: None,
        duration_ms: 1_000,
        nodes: 50_000,
        positions: vec![PositionSample {
            ply: 10,
            fen: START.into(),
            red_to_move: true,
            static_eval: 12,
            search_score: Some(30),
            best_move: "b0c2".into(),
            in_check: false,
            quiet: true,
        }],
    }
}

/// A run of `PAIRS` pairs, all recorded.
fn fill(storage: &SqliteStorage) -> RunId {
    let variant =
        |name: &str, toml: &str| VariantSpec { name: name.into(), kind: VariantKind::Params { toml: toml.into() } };
    let a = storage.add_variant(&variant("base", "")).expect("variant");
    let b = storage.add_variant(&variant("weak", "material.rook = 800\n")).expect("variant");
    let lines: Vec<String> = (0..100).map(|i| format!("{START} moves h2e2 h9g7 opening{i}")).collect();
    let suite = storage.add_openings("bench", &lines).expect("suite");
    let spec = RunSpec {
        name: "large run".into(),
        kind: RunKind::Games { pairs: PAIRS },
        variants: vec![a.id, b.id],
        tc: TimeControl::Nodes(1_000),
        openings: suite.id,
        adjudication: Adjudication::default(),
        bench_signature: None,
        sample_every: 0,
    };
    let mut now = 1_700_000_000_000;
    let run = storage.create_run(&spec, now).expect("run").id;
    let workers: Vec<_> = (0..WORKERS)
        .map(|i| {
            let info = WorkerInfo {
                name: format!("worker-{i}"),
                host: "bench".into(),
                cores: 8,
                engine_version: "bench".into(),
                bench_signature: 1,
                worker_key: String::new(),
                rules_version: engine::RULES_VERSION,
                engines: Vec::new(),
                bench_nps: 0,
                simd: None,
                nnue_bench_nps: 0,
            };
            storage.register_worker(&info, now).expect("worker")
        })
        .collect();
    let mut recorded = 0;
    'fill: loop {
        for &w in &workers {
            now += 100;
            let Some(lease) = storage.lease_batch(w, 64, now).expect("lease") else { break 'fill };
            let reports: Vec<PairReport> = lease
                .tasks
                .iter()
                .map(|t| PairReport { pair_index: t.pair_index, games: [game(t, false), game(t, true)] })
                .collect();
            recorded += storage.record_results(w, lease.id, 0, &reports, true, now).expect("record").accepted;
        }
    }
    assert_eq!(recorded as u64, PAIRS);
    run
}

fn web_reads(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let storage = SqliteStorage::open(dir.path().join("large.db")).expect("open");
    let started = Instant::now();
    let run = fill(&storage);
    println!("filled {} games in {:.1?}", PAIRS * 2, started.elapsed());
    let page_offset = PAIRS * 2 - 50;
    assert_eq!(storage.run_aggregates(run).expect("aggregates").games, PAIRS * 2);
    assert_eq!(storage.run_pair_sequence(run).expect("sequence").len() as u64, PAIRS);
    assert_eq!(storage.run_games_page(run, page_offset, 50).expect("page").len(), 50);

    let all = || {
        black_box(storage.run_aggregates(run).expect("aggregates"));
        black_box(storage.run_pair_sequence(run).expect("sequence"));
        black_box(storage.run_games_page(run, page_offset, 50).expect("page"));
        black_box(storage.get_run(run).expect("run"));
    };
    let mut group = c.benchmark_group("run page, 100k games");
    group.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    group.bench_function("run_aggregates", |b| b.iter(|| storage.run_aggregates(run).expect("aggregates")));
    group.bench_function("run_pair_sequence", |b| b.iter(|| storage.run_pair_sequence(run).expect("sequence")));
    group.bench_function("run_games_page(99950, 50)", |b| {
        b.iter(|| storage.run_games_page(run, page_offset, 50).expect("page"))
    });
    group.bench_function("get_run", |b| b.iter(|| storage.get_run(run).expect("run")));
    group.bench_function("all four", |b| b.iter(all));
    group.finish();
}

criterion_group!(benches, web_reads);
criterion_main!(benches);
