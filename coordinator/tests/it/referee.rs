//! The referee through the farm, on both backends with the Parquet export: games really played
//! (random legal moves through `worker::runner`) are counted; each lie is refused with
//! INVALID_ARGUMENT's error naming the place and the reason, and leaves no game, no statistic
//! and no Parquet row behind, even when the same batch holds an honest pair.

use std::num::NonZeroU64;
use std::path::Path;
use std::sync::Arc;

use coordinator::farm::Farm;
use coordinator::{Error, LeaseTerms, ManualClock, MemoryStorage, SqliteStorage, Storage};
use engine::eval::Params;
use engine::rules::Reason;
use proto::domain::{
    Adjudication, BatchResult, ForfeitAttempt, GameOutcome, GameReport, Lease, LeaseGrant, LeaseRequest,
    OpeningSuiteSpec, PairReport, RunId, RunKind, RunSpec, SubmitRequest, Termination, TimeControl, Variant,
    VariantKind, VariantSpec, WorkerId, WorkerInfo,
};
use worker::player::{Player, RandomMover};

struct Farmed {
    farm: Farm,
    worker: WorkerId,
    run: RunId,
    data: tempfile::TempDir,
    _db: Option<tempfile::TempDir>,
}

fn farm(storage: Arc<dyn Storage>, tc: TimeControl) -> Farmed {
    farm_for_speed(storage, tc, None, 0)
}

/// [`farm`] on a coordinator with the reference speed `reference_nps`, whose worker registered
/// at `bench_nps`.
fn farm_for_speed(
    storage: Arc<dyn Storage>,
    tc: TimeControl,
    reference_nps: Option<NonZeroU64>,
    bench_nps: u64,
) -> Farmed {
    let data = tempfile::tempdir().expect("temp dir");
    let farm = Farm::new(storage, Arc::new(ManualClock::new(1_000)), Some(data.path().to_owned()))
        .expect("farm")
        .with_reference_nps(reference_nps);
    let variant = |name: &str, params: Params| VariantSpec {
        name: name.into(),
        kind: VariantKind::Params { toml: params.to_toml() },
    };
    let a = farm.add_variant(&variant("a", Params::default())).expect("variant a");
    let b = farm.add_variant(&variant("b", Params::material_only())).expect("variant b");
    let openings = vec!["startpos".to_owned(), "startpos moves h2e2 h9g7".to_owned()];
    let suite = farm.add_openings(&OpeningSuiteSpec { name: "two".into(), openings }).expect("suite");
    let run = farm
        .create_run(&RunSpec {
            name: "refereed".into(),
            kind: RunKind::Games { pairs: 50 },
            variants: vec![a.id, b.id],
            tc,
            openings: suite.id,
            adjudication: Adjudication::default(),
            bench_signature: None,
            sample_every: 8,
        })
        .expect("run")
        .id;
    let worker = farm.register(&worker_info(bench_nps)).expect("worker");
    Farmed { farm, worker, run, data, _db: None }
}

/// The one worker of these farms, registered with bench speed `bench_nps`.
fn worker_info(bench_nps: u64) -> WorkerInfo {
    WorkerInfo {
        name: "w".into(),
        host: "h".into(),
        cores: 1,
        engine_version: "t".into(),
        bench_signature: 0,
        worker_key: String::new(),
        rules_version: engine::RULES_VERSION,
        engines: Vec::new(),
        bench_nps,
        simd: None,
        nnue_bench_nps: 0,
    }
}

fn backends(tc: TimeControl) -> Vec<(&'static str, Farmed)> {
    let sqlite_dir = tempfile::tempdir().expect("temp dir");
    let sqlite = SqliteStorage::open(sqlite_dir.path().join("farm.db")).expect("database");
    let on_disk = Farmed { _db: Some(sqlite_dir), ..farm(Arc::new(sqlite), tc) };
    vec![("memory", farm(Arc::new(MemoryStorage::new()), tc)), ("sqlite", on_disk)]
}

