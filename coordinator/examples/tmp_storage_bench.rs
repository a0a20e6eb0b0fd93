use std::time::Instant;
use coordinator::{SqliteStorage, Storage, MemoryStorage};
use proto::domain::*;

fn bench(s: &dyn Storage, label: &str) {
    let base = s.add_variant(&VariantSpec { name: "a".into(), kind: VariantKind::Params { toml: "".into() } }).unwrap();
    let weak = s.add_variant(&VariantSpec { name: "b".into(), kind: VariantKind::Params { toml: "x".into() } }).unwrap();
    let suite = s.add_openings("s", &(0..200).map(|i| format!("startpos {i}")).collect::<Vec<_>>()).unwrap();
    s.create_run(&RunSpec { name: "r".into(), kind: RunKind::Sprt(SprtSettings::default()), variants: vec![base.id, weak.id],
        tc: TimeControl::Clock { base_ms: 10_000, inc_ms: 100 }, openings: suite.id, adjudication: Adjudication::default(), bench_signature: None, sample_every: 0 }, 0).unwrap();
    let workers: Vec<u64> = (0..100).map(|i| s.register_worker(&WorkerInfo { name: format!("w{i}"), host: "h".into(), cores: 1, engine_version: "1".into(), bench_signature: 1 }, 0).unwrap()).collect();
    let moves: Vec<String> = (0..150).map(|_| "h2e2".to_string()).collect();
    let game = |r: &str, b: &str| GameReport { red: r.into(), black: b.into(), start_fen: "startpos".into(), outcome: GameOutcome::Draw, reason: "x".into(), moves: moves.clone(), duration_ms: 1, nodes: 1,
        positions: (0..10).map(|p| PositionSample { ply: p * 10, fen: "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w".into(), red_to_move: true, static_eval: 0, search_score: 0, best_move: "h2e2".into(), in_check: false, quiet: true }).collect() };
    let n: usize = std::env::var("N").ok().and_then(|v| v.parse().ok()).unwrap_or(5000);
    let t = Instant::now();
    let (mut tl, mut tr) = (0.0, 0.0);
    for i in 0..n {
        let w = workers[i % workers.len()];
        let t0 = Instant::now();
        let lease = s.lease_batch(w, 1, i as u64).unwrap().unwrap();
        tl += t0.elapsed().as_secs_f64();
        let reports: Vec<PairReport> = lease.tasks.iter().map(|t| { let [a, b] = &t.variants; PairReport { pair_index: t.pair_index, games: [game(a, b), game(b, a)] } }).collect();
        let t0 = Instant::now();
        s.record_results(w, lease.id, 0, &reports, true, i as u64).unwrap();
        tr += t0.elapsed().as_secs_f64();
    }
    println!("lease {:.1} us, record {:.1} us", tl / n as f64 * 1e6, tr / n as f64 * 1e6);
    let dt = t.elapsed().as_secs_f64();
    println!("{label}: {:.0} lease+submit pairs of calls/s ({:.0} calls/s)", n as f64 / dt, 2.0 * n as f64 / dt);
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let p = std::env::var("DB").map(std::path::PathBuf::from).unwrap_or(dir.path().join("b.db")); bench(&SqliteStorage::open(p).unwrap(), "sqlite");
    bench(&MemoryStorage::new(), "memory");
    bench(&SqliteStorage::open_in_memory().unwrap(), "sqlite-mem");
}