fn random_player(v: &Variant) -> worker::Result<Box<dyn Player>> {
    let seed = v.id.as_str().bytes().fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    Ok(Box::new(RandomMover::new(v.spec.name.clone(), seed).with_score(Some(150))))
}

impl Farmed {
    fn lease(&self, pairs: u32) -> Lease {
        let req = LeaseRequest { worker: self.worker, free_slots: pairs, held: vec![], finished: vec![] };
        match self.farm.lease(&req).expect("lease").grant {
            LeaseGrant::Lease(lease) => lease,
            other => panic!("expected work, got {other:?}"),
        }
    }

    /// Plays every pair of the lease for real.
    fn play(&self, lease: &Lease) -> Vec<PairReport> {
        let mut out = Vec::new();
        worker::runner::play_lease(lease, 1, &random_player, "w", |p| out.push(p)).expect("played");
        out.sort_by_key(|p| p.pair_index);
        out
    }

    fn submit(&self, lease: &Lease, pairs: Vec<PairReport>) -> coordinator::Result<u32> {
        let batch = BatchResult { lease: lease.id, seq: 0, pairs, is_final: true };
        self.farm.submit(&SubmitRequest { worker: self.worker, batch }).map(|ack| ack.recorded_pairs)
    }

    /// Nothing stored: no statistic, no game, no Parquet row.
    fn assert_empty(&self, name: &str) {
        let run = self.farm.get_run(self.run).expect("run").run;
        assert_eq!(run.stats[0].games(), 0, "{name}: statistics");
        assert!(self.farm.storage().games_since(self.run, 0, 10).expect("games").is_empty(), "{name}: games");
        self.farm.export_all().expect("export");
        assert!(parquet_games(self.data.path(), self.run).is_empty(), "{name}: Parquet");
    }
}

fn parquet_games(dir: &Path, run: RunId) -> Vec<farmdata::GameRow> {
    farmdata::read_games(dir, run).expect("readable Parquet")
}

type Lie = (&'static str, fn(&mut PairReport), &'static str);

/// The game's first `plies` plies, as the worker would report a game that ended there.
fn cut(g: &mut GameReport, plies: usize) {
    g.moves.truncate(plies);
    g.move_stats.truncate(plies);
    g.positions.retain(|s| (s.ply as usize) < plies);
}

/// Each lie, made in the second game of a really played pair, and what the refusal says.
const LIES: [Lie; 9] = [
    ("illegal move", |p| p.games[1].moves[10] = "a0a9".into(), "game 1, ply 10: illegal move `a0a9`"),
    (
        "wrong start",
        |p| {
            // Both games (the pair's games must agree on their start).
            for g in &mut p.games {
                g.start_fen = engine::START_FEN.replace(" w ", " b ");
            }
        },
        "game 0: starts from `rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1`, but the leased opening",
    ),
    (
        "checkmate where there is none",
        |p| {
            let g = &mut p.games[1];
            cut(g, 51);
            g.reason = Termination::Rules(Reason::Checkmate);
            g.outcome = GameOutcome::RedWins;
        },
        "game 1, ply 51: checkmate claimed, but the rules do not end the game here",
    ),
    (
        "another reason than the rules'",
        |p| p.games[1].reason = Termination::Rules(Reason::Checkmate),
        "the rules end the game here (1/2-1/2 (move_limit)), not checkmate",
    ),
    (
        "winner contradicting the rules",
        |p| p.games[1].outcome = GameOutcome::RedWins,
        "the rules give 1/2-1/2 by move_limit, the report 1-0",
    ),
    (
        "rules reason before the end",
        |p| cut(&mut p.games[1], 60),
        "game 1, ply 60: move_limit claimed, but the rules do not end the game here",
    ),
    (
        "adjudication at the wrong ply",
        |p| {
            let g = &mut p.games[1];
            cut(g, 70);
            g.reason = Termination::AdjudicatedDraw;
        },
        "game 1, ply 70: adjudication_draw, but the adjudication rules do not trigger at this ply",
    ),
    (
        "time forfeit without a clock",
        |p| {
            let g = &mut p.games[1];
            cut(g, 50);
            g.reason = Termination::TimeForfeit;
            g.outcome = GameOutcome::BlackWins;
            g.forfeit = Some(ForfeitAttempt { mv: None, time_ms: 1 });
        },
        "game 1, ply 50: time_forfeit in a game without a clock",
    ),
    (
        "wrong sampled position",
        |p| p.games[1].positions[2].fen = engine::START_FEN.into(),
        "game 1, ply 24: sampled position",
    ),
];

#[test]
fn honest_games_count_and_every_lie_is_refused_with_nothing_stored() {
    // A slow time control: one pair per free slot (the random movers ignore it).
    for (backend, f) in backends(TimeControl::MoveTimeMs(60_000)) {
        for (name, lie, expected) in LIES {
            let lease = f.lease(2);
            let mut pairs = f.play(&lease);
            assert_eq!(pairs.len(), 2);
            // Random quiet moves run to the move limit (after `startpos moves h2e2 h9g7` the
            // counter runs on from the opening's two quiet plies).
            assert!(pairs.iter().all(|p| p.games.iter().all(|g| g.reason == Termination::Rules(Reason::MoveLimit))));
            lie(&mut pairs[1]);
            let pair = pairs[1].pair_index;
            match f.submit(&lease, pairs) {
                Err(e @ Error::InvalidReport { .. }) => {
                    let text = e.to_string();
                    let place = format!("invalid report for lease {}, pair {pair}, game ", lease.id);
                    assert!(text.starts_with(&place), "{backend}, {name}: {text}");
                    assert!(text.contains(expected), "{backend}, {name}: {text}");
                }
                other => panic!("{backend}, {name}: expected a refusal, got {other:?}"),
            }
            // The honest first pair of the batch was refused with it.
            f.assert_empty(&format!("{backend}, {name}"));
        }
        // The same games, told honestly, count, and reach Parquet.
        let lease = f.lease(2);
        let pairs = f.play(&lease);
        let n = pairs.len() as u64;
        assert_eq!(u64::from(f.submit(&lease, pairs).expect("honest games")), n, "{backend}");
        assert_eq!(f.farm.get_run(f.run).expect("run").run.stats[0].games(), 2 * n, "{backend}");
        f.farm.export_all().expect("export");
        let rows = parquet_games(f.data.path(), f.run);
        assert_eq!(rows.len() as u64, 2 * n, "{backend}");
        let ends: Vec<(&str, u32)> = rows.iter().map(|r| (r.reason.as_str(), r.plies)).collect();
        // (A random mover in check may have to capture: the limit then comes later.)
        assert!(ends.iter().all(|&(reason, plies)| reason == "move_limit" && plies >= 118), "{backend}: {ends:?}");
    }
}

#[test]
fn clock_forfeits_are_checked_against_the_replayed_clock() {
    for (backend, f) in backends(TimeControl::Clock { base_ms: 600_000, inc_ms: 0 }) {
        let lease = f.lease(1);
        let mut pairs = f.play(&lease);
        let g = &mut pairs[0].games[0];
        // A time forfeit claimed with nearly all the time left.
        cut(g, 40);
        g.reason = Termination::TimeForfeit;
        g.outcome = GameOutcome::BlackWins;
        g.forfeit = Some(ForfeitAttempt { mv: None, time_ms: 5 });
        match f.submit(&lease, pairs.clone()) {
            Err(e) => {
                assert!(e.to_string().contains("ply 40: time_forfeit, but the attempt took 5 ms"), "{backend}: {e}")
            }
            Ok(n) => panic!("{backend}: a time forfeit with time left was counted ({n})"),
        }
        f.assert_empty(backend);
        // The clock really ran out: accepted.
        let left = 600_000 - pairs[0].games[0].move_stats.iter().step_by(2).map(|m| m.time_ms).sum::<u64>();
        pairs[0].games[0].forfeit = Some(ForfeitAttempt { mv: None, time_ms: left + 1 });
        assert_eq!(f.submit(&lease, pairs).expect("a real time forfeit"), 1, "{backend}");
    }
}

#[test]
fn a_slow_workers_longer_thinking_is_within_its_scaled_clock() {
    // A worker at half the reference speed plays 1+0 as 2+0.
    let tc = TimeControl::Clock { base_ms: 1_000, inc_ms: 0 };
    let reference = NonZeroU64::new(1_000_000);
    let sqlite_dir = tempfile::tempdir().expect("temp dir");
    let db = sqlite_dir.path().join("farm.db");
    let on_disk = farm_for_speed(Arc::new(SqliteStorage::open(&db).expect("database")), tc, reference, 500_000);
    let in_memory = farm_for_speed(Arc::new(MemoryStorage::new()), tc, reference, 500_000);
    for (backend, f) in [("memory", in_memory), ("sqlite", on_disk)] {
        let lease = f.lease(1);
        assert_eq!(lease.tc, TimeControl::Clock { base_ms: 2_000, inc_ms: 0 }, "{backend}");
        let mut pairs = f.play(&lease);
        // Red's first move took 1.5 s: more than the run's whole clock, within the lease's.
        pairs[0].games[0].move_stats[0].time_ms = 1_500;
        let unscaled = LeaseTerms { tc, ..f.farm.storage().lease_terms(lease.id).expect("terms") };
        let refused = coordinator::referee::check_batch(&unscaled, &pairs, None).expect_err("over the unscaled clock");
        assert!(refused.to_string().contains("took 1500 ms with 1000 ms left"), "{backend}: {refused}");
        // A time forfeit on the unscaled clock is none on the scaled one.
        let mut forfeit = pairs.clone();
        let g = &mut forfeit[0].games[1];
        cut(g, 0);
        g.reason = Termination::TimeForfeit;
        g.outcome = GameOutcome::BlackWins;
        g.forfeit = Some(ForfeitAttempt { mv: None, time_ms: 1_500 });
        match f.submit(&lease, forfeit) {
            Err(e) => assert!(e.to_string().contains("the attempt took 1500 ms with 2000 ms left"), "{backend}: {e}"),
            Ok(n) => panic!("{backend}: a forfeit within the scaled clock was counted ({n})"),
        }
        f.assert_empty(backend);
        let n = pairs.len() as u32;
        assert_eq!(f.submit(&lease, pairs).expect("within the scaled clock"), n, "{backend}");
    }
    // A restarted coordinator, even one without a reference speed, referees the lease the same.
    let restarted =
        Farm::new(Arc::new(SqliteStorage::open(&db).expect("reopen")), Arc::new(ManualClock::new(2_000)), None)
            .expect("farm");
    let terms = restarted.storage().lease_terms(proto::domain::LeaseId::new(1)).expect("terms");
    assert_eq!(terms.tc, TimeControl::Clock { base_ms: 2_000, inc_ms: 0 });
}

#[test]
fn a_run_pins_the_coordinators_tables_and_table_endings_in_them_are_recorded() {
    use engine::tablebase::Tablebases;
    let coordinator_dir = tempfile::tempdir().expect("temp dir");
    let tables = Tablebases::open(coordinator_dir.path()).expect("a directory");
    tables.generate("KRK".parse().expect("a set"), &|_| {}).expect("generates");
    let manifest = tables.manifest().expect("lists");
    // The worker's tables: a copy of the same files, in a directory of its own.
    let worker_dir = tempfile::tempdir().expect("temp dir");
    for (set, _) in &manifest {
        let name = engine::tablebase::file::file_name(*set);
        std::fs::copy(coordinator_dir.path().join(&name), worker_dir.path().join(&name)).expect("copy");
    }
    let worker_tables = Arc::new(Tablebases::open(worker_dir.path()).expect("a directory"));

    let data = tempfile::tempdir().expect("temp dir");
    let farm = Farm::new(Arc::new(MemoryStorage::new()), Arc::new(ManualClock::new(1_000)), Some(data.path().into()))
        .expect("farm")
        .with_tablebases(Some(Arc::new(tables)));
    let variant = |name: &str| VariantSpec { name: name.into(), kind: VariantKind::Params { toml: String::new() } };
    let (a, b) = (farm.add_variant(&variant("a")).expect("a"), farm.add_variant(&variant("b")).expect("b"));
    // K+R vs K, Black to move after Red's first move in every game.
    let openings = vec!["3k5/9/9/9/9/9/9/9/9/4K3R w - - 0 1".to_owned()];
    let suite = farm.add_openings(&OpeningSuiteSpec { name: "krk".into(), openings }).expect("suite");
    let spec = RunSpec {
        name: "tables".into(),
        kind: RunKind::Games { pairs: 2 },
        variants: vec![a.id, b.id],
        tc: TimeControl::Depth(1),
        openings: suite.id,
        adjudication: Adjudication::default(),
        bench_signature: None,
        sample_every: 0,
    };
    let run = farm.create_run(&spec).expect("run");
    assert_eq!(run.tablebases, proto::domain::TablePin::of_manifest(&manifest), "every set, by its checksum");
    let worker = farm.register(&worker_info(0)).expect("worker");
    let req = LeaseRequest { worker, free_slots: 2, held: vec![], finished: vec![] };
    let LeaseGrant::Lease(lease) = farm.lease(&req).expect("lease").grant else { panic!("expected work") };
    assert_eq!(lease.tablebases, run.tablebases);
    let mut pairs = Vec::new();
    let stop = worker::runner::StopFlag::new();
    worker::runner::play_lease_with(&lease, 1, &random_player, "w", &stop, Some(worker_tables), |p| pairs.push(p))
        .expect("played");
    let ended_by_tables = pairs.iter().flat_map(|p| &p.games).filter(|g| g.reason == Termination::Tablebase).count();
    assert!(ended_by_tables > 0, "random play from K+R vs K enters the table at once");
    let batch = BatchResult { lease: lease.id, seq: 0, pairs, is_final: true };
    let ack = farm.submit(&SubmitRequest { worker, batch }).expect("the referee accepts the tables' verdicts");
    assert_eq!(ack.recorded_pairs, 2);
    farm.export_all().expect("export");
    let rows = parquet_games(data.path(), run.id);
    assert_eq!(rows.iter().filter(|g| g.reason == "tablebase").count(), ended_by_tables);
}

/// A datagen farm on the memory backend: one variant, a datagen run of `pairs` pairs with 6
/// random plies, one worker.
fn datagen_farm(pairs: u64) -> (Farm, WorkerId, RunId, Variant) {
    use proto::domain::{DATAGEN_TC, DatagenSettings};
    let farm = Farm::new(Arc::new(MemoryStorage::new()), Arc::new(ManualClock::new(1_000)), None).expect("farm");
    let variant = farm
        .add_variant(&VariantSpec {
            name: "self".into(),
            kind: VariantKind::Params { toml: Params::default().to_toml() },
        })
        .expect("variant");
    let openings = vec!["startpos".to_owned(), "startpos moves h2e2 h9g7".to_owned()];
    let suite = farm.add_openings(&OpeningSuiteSpec { name: "two".into(), openings }).expect("suite");
    let run = farm
        .create_run(&RunSpec {
            name: "datagen".into(),
            kind: RunKind::Datagen(DatagenSettings { pairs, random_plies: 6 }),
            variants: vec![variant.id.clone()],
            tc: DATAGEN_TC,
            openings: suite.id,
            adjudication: Adjudication::default(),
            bench_signature: None,
            sample_every: 1,
        })
        .expect("run")
        .id;
    let worker = farm.register(&worker_info(0)).expect("worker");
    (farm, worker, run, variant)
}

fn lease_of(farm: &Farm, worker: WorkerId, pairs: u32) -> Lease {
    let req = LeaseRequest { worker, free_slots: pairs, held: vec![], finished: vec![] };
    match farm.lease(&req).expect("lease").grant {
        LeaseGrant::Lease(lease) => lease,
        other => panic!("expected work, got {other:?}"),
    }
}

/// Random legal games from the leased random openings, refereed and recorded: every position
/// of every game, each with the mover's score, from the opening after the random plies.
#[test]
fn a_datagen_run_records_every_position_from_its_random_openings() {
    let (farm, worker, run, _) = datagen_farm(2);
    let lease = lease_of(&farm, worker, 2);
    assert_eq!(lease.sample_every, 1);
    let mut pairs = Vec::new();
    worker::runner::play_lease(&lease, 1, &random_player, "w", |p| pairs.push(p)).expect("played");
    for pair in &pairs {
        let task = lease.tasks.iter().find(|t| t.pair_index == pair.pair_index).expect("its task");
        assert_ne!(pair.games[0].start_fen, pair.games[1].start_fen, "each game has random plies of its own");
        for (i, g) in pair.games.iter().enumerate() {
            assert_eq!(g.start_fen, task.opening_of(i), "the random opening is where the game starts");
            assert_eq!(g.positions.len(), g.moves.len().saturating_sub(1), "every ply but the first");
            assert!(g.positions.iter().all(|p| p.search_score == Some(150)));
        }
    }
    let batch = BatchResult { lease: lease.id, seq: 0, pairs, is_final: true };
    let ack = farm.submit(&SubmitRequest { worker, batch }).expect("accepted");
    assert_eq!(ack.recorded_pairs, 2);
    let status = farm.get_run(run).expect("run");
    assert_eq!(status.run.state, proto::domain::RunState::Completed);
    assert!(status.live[0].elo.is_nan() && status.live[0].sprt.is_none(), "a datagen run has no Elo");
}

/// An engine that gives no score at all: the submission is refused naming the run, the variant
/// and the engine, nothing is stored, and the run is stopped.
#[test]
fn a_datagen_run_whose_engine_gives_no_scores_is_refused_and_stopped() {
    let (farm, worker, run, variant) = datagen_farm(2);
    let lease = lease_of(&farm, worker, 1);
    let silent = |v: &Variant| -> worker::Result<Box<dyn Player>> {
        Ok(Box::new(RandomMover::new(v.spec.name.clone(), 11).with_score(None)))
    };
    let mut pairs = Vec::new();
    worker::runner::play_lease(&lease, 1, &silent, "w", |p| pairs.push(p)).expect("played");
    assert!(pairs[0].games.iter().all(|g| g.positions.iter().all(|p| p.search_score.is_none())));
    let batch = BatchResult { lease: lease.id, seq: 0, pairs, is_final: true };
    let e = farm.submit(&SubmitRequest { worker, batch }).expect_err("no scores");
    match &e {
        Error::Unscored { run: r, variant: v, engine, game: 0, .. } => {
            assert_eq!((r, v), (&run, &variant.id));
            assert!(engine.contains("in-process `self`"), "{engine}");
        }
        other => panic!("expected Unscored, got {other:?}"),
    }
    let text = e.to_string();
    assert!(text.contains(&format!("datagen run {run}")) && text.contains("the run is stopped"), "{text}");
    let status = farm.get_run(run).expect("run");
    assert_eq!(status.run.state, proto::domain::RunState::Stopped);
    assert_eq!(status.run.stats[0].games(), 0, "nothing of the submission counted");
}
