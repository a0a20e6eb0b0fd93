//! One behaviour for every storage backend: each case below runs against the in-memory
//! backend, against SQLite on a temporary file and against PostgreSQL (a fresh database on the
//! server `XQFARM_TEST_POSTGRES` names; see `postgres_support`): first the storage primitives
//! (`Tx`, the same calls giving the same results), then the workflow written over them
//! (`Storage`). SQLite-only cases (reopening, corrupt files) follow at the end; PostgreSQL's own
//! (named connection errors, two coordinators on one database) are in `tests/it/postgres.rs`.

use std::collections::BTreeSet;
use std::num::NonZeroU64;

use coordinator::LeaseTerms;
use coordinator::clock::{Clock, ManualClock};
use coordinator::scheduler::{self, NewPair, PairPlan, RunLoad};
use coordinator::storage::tx::{
    Allocation, Backend, GameEnds, LeasePair, LeasePairStatus, LeaseRow, LeaseState, NewGame, NewLease, PairResult,
    PairRow, PairStatus, PairTally, SubmissionContext, Tx, WorkerBench,
};
use coordinator::tc_scale::{ReferenceNps, TcScale};
use coordinator::{Error, MemoryStorage, PgStorage, SqliteStorage, Storage};
use engine::nnue::SimdLevel;
use engine::rules::Reason;
use proto::domain::{
    Adjudication, GameOutcome, GameReport, Lease, LeaseId, MoveStat, PairReport, PairTask, PairingStats,
    PositionSample, RunId, RunKind, RunSpec, RunState, SprtSettings, SuiteId, Termination, TimeControl, VariantId,
    VariantKind, VariantSpec, WorkerId, WorkerInfo,
};
use tempfile::TempDir;

use crate::postgres_support;

const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
/// With `10+0.1` a pair takes over a minute: one pair per free slot.
const SLOW: TimeControl = TimeControl::Clock { base_ms: 10_000, inc_ms: 100 };

struct Fixture {
    storage: Box<dyn Storage>,
    _dir: Option<TempDir>,
    // Dropped after the storage: the database goes with its last connection.
    _db: Option<postgres_support::TestDb>,
}

fn memory() -> Fixture {
    Fixture { storage: Box::new(MemoryStorage::new()), _dir: None, _db: None }
}

fn sqlite() -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let storage = SqliteStorage::open(dir.path().join("farm.db")).expect("open");
    Fixture { storage: Box::new(storage), _dir: Some(dir), _db: None }
}

/// A fresh PostgreSQL database, `None` (the case skips) without a test server.
fn postgres() -> Option<Fixture> {
    let db = postgres_support::fresh()?;
    let storage = PgStorage::open(&db.url).expect("open");
    Some(Fixture { storage: Box::new(storage), _dir: None, _db: Some(db) })
}

macro_rules! conformance {
    ($($case:ident),* $(,)?) => {
        mod memory_backend {
            $( #[test] fn $case() { super::$case(&*super::memory().storage) } )*
        }
        mod sqlite_backend {
            $( #[test] fn $case() { super::$case(&*super::sqlite().storage) } )*
        }
        mod postgres_backend {
            $( #[test] fn $case() {
                if let Some(f) = super::postgres() {
                    super::$case(&*f.storage)
                }
            } )*
        }
    };
}

conformance!(
    runs_pin_their_tables_and_leases_carry_them,
    variants_are_stored_by_content_hash,
    suites_round_trip,
    run_creation_checks_spec_and_references,
    leasing_respects_bench_signatures,
    leasing_respects_free_slots,
    leases_never_overlap_and_openings_do_not_repeat,
    concurrent_leases_never_overlap,
    expiry_returns_only_unfinished_pairs_to_another_worker,
    late_results_of_an_expired_lease_count_once,
    resubmission_is_idempotent,
    bad_submissions_change_nothing,
    stats_equal_the_sum_of_recorded_pairs,
    fixed_games_runs_complete,
    final_batch_returns_unreported_pairs,
    heartbeats_extend_deadlines,
    run_states_gate_leasing,
    runs_share_workers,
    export_bookkeeping,
    a_worker_key_registers_the_same_worker_again,
    lease_terms_are_what_the_lease_was_given,
    leases_go_only_to_workers_with_the_runs_engines,
    variants_and_suites_are_listed,
    a_runs_games_read_back_for_its_page,
    a_runs_aggregates_and_pair_sequence_are_exact,
    pairs_of_every_pairing_are_in_the_sequence,
    workers_are_listed_with_leases_and_recent_games,
    unknown_ids_are_not_found_by_the_web_reads,
    spsa_runs_move_theta_once_per_submission,
    leases_scale_move_times_and_clocks_to_the_workers_speed,
    lease_terms_keep_the_scale_the_lease_was_granted_with,
    workers_are_listed_with_their_speed,
    leases_of_network_runs_scale_by_the_workers_speed_with_a_network,
    tournament_rounds_are_drawn_only_when_the_last_one_is_complete,
    tournaments_refuse_bad_designs_by_name,
    networks_are_stored_by_hash_and_variants_name_only_stored_ones,
    datagen_runs_round_trip_and_lease_random_openings_to_themselves,
    only_exported_games_lose_their_positions,
);

macro_rules! primitives {
    ($($case:ident),* $(,)?) => {
        mod memory_primitives {
            $( #[test] fn $case() { super::$case(&coordinator::MemoryStorage::new()) } )*
        }
        mod sqlite_primitives {
            $( #[test] fn $case() {
                let dir = tempfile::tempdir().expect("temp dir");
                super::$case(&coordinator::SqliteStorage::open(dir.path().join("farm.db")).expect("open"))
            } )*
        }
        mod postgres_primitives {
            $( #[test] fn $case() {
                if let Some(db) = super::postgres_support::fresh() {
                    super::$case(&coordinator::PgStorage::open(&db.url).expect("open"))
                }
            } )*
        }
    };
}

primitives!(
    run_and_pair_rows,
    lease_rows,
    submission_game_and_worker_rows,
    engine_rows,
    a_failed_transaction_changes_nothing,
    concurrent_calls_fail_alone,
    games_keep_their_own_positions,
    missing_rows_are_named,
    spsa_rows,
    tournament_rows,
    pairs_are_scored_as_the_domain_scores_them,
);

// ---------------------------------------------------------------------------------------------
// Helpers

fn params(name: &str, toml: &str) -> VariantSpec {
    VariantSpec { name: name.into(), kind: VariantKind::Params { toml: toml.into() } }
}

fn variants(s: &dyn Storage, n: usize) -> Vec<VariantId> {
    (0..n).map(|i| s.add_variant(&params(&format!("v{i}"), &format!("x = {i}\n"))).expect("variant").id).collect()
}

fn suite(s: &dyn Storage, n: usize) -> SuiteId {
    let lines: Vec<String> = (0..n).map(|i| format!("{START} moves h2e2 h9g7 opening{i}")).collect();
    s.add_openings("test suite", &lines).expect("suite").id
}

fn run_spec(kind: RunKind, variants: Vec<VariantId>, openings: SuiteId, tc: TimeControl) -> RunSpec {
    RunSpec {
        name: "test run".into(),
        kind,
        variants,
        tc,
        openings,
        adjudication: Adjudication::default(),
        bench_signature: None,
        sample_every: 0,
    }
}

/// A fixed-games run of `pairs` pairs between two fresh variants, at a slow time control.
fn games_run(s: &dyn Storage, pairs: u64, now: u64) -> RunId {
    let v = variants(s, 2);
    let suite = suite(s, 10);
    s.create_run(&run_spec(RunKind::Games { pairs }, v, suite, SLOW), now).expect("run").id
}

fn worker(s: &dyn Storage, name: &str, signature: u64, now: u64) -> WorkerId {
    let info = WorkerInfo {
        name: name.into(),
        host: "host".into(),
        cores: 2,
        engine_version: "1.0".into(),
        bench_signature: signature,
        worker_key: String::new(),
        rules_version: engine::RULES_VERSION,
        engines: Vec::new(),
        bench_nps: 0,
        simd: None,
        nnue_bench_nps: 0,
    };
    s.register_worker(&info, now).expect("worker")
}

fn keyed_worker(s: &dyn Storage, name: &str, key: &str, signature: u64, now: u64) -> WorkerId {
    let info = WorkerInfo {
        name: name.into(),
        host: "host".into(),
        cores: 1,
        engine_version: "1.0".into(),
        bench_signature: signature,
        worker_key: key.into(),
        rules_version: engine::RULES_VERSION,
        engines: Vec::new(),
        bench_nps: 0,
        simd: None,
        nnue_bench_nps: 0,
    };
    s.register_worker(&info, now).expect("worker")
}

fn game(red: &VariantId, black: &VariantId, outcome: GameOutcome, salt: u64) -> GameReport {
    GameReport {
        red: red.clone(),
        black: black.clone(),
        start_fen: START.into(),
        outcome,
        reason: Termination::Rules(Reason::Checkmate),
        moves: vec!["h2e2".into(), "h9g7".into(), "h0g2".into()],
        move_stats: (0..3).map(|i| MoveStat { score: Some(i * 10), time_ms: salt }).collect(),
        forfeit: None,
        duration_ms: 1_000 + salt,
        nodes: 50_000 + salt,
        positions: vec![PositionSample {
            ply: 2,
            fen: START.into(),
            red_to_move: true,
            static_eval: -12,
            search_score: Some(30),
            best_move: "b0c2".into(),
            in_check: false,
            quiet: true,
        }],
    }
}

/// A deterministic result for a task: outcomes cycle with the pair index.
fn play(task: &PairTask) -> PairReport {
    use GameOutcome::*;
    let outcomes = [(RedWins, BlackWins), (RedWins, RedWins), (Draw, Draw), (BlackWins, Draw), (Draw, RedWins)];
    let (o0, o1) = outcomes[(task.pair_index % outcomes.len() as u64) as usize];
    let [a, b] = &task.variants;
    PairReport {
        pair_index: task.pair_index,
        games: [game(a, b, o0, task.pair_index), game(b, a, o1, task.pair_index)],
    }
}

fn play_all(lease: &Lease) -> Vec<PairReport> {
    lease.tasks.iter().map(play).collect()
}

fn indices(lease: &Lease) -> Vec<u64> {
    lease.tasks.iter().map(|t| t.pair_index).collect()
}

fn total_pairs(stats: &[PairingStats]) -> u64 {
    stats.iter().map(scheduler::pairs_recorded).sum()
}

// ---------------------------------------------------------------------------------------------
// Primitives

/// Runs `f` in one write transaction of `b`, which must succeed.
fn tx<B: Backend, T: Send + 'static>(b: &B, f: impl Fn(&mut dyn Tx) -> coordinator::Result<T> + Send + 'static) -> T {
    b.write("a conformance case", f).expect("the primitives succeed")
}

/// A run of `pairs` pairs between two fresh variants, created through the primitives.
fn primitive_run<B: Backend>(b: &B, kind: RunKind, bench_signature: Option<u64>) -> RunId {
    primitive_run_of(b, kind, bench_signature, 1)
}

/// [`primitive_run`] with this many pairings.
fn primitive_run_of<B: Backend>(b: &B, kind: RunKind, bench_signature: Option<u64>, pairings: usize) -> RunId {
    tx(b, move |tx| {
        let mut ids = Vec::new();
        for i in 0..2 {
            let spec = params(&format!("v{i}"), &format!("x = {i}\n"));
            let variant = proto::domain::Variant { id: coordinator::spec::variant_id(&spec), spec };
            tx.insert_variant(&variant)?;
            ids.push(variant.id);
        }
        let lines: Vec<String> = (0..3).map(|i| format!("{START} moves h2e2 opening{i}")).collect();
        let suite = tx.insert_suite("suite", &lines)?;
        let spec = RunSpec { bench_signature, ..run_spec(kind.clone(), ids, suite, SLOW) };
        tx.insert_run(&spec, pairings, 77)
    })
}

fn run_and_pair_rows<B: Backend>(b: &B) {
    let run = primitive_run(b, RunKind::Games { pairs: 5 }, None);
    let pinned = primitive_run(b, RunKind::Sprt(SprtSettings::default()), Some(9));
    assert_eq!((run, pinned), (RunId::new(1), RunId::new(2)));
    let (read, state, stats) = tx(b, move |tx| Ok((tx.run(run)?, tx.run_state(run)?, tx.run_stats(run)?)));
    assert_eq!((read.state, read.created_unix_ms, state), (RunState::Active, 77, RunState::Active));
    assert_eq!(stats, vec![PairingStats::default()]);
    assert_eq!(tx(b, |tx| tx.run_ids()), vec![RunId::new(1), RunId::new(2)]);
    let suite = read.spec.openings;
    assert_eq!(
        tx(b, move |tx| Ok((tx.suite_size(suite)?, tx.opening(suite, 2)?))),
        (3, format!("{START} moves h2e2 opening2"))
    );
    assert_eq!(*tx(b, move |tx| tx.run_spec(run)), read.spec);
    let first = read.spec.variants[0].clone();
    assert!(tx(b, move |tx| tx.variant_exists(&first)));
    assert!(!tx(b, |tx| tx.variant_exists(&VariantId::from("feed"))));

    assert_eq!(tx(b, move |tx| tx.allocation(run)), Allocation { next_pair_index: 0, allocated: vec![0] });
    tx(b, move |tx| {
        tx.insert_pair(run, NewPair { pair_index: 0, pairing: 0 }, 2)?;
        tx.insert_pair(run, NewPair { pair_index: 1, pairing: 0 }, 0)?;
        tx.insert_pair(run, NewPair { pair_index: 2, pairing: 0 }, 1)
    });
    assert_eq!(
        tx(b, move |tx| tx.allocation(run)),
        Allocation { next_pair_index: 0, allocated: vec![0] },
        "storing a pair counts nothing: the workflow does"
    );
    tx(b, move |tx| {
        tx.add_allocated(run, 0, 3)?;
        tx.set_next_pair_index(run, 3)
    });
    assert_eq!(tx(b, move |tx| tx.allocation(run)), Allocation { next_pair_index: 3, allocated: vec![3] });
    assert!(b.write("a missing pairing", move |tx| tx.add_allocated(run, 7, 1)).is_err(), "no pairing 7");
    assert_eq!(
        tx(b, move |tx| Ok((tx.pair(run, 0)?, tx.pair(run, 3)?, tx.pair(pinned, 0)?))),
        (Some(PairRow { pairing: 0, opening_index: 2, status: PairStatus::Leased }), None, None)
    );
    tx(b, move |tx| {
        tx.set_pair_status(run, 2, PairStatus::Pooled)?;
        tx.set_pair_status(run, 0, PairStatus::Pooled)?;
        tx.set_pair_status(run, 1, PairStatus::Done)
    });
    assert_eq!(tx(b, move |tx| tx.pooled_pairs(run, 10)), vec![0, 2], "lowest index first");
    assert_eq!(tx(b, move |tx| tx.pooled_pairs(run, 1)), vec![0]);
    let loads =
        tx(b, |tx| Ok((tx.active_run_loads(Some(1))?, tx.active_run_loads(Some(9))?, tx.active_run_loads(None)?)));
    let games = RunLoad {
        run,
        requeued: 2,
        in_flight: 0,
        allocated: vec![3],
        next_pair_index: 3,
        plan: PairPlan::PerPairing(5),
        engines: Vec::new(),
    };
    assert_eq!(games.unallocated(), Some(2));
    let sprt = RunLoad {
        run: pinned,
        requeued: 0,
        in_flight: 0,
        allocated: vec![0],
        next_pair_index: 0,
        plan: PairPlan::Unbounded,
        engines: Vec::new(),
    };
    assert_eq!(
        loads,
        (vec![games.clone()], vec![games.clone(), sprt.clone()], vec![games, sprt]),
        "a pinned run only for its bench signature, and every active run without one"
    );
    tx(b, move |tx| tx.set_pair_status(run, 0, PairStatus::Leased));
    assert_eq!(tx(b, |tx| tx.active_run_loads(Some(1)))[0].in_flight, 1);
    // A run of three pairings: its load lists each one's allocated pairs, in pairing order.
    let robin = primitive_run_of(b, RunKind::RoundRobin { pairs_per_pairing: 4 }, Some(1), 3);
    tx(b, move |tx| {
        tx.add_allocated(robin, 1, 12)?;
        tx.add_allocated(robin, 2, 3)?;
        tx.set_next_pair_index(robin, 15)
    });
    let load = tx(b, |tx| tx.active_run_loads(Some(1))).into_iter().find(|l| l.run == robin).expect("robin's load");
    assert_eq!((load.allocated, load.next_pair_index), (vec![0, 12, 3], 15));
    tx(b, move |tx| tx.set_run_state(robin, &RunState::Stopped));

    let delta = PairingStats { pentanomial: [0, 1, 2, 0, 0], wins: 1, draws: 4, losses: 1 };
    tx(b, move |tx| {
        tx.add_stats(run, 0, &delta)?;
        tx.add_stats(run, 0, &delta)
    });
    let twice = PairingStats { pentanomial: [0, 2, 4, 0, 0], wins: 2, draws: 8, losses: 2 };
    assert_eq!(tx(b, move |tx| tx.run_stats(run)), vec![twice]);
    tx(b, move |tx| tx.set_run_state(run, &RunState::Stopped));
    assert_eq!(tx(b, move |tx| tx.run(run)).state, RunState::Stopped);
    assert!(tx(b, |tx| tx.active_run_loads(Some(1))).is_empty(), "only active runs have a load");
    tx(b, move |tx| tx.set_exported_up_to(run, 12));
    assert_eq!(tx(b, move |tx| tx.exported_up_to(run)), 12);
}

fn lease_rows<B: Backend>(b: &B) {
    let run = primitive_run(b, RunKind::Games { pairs: 5 }, None);
    let worker = tx(b, |tx| tx.insert_worker(&info("w", 3), None, 1));
    let twice = TcScale::from_permille(2_000).expect("positive");
    let new = NewLease { run, worker, created_ms: 100, deadline_ms: 500, duration_ms: 400, tc_scale: twice };
    let (lease, other) = tx(b, move |tx| {
        for i in 0..3 {
            tx.insert_pair(run, NewPair { pair_index: i, pairing: 0 }, 0)?;
        }
        let lease = tx.insert_lease(&new)?;
        let other = tx.insert_lease(&NewLease { deadline_ms: 900, tc_scale: TcScale::UNSCALED, ..new })?;
        tx.insert_lease_pair(lease, run, 2)?;
        tx.insert_lease_pair(lease, run, 0)?;
        tx.insert_lease_pair(other, run, 1)?;
        Ok((lease, other))
    });
    assert_eq!((lease, other), (LeaseId::new(1), LeaseId::new(2)));
    let active =
        LeaseRow { run, worker, state: LeaseState::Active, deadline_ms: 500, duration_ms: 400, tc_scale: twice };
    assert_eq!(tx(b, move |tx| tx.lease(lease)), active, "the scale it was granted with is kept");
    assert_eq!(tx(b, move |tx| tx.lease(other)).tc_scale, TcScale::UNSCALED);
    let leased = PairRow { pairing: 0, opening_index: 0, status: PairStatus::Leased };
    let pending = |index| LeasePair { index, status: LeasePairStatus::Pending, pair: leased };
    assert_eq!(
        tx(b, move |tx| tx.lease_pairs(lease)),
        vec![pending(0), pending(2)],
        "the lease's own pairs (not the other lease's pair 1), lowest index first"
    );
    assert_eq!(tx(b, move |tx| Ok((tx.pair_holder(run, 1)?, tx.pair_holder(run, 2)?))), (Some(other), Some(lease)));

    tx(b, move |tx| tx.set_lease_pair_status(lease, 2, LeasePairStatus::Finished));
    assert_eq!(tx(b, move |tx| tx.pair_holder(run, 2)), None, "a finished pair has no holder");
    let finished = LeasePair { index: 2, status: LeasePairStatus::Finished, pair: leased };
    assert_eq!(tx(b, move |tx| tx.lease_pairs(lease)), vec![pending(0), finished]);

    assert_eq!(tx(b, |tx| tx.overdue_leases(500)), Vec::<LeaseId>::new(), "a lease lasts up to its deadline");
    assert_eq!(tx(b, |tx| tx.overdue_leases(501)), vec![lease]);
    let bench = tx(b, move |tx| tx.touch_worker(worker, 1));
    assert_eq!(tx(b, move |tx| tx.touch_worker_overdue(worker, 500)), (bench, false), "none overdue at 500");
    assert_eq!(tx(b, move |tx| tx.touch_worker_overdue(worker, 501)), (bench, true), "lease 1 overdue at 501");
    let mut both = tx(b, |tx| tx.overdue_leases(901));
    both.sort_unstable();
    assert_eq!(both, vec![lease, other]);
    tx(b, move |tx| {
        tx.set_lease_deadline(lease, 2_000)?;
        tx.set_lease_state(other, LeaseState::Expired)
    });
    assert_eq!(tx(b, |tx| tx.overdue_leases(1_000)), Vec::<LeaseId>::new(), "only active leases expire");
    assert_eq!(tx(b, move |tx| tx.lease(other)).state, LeaseState::Expired);
    assert_eq!(tx(b, move |tx| tx.lease(lease)).deadline_ms, 2_000);
    assert_eq!(tx(b, move |tx| tx.lease(lease)).tc_scale, twice, "state and deadline changes keep the scale");

    // A lease, whether a submission of it was recorded, and its pairs, read together.
    let row = tx(b, move |tx| tx.lease(lease));
    let pairs = tx(b, move |tx| tx.lease_pairs(lease));
    assert_eq!(pairs.len(), 2);
    // The run's one pairing has recorded 3 pairs.
    let three = PairingStats { pentanomial: [0, 1, 0, 2, 0], ..PairingStats::default() };
    tx(b, move |tx| tx.add_stats(run, 0, &three));
    let context = move |seen| SubmissionContext { lease: row, seen, pairs: pairs.clone(), fewest_recorded: Some(3) };
    assert_eq!(tx(b, move |tx| tx.submission_context(lease, 7)), context(false));
    tx(b, move |tx| tx.insert_submission(lease, 7, 1, 600));
    assert_eq!(tx(b, move |tx| tx.submission_context(lease, 7)), context(true));
    assert!(!tx(b, move |tx| tx.submission_context(lease, 8)).seen, "another sequence number");
    let (bare, context) = tx(b, move |tx| {
        let bare = tx.insert_lease(&NewLease { deadline_ms: 10_000, ..new })?;
        Ok((tx.lease(bare)?, tx.submission_context(bare, 1)?))
    });
    let given_none = SubmissionContext { lease: bare, seen: false, pairs: Vec::new(), fewest_recorded: Some(3) };
    assert_eq!(context, given_none, "a lease given no pairs");
    let missing = b.read("a missing lease", |tx| tx.submission_context(LeaseId::new(99), 7));
    assert!(matches!(missing, Err(Error::LeaseNotFound(id)) if id == LeaseId::new(99)), "{missing:?}");

    // A pair reported by a lease that lost it (its entry returned) while another holds it: both
    // entries finish, and the pair has no holder left.
    tx(b, move |tx| {
        tx.insert_pair(run, NewPair { pair_index: 3, pairing: 0 }, 0)?;
        tx.insert_lease_pair(lease, run, 3)?;
        tx.set_lease_pair_status(lease, 3, LeasePairStatus::Returned)?;
        tx.insert_lease_pair(other, run, 3)
    });
    assert_eq!(tx(b, move |tx| tx.pair_holder(run, 3)), Some(other));
    tx(b, move |tx| tx.finish_leased_pair(run, 3, lease));
    let status_of = |rows: Vec<LeasePair>, index| rows.into_iter().find(|p| p.index == index).map(|p| p.status);
    assert_eq!(status_of(tx(b, move |tx| tx.lease_pairs(other)), 3), Some(LeasePairStatus::Finished));
    assert_eq!(status_of(tx(b, move |tx| tx.lease_pairs(lease)), 3), Some(LeasePairStatus::Finished));
    assert_eq!(tx(b, move |tx| tx.pair_holder(run, 3)), None);
    assert_eq!(status_of(tx(b, move |tx| tx.lease_pairs(other)), 1), Some(LeasePairStatus::Pending), "untouched");
    // The holder itself reporting: its one entry finishes.
    tx(b, move |tx| tx.finish_leased_pair(run, 0, lease));
    assert_eq!(status_of(tx(b, move |tx| tx.lease_pairs(lease)), 0), Some(LeasePairStatus::Finished));
    assert!(
        b.write("no entry at all", move |tx| tx.finish_leased_pair(run, 4, lease)).is_err(),
        "pair 4 was never leased"
    );
}

fn info(name: &str, signature: u64) -> WorkerInfo {
    WorkerInfo {
        name: name.into(),
        host: "host".into(),
        cores: 1,
        engine_version: "1.0".into(),
        bench_signature: signature,
        worker_key: String::new(),
        rules_version: engine::RULES_VERSION,
        engines: Vec::new(),
        bench_nps: 0,
        simd: None,
        nnue_bench_nps: 0,
    }
}

fn submission_game_and_worker_rows<B: Backend>(b: &B) {
    let run = primitive_run(b, RunKind::Games { pairs: 5 }, None);
    let keyed = tx(b, |tx| tx.insert_worker(&WorkerInfo { bench_nps: 800_000, ..info("first", 3) }, Some("digest"), 1));
    let faster = WorkerInfo {
        bench_nps: 1_600_000,
        simd: Some(SimdLevel::Avx2),
        nnue_bench_nps: 1_100_000,
        ..info("renamed", 4)
    };
    let again = tx(b, move |tx| tx.update_worker_by_key(&faster, "digest", 2));
    assert_eq!(tx(b, |tx| tx.update_worker_by_key(&info("x", 1), "unknown", 2)), None, "no worker has that key");
    let anonymous = tx(b, |tx| tx.insert_worker(&info("anon", 5), None, 3));
    assert_eq!((keyed, again), (WorkerId::new(1), Some(WorkerId::new(1))), "a known key digest is the same worker");
    assert_eq!(anonymous, WorkerId::new(2));
    assert_eq!(
        tx(b, move |tx| tx.touch_worker(keyed, 9)),
        WorkerBench { signature: 4, nps: 1_600_000, nnue_nps: 1_100_000 },
        "its description was replaced, speeds and all"
    );
    let unmeasured = WorkerBench { signature: 5, nps: 0, nnue_nps: 0 };
    assert_eq!(tx(b, move |tx| tx.touch_worker(anonymous, 9)), unmeasured, "not measured");
    let listed: Vec<(WorkerId, u64, Option<SimdLevel>, u64)> =
        tx(b, |tx| tx.workers()).iter().map(|w| (w.id, w.bench_nps, w.simd, w.nnue_bench_nps)).collect();
    assert_eq!(listed, [(keyed, 1_600_000, Some(SimdLevel::Avx2), 1_100_000), (anonymous, 0, None, 0)]);

    let lease = tx(b, move |tx| {
        tx.insert_pair(run, NewPair { pair_index: 0, pairing: 0 }, 1)?;
        tx.insert_lease(&short_lease(run, keyed))
    });
    assert!(!tx(b, move |tx| tx.submission_seen(lease, u64::MAX)));
    tx(b, move |tx| tx.insert_submission(lease, u64::MAX, 1, 5));
    assert!(tx(b, move |tx| tx.submission_seen(lease, u64::MAX)), "sequence numbers use all 64 bits");
    assert!(!tx(b, move |tx| tx.submission_seen(lease, 0)));

    let (a, b_): (VariantId, VariantId) = ("a".into(), "b".into());
    let played = [game(&a, &b_, GameOutcome::RedWins, 1), game(&b_, &a, GameOutcome::Draw, 2)];
    let reports = played.clone();
    tx(b, move |tx| {
        for (game_in_pair, report) in (0u8..).zip(reports.iter()) {
            let worker = if game_in_pair == 0 { keyed } else { anonymous };
            tx.insert_game(NewGame { run, pair_index: 0, game_in_pair, opening_index: 1, pairing: 0, worker, report })?;
        }
        Ok(())
    });
    let stored = tx(b, move |tx| tx.games_since(run, 0, 10));
    assert_eq!(stored.iter().map(|g| g.game_id).collect::<Vec<_>>(), [1, 2], "ids in insertion order");
    assert_eq!((stored[0].game_id, stored[0].worker.as_str(), stored[1].worker.as_str()), (1, "renamed", "anon"));
    assert_eq!((stored[1].pair_index, stored[1].game_in_pair, stored[1].opening_index), (0, 1, 1));
    let kept = GameReport { move_stats: Vec::new(), forfeit: None, ..played[0].clone() };
    assert_eq!(stored[0].report, kept, "per-move statistics are not kept");
    assert_eq!(tx(b, move |tx| tx.games_since(run, 1, 10)), stored[1..]);
    assert_eq!(tx(b, move |tx| tx.games_since(run, 0, 1)), stored[..1]);
}

fn engine(name: &str, sha: char) -> proto::domain::EngineInfo {
    proto::domain::EngineInfo { name: name.into(), id_name: format!("{name} 1.0"), sha256: sha.to_string().repeat(64) }
}

fn engine_rows<B: Backend>(b: &B) {
    let run = primitive_run(b, RunKind::Games { pairs: 5 }, None);
    let keyed = tx(b, |tx| tx.insert_worker(&info("keyed", 3), Some("digest"), 10));
    let bare = tx(b, |tx| tx.insert_worker(&info("bare", 3), None, 10));
    assert!(tx(b, move |tx| tx.worker_engines(keyed)).is_empty(), "a new worker advertised nothing");
    tx(b, move |tx| tx.store_worker_engines(keyed, &[engine("pika", 'p'), engine("fsf", 'a')]));
    assert_eq!(tx(b, move |tx| tx.worker_engines(keyed)), [engine("fsf", 'a'), engine("pika", 'p')], "by name");
    tx(b, |tx| tx.update_worker_by_key(&info("renamed", 3), "digest", 20));
    assert_eq!(tx(b, move |tx| tx.worker_engines(keyed)).len(), 2, "registering again keeps them");
    tx(b, move |tx| tx.store_worker_engines(keyed, &[engine("fsf", 'b')]));
    assert_eq!(tx(b, move |tx| tx.worker_engines(keyed)), [engine("fsf", 'b')], "replaced, not added to");
    assert_eq!(
        tx(b, |tx| tx.connected_engines(20)),
        vec![vec![engine("fsf", 'b')]],
        "workers without engines left out"
    );
    assert!(tx(b, |tx| tx.connected_engines(21)).is_empty(), "seen before `since_ms`");
    tx(b, move |tx| tx.store_worker_engines(bare, &[engine("fsf", 'c')]));
    assert_eq!(tx(b, |tx| tx.connected_engines(0)), vec![vec![engine("fsf", 'b')], vec![engine("fsf", 'c')]]);

    let need = |name: &str, pin: Option<char>| scheduler::EngineNeed {
        name: name.into(),
        pinned_sha256: pin.map(|c| c.to_string().repeat(64)),
    };
    assert!(tx(b, move |tx| tx.run_engine_needs(run)).is_empty());
    tx(b, move |tx| tx.insert_run_engines(run, &[need("pika", None), need("fsf", None)]));
    assert_eq!(tx(b, move |tx| tx.run_engine_needs(run)), [need("fsf", None), need("pika", None)], "by name");
    tx(b, move |tx| {
        tx.pin_engine(run, &engine("fsf", 'b'))?;
        tx.pin_engine(run, &engine("fsf", 'c'))?;
        tx.pin_engine(run, &engine("other", 'd'))
    });
    let pinned = [need("fsf", Some('b')), need("pika", None)];
    assert_eq!(tx(b, move |tx| tx.run_engine_needs(run)), pinned, "the first pin stays; unknown names change nothing");
    assert_eq!(tx(b, |tx| tx.active_run_loads(Some(3)))[0].engines, pinned, "a run's load names its engines");
    let failed = b.write("a failing case", move |tx| {
        tx.pin_engine(run, &engine("pika", 'e'))?;
        tx.store_worker_engines(keyed, &[])?;
        Err::<(), _>(Error::RunNotFound(run))
    });
    assert!(failed.is_err());
    assert_eq!(tx(b, move |tx| tx.run_engine_needs(run)), pinned, "a rolled-back pin");
    assert_eq!(tx(b, move |tx| tx.worker_engines(keyed)), [engine("fsf", 'b')], "rolled-back engines");
    let unknown = tx(b, |tx| Ok((tx.worker_engines(WorkerId::new(42))?, tx.run_engine_needs(RunId::new(42))?)));
    assert_eq!(unknown, (vec![], vec![]), "no rows, no engines");
}

/// A lease granted at 0 for 10 ms of the run's own time control.
fn short_lease(run: RunId, worker: WorkerId) -> NewLease {
    NewLease { run, worker, created_ms: 0, deadline_ms: 10, duration_ms: 10, tc_scale: TcScale::UNSCALED }
}

fn a_failed_transaction_changes_nothing<B: Backend>(b: &B) {
    let run = primitive_run(b, RunKind::Games { pairs: 5 }, None);
    let worker = tx(b, |tx| tx.insert_worker(&info("w", 3), None, 1));
    let failed = b.write("a failing case", move |tx| {
        tx.insert_pair(run, NewPair { pair_index: 0, pairing: 0 }, 1)?;
        let lease = tx.insert_lease(&short_lease(run, worker))?;
        tx.insert_lease_pair(lease, run, 0)?;
        tx.add_stats(run, 0, &PairingStats { wins: 2, ..PairingStats::default() })?;
        tx.set_run_state(run, &RunState::Stopped)?;
        tx.insert_submission(lease, 1, 1, 0)?;
        tx.touch_worker(worker, 99)?;
        for (game_in_pair, report) in (0u8..).zip(two_games()) {
            tx.insert_game(NewGame {
                run,
                pair_index: 0,
                game_in_pair,
                opening_index: 1,
                pairing: 0,
                worker,
                report: &report,
            })?;
        }
        assert_eq!(tx.pair_results(run)?.len(), 1, "counted inside the transaction");
        Err::<(), _>(Error::LeaseClosed(lease))
    });
    assert!(matches!(failed, Err(Error::LeaseClosed(l)) if l.get() == 1), "the closure's own error: {failed:?}");
    let after = tx(b, move |tx| {
        Ok((
            tx.pair(run, 0)?,
            tx.allocation(run)?,
            tx.run(run)?,
            tx.overdue_leases(u64::MAX)?,
            tx.lease(LeaseId::new(1)).is_err(),
        ))
    });
    assert_eq!(after.0, None);
    assert_eq!(after.1, Allocation { next_pair_index: 0, allocated: vec![0] });
    assert_eq!((after.2.state, after.2.stats), (RunState::Active, vec![PairingStats::default()]));
    assert!(after.3.is_empty() && after.4, "no lease was left behind");
    // The rolled-back submission is not seen, even by a new lease that gets the rolled-back
    // lease's id again (SQLite gives such ids out again; PostgreSQL's sequences do not).
    let lease = tx(b, move |tx| tx.insert_lease(&short_lease(run, worker)));
    assert!(lease.get() == 1 || lease.get() == 2, "{lease:?}");
    assert!(!tx(b, |tx| tx.submission_seen(LeaseId::new(1), 1)));
    // Nor were its games counted in the run's tallies.
    let tallies = tx(b, move |tx| Ok((tx.pair_results(run)?, tx.pair_tallies(run)?, tx.game_ends(run)?)));
    assert_eq!(tallies, (vec![], vec![], vec![]));
    assert!(tx(b, |tx| tx.accepted_pairs_since(0)).is_empty());

    // Committed, the same games are counted once.
    tx(b, move |tx| {
        tx.insert_pair(run, NewPair { pair_index: 0, pairing: 0 }, 1)?;
        for (game_in_pair, report) in (0u8..).zip(two_games()) {
            tx.insert_game(NewGame {
                run,
                pair_index: 0,
                game_in_pair,
                opening_index: 1,
                pairing: 0,
                worker,
                report: &report,
            })?;
        }
        Ok(())
    });
    let (results, tallies, ends) =
        tx(b, move |tx| Ok((tx.pair_results(run)?, tx.pair_tallies(run)?, tx.game_ends(run)?)));
    assert_eq!(results, [PairResult { first_game_id: 1, pairing: 0, worker, first_half_points: 3 }]);
    assert_eq!(tallies, [PairTally { worker, pairing: 0, first_half_points: 3, pairs: 1 }]);
    assert_eq!(ends, [GameEnds { reason: Termination::Rules(Reason::Checkmate), plies: 3, games: 2 }]);
}

/// Games stored in one transaction, each with its own sampled positions (none, a few, and more
/// than the largest statement takes: every statement size), keep exactly their own positions:
/// a position names its game by the id the game was just given, which nothing waited for.
fn games_keep_their_own_positions<B: Backend>(b: &B) {
    let run = primitive_run(b, RunKind::Games { pairs: 5 }, None);
    let worker = tx(b, |tx| tx.insert_worker(&info("w", 3), None, 1));
    let (a, b_): (VariantId, VariantId) = ("a".into(), "b".into());
    let with_positions = |n: usize, salt: u64| GameReport {
        positions: (0..n)
            .map(|i| PositionSample {
                ply: i as u32,
                fen: format!("{START} #{salt}.{i}"),
                red_to_move: i % 2 == 0,
                static_eval: i as i32 - 7,
                search_score: (i % 3 != 0).then_some(salt as i32),
                best_move: "h2e2".into(),
                in_check: i % 5 == 0,
                quiet: i % 7 != 0,
            })
            .collect(),
        ..game(&a, &b_, GameOutcome::Draw, salt)
    };
    let first: Vec<GameReport> = [(3, 1), (0, 2), (341, 3)].map(|(n, salt)| with_positions(n, salt)).into();
    let second = vec![with_positions(5, 4)];
    for (first_pair, reports) in [(0u64, first.clone()), (3, second.clone())] {
        tx(b, move |tx| {
            for (pair_index, report) in (first_pair..).zip(reports.iter()) {
                tx.insert_pair(run, NewPair { pair_index, pairing: 0 }, 1)?;
                let game = NewGame { run, pair_index, game_in_pair: 0, opening_index: 1, pairing: 0, worker, report };
                tx.insert_game(game)?;
            }
            Ok(())
        });
    }
    let stored = tx(b, move |tx| tx.games_since(run, 0, 10));
    let positions: Vec<(u64, Vec<PositionSample>)> =
        stored.into_iter().map(|g| (g.game_id, g.report.positions)).collect();
    let expected: Vec<(u64, Vec<PositionSample>)> =
        (1u64..).zip(first.into_iter().chain(second).map(|g| g.positions)).collect();
    assert_eq!(positions, expected);
}

/// Writes from many threads at once, which the SQLite and PostgreSQL writers commit together
/// (each call in a savepoint of its own): a call that fails, by its own error or by the
/// database's (a duplicate pair), leaves nothing behind, and every other call commits.
fn concurrent_calls_fail_alone<B: Backend>(b: &B) {
    let run = primitive_run(b, RunKind::Games { pairs: 64 }, None);
    let outcomes: Vec<(u64, coordinator::Result<u64>)> = std::thread::scope(|scope| {
        let calls: Vec<_> = (0..48u64)
            .map(|i| {
                scope.spawn(move || {
                    let out = b.write("a concurrent case", move |tx| {
                        tx.insert_pair(run, NewPair { pair_index: i, pairing: 0 }, 1)?;
                        tx.add_allocated(run, 0, 1)?;
                        match i % 3 {
                            0 => Err(Error::LeaseClosed(LeaseId::new(i + 1))),
                            1 => tx.insert_pair(run, NewPair { pair_index: i, pairing: 0 }, 2).map(|()| i),
                            _ => Ok(i),
                        }
                    });
                    (i, out)
                })
            })
            .collect();
        calls.into_iter().map(|c| c.join().expect("no panic")).collect()
    });
    for (i, out) in &outcomes {
        match i % 3 {
            0 => assert!(matches!(out, Err(Error::LeaseClosed(l)) if l.get() == i + 1), "call {i}: {out:?}"),
            1 => assert!(out.is_err(), "call {i} stored a pair twice: {out:?}"),
            _ => assert_eq!(out.as_ref().ok(), Some(i), "call {i}"),
        }
    }
    let (pairs, allocation) = tx(b, move |tx| {
        let mut present = Vec::new();
        for i in 0..48 {
            if tx.pair(run, i)?.is_some() {
                present.push(i);
            }
        }
        Ok((present, tx.allocation(run)?))
    });
    let committed: Vec<u64> = (0..48).filter(|i| i % 3 == 2).collect();
    assert_eq!(pairs, committed, "only the calls that succeeded left their pairs");
    assert_eq!(allocation.allocated, vec![committed.len() as u64], "and their allocation");
}

/// The SQL triggers that keep a run's pair results are a cache of the domain's scoring rule
/// (`pair_half_points`): every combination of two games' outcomes scores the same in each.
fn pairs_are_scored_as_the_domain_scores_them<B: Backend>(b: &B) {
    use GameOutcome::{BlackWins, Draw, RedWins};
    let run = primitive_run(b, RunKind::Games { pairs: 9 }, None);
    let worker = tx(b, |tx| tx.insert_worker(&info("w", 3), None, 1));
    let (a, v) = (VariantId::from("a"), VariantId::from("b"));
    let mut expected = Vec::new();
    for (index, (first, second)) in
        [RedWins, Draw, BlackWins].into_iter().flat_map(|f| [RedWins, Draw, BlackWins].map(|s| (f, s))).enumerate()
    {
        let index = index as u64;
        let games = [game(&a, &v, first, 2 * index), game(&v, &a, second, 2 * index + 1)];
        expected.push(proto::domain::pair_half_points([first, second]));
        tx(b, move |tx| {
            tx.insert_pair(run, NewPair { pair_index: index, pairing: 0 }, 0)?;
            for (game_in_pair, report) in (0u8..).zip(&games) {
                tx.insert_game(NewGame {
                    run,
                    pair_index: index,
                    game_in_pair,
                    opening_index: 0,
                    pairing: 0,
                    worker,
                    report,
                })?;
            }
            Ok(())
        });
    }
    let scored: Vec<u8> = tx(b, move |tx| tx.pair_results(run)).iter().map(|p| p.first_half_points).collect();
    assert_eq!(scored, expected);
    assert_eq!(expected, [2, 3, 4, 1, 2, 3, 0, 1, 2], "the rule itself");
}

/// A pair's two games: `a` wins as Red, then draws as Black (3 half points), 3 plies each.
fn two_games() -> [GameReport; 2] {
    let (a, b) = (VariantId::from("a"), VariantId::from("b"));
    [game(&a, &b, GameOutcome::RedWins, 1), game(&b, &a, GameOutcome::Draw, 2)]
}

fn missing_rows_are_named<B: Backend>(b: &B) {
    let run = primitive_run(b, RunKind::Games { pairs: 5 }, None);
    let err = |r: coordinator::Result<()>| r.expect_err("missing");
    let (no_run, no_lease, no_worker, no_suite) =
        (RunId::new(42), LeaseId::new(42), WorkerId::new(42), SuiteId::new(42));
    assert!(matches!(err(b.write("t", move |tx| tx.run(no_run).map(drop))), Error::RunNotFound(r) if r == no_run));
    assert!(matches!(err(b.write("t", move |tx| tx.run_spec(no_run).map(drop))), Error::RunNotFound(_)));
    assert!(matches!(err(b.write("t", move |tx| tx.set_run_state(no_run, &RunState::Stopped))), Error::RunNotFound(_)));
    assert!(matches!(err(b.write("t", move |tx| tx.allocation(no_run).map(drop))), Error::RunNotFound(_)));
    assert!(matches!(err(b.write("t", move |tx| tx.games_since(no_run, 0, 1).map(drop))), Error::RunNotFound(_)));
    assert!(
        matches!(err(b.write("t", move |tx| tx.lease(no_lease).map(drop))), Error::LeaseNotFound(l) if l == no_lease)
    );
    assert!(matches!(
        err(b.write("t", move |tx| tx.set_lease_state(no_lease, LeaseState::Closed))),
        Error::LeaseNotFound(_)
    ));
    assert!(matches!(
        err(b.write("t", move |tx| tx.touch_worker(no_worker, 0).map(drop))),
        Error::WorkerNotFound(w) if w == no_worker
    ));
    assert!(matches!(err(b.write("t", move |tx| tx.suite_size(no_suite).map(drop))), Error::SuiteNotFound(_)));
    assert!(matches!(
        err(b.write("t", |tx| tx.variant(&VariantId::from("feed")).map(drop))),
        Error::VariantNotFound(_)
    ));
    assert!(matches!(err(b.write("t", move |tx| tx.set_pair_status(run, 7, PairStatus::Done))), Error::Corrupt(_)));
    assert!(matches!(err(b.write("t", move |tx| tx.opening(SuiteId::new(1), 3).map(drop))), Error::Corrupt(_)));
    assert!(tx(b, |tx| tx.run_ids()) == vec![run], "failed calls changed nothing");
}

// ---------------------------------------------------------------------------------------------
// Cases

fn variants_are_stored_by_content_hash(s: &dyn Storage) {
    let spec = params("base", "a = 1\n");
    let first = s.add_variant(&spec).expect("add");
    let second = s.add_variant(&spec).expect("add again");
    assert_eq!(first.id, second.id);
    assert_eq!(first.id.as_str().len(), 64);
    assert_eq!(s.get_variant(&first.id).expect("get"), first);
    let other = s.add_variant(&params("base", "a = 2\n")).expect("add");
    assert_ne!(other.id, first.id);
    let external = VariantSpec {
        name: "pikafish".into(),
        kind: VariantKind::External {
            engine: "pikafish".into(),
            protocol: proto::domain::EngineProtocol::Uci,
            options: vec![("Hash".into(), "16".into())],
        },
    };
    let ext = s.add_variant(&external).expect("external");
    assert_eq!(s.get_variant(&ext.id).expect("get").spec, external);
    assert!(matches!(s.get_variant(&"feed".into()), Err(Error::VariantNotFound(id)) if id.as_str() == "feed"));
    assert!(matches!(s.add_variant(&params("", "a = 1")), Err(Error::InvalidSpec { .. })));
}

fn networks_are_stored_by_hash_and_variants_name_only_stored_ones(s: &dyn Storage) {
    let bytes = engine::nnue::Network::random(9, 16).to_bytes();
    let id = engine::nnue::NetworkId::of_file(&bytes);
    assert!(matches!(s.get_network(id), Err(Error::NetworkNotFound(missing)) if missing == id));
    let names = params("net", &format!("eval = \"nnue:{id}\"\n"));
    assert!(matches!(s.add_variant(&names), Err(Error::NetworkNotFound(missing)) if missing == id));
    s.add_network(id, &bytes, 1_000).expect("stored");
    s.add_network(id, &bytes, 2_000).expect("stored again: the same network");
    assert_eq!(s.get_network(id).expect("read back"), bytes);
    let variant = s.add_variant(&names).expect("names a stored network");
    assert_eq!(s.get_variant(&variant.id).expect("get").spec, names);
    let bad = params("net", "eval = \"nnue:beef\"\n");
    assert!(matches!(s.add_variant(&bad), Err(Error::InvalidSpec { .. })), "an eval key that does not read");
}

fn suites_round_trip(s: &dyn Storage) {
    let lines = vec![START.to_string(), "startpos moves h2e2".to_string()];
    let suite = s.add_openings("two", &lines).expect("add");
    assert_eq!(s.get_suite(suite.id).expect("get"), suite);
    assert_eq!(suite.openings, lines);
    assert!(matches!(s.add_openings("empty", &[]), Err(Error::InvalidSpec { .. })));
    assert!(matches!(s.get_suite(SuiteId::new(suite.id.get() + 100)), Err(Error::SuiteNotFound(_))));
}

fn run_creation_checks_spec_and_references(s: &dyn Storage) {
    let v = variants(s, 3);
    let suite = suite(s, 5);
    let now = 1_000;
    let sprt = RunKind::Sprt(SprtSettings::default());
    let missing = vec![v[0].clone(), "00".repeat(32).into()];
    assert!(matches!(s.create_run(&run_spec(sprt.clone(), missing, suite, SLOW), now), Err(Error::VariantNotFound(_))));
    assert!(matches!(
        s.create_run(&run_spec(sprt.clone(), v[..2].to_vec(), SuiteId::new(suite.get() + 7), SLOW), now),
        Err(Error::SuiteNotFound(_))
    ));
    let field = |r: coordinator::Result<proto::domain::Run>| match r {
        Err(Error::InvalidSpec { field, .. }) => field,
        other => panic!("expected an invalid spec, got {other:?}"),
    };
    assert_eq!(field(s.create_run(&run_spec(sprt.clone(), v.clone(), suite, SLOW), now)), "variants");
    assert_eq!(
        field(s.create_run(&run_spec(RunKind::Games { pairs: 0 }, v[..2].to_vec(), suite, SLOW), now)),
        "games.pairs"
    );
    assert_eq!(
        field(s.create_run(&run_spec(sprt.clone(), v[..2].to_vec(), suite, TimeControl::Nodes(0)), now)),
        "tc.nodes"
    );
    assert!(s.list_runs().expect("list").is_empty(), "failed creations leave nothing");

    let mut spec = run_spec(RunKind::RoundRobin { pairs_per_pairing: 4 }, v.clone(), suite, TimeControl::Depth(5));
    spec.bench_signature = Some(u64::MAX - 3);
    spec.sample_every = 7;
    let run = s.create_run(&spec, now).expect("round robin");
    assert_eq!(run.spec, spec);
    assert_eq!(run.state, RunState::Active);
    assert_eq!(run.stats, vec![PairingStats::default(); 3]);
    assert_eq!(run.created_unix_ms, now);
    assert_eq!(s.get_run(run.id).expect("get"), run);
    let sprt_run = s.create_run(&run_spec(sprt, v[..2].to_vec(), suite, SLOW), now + 1).expect("sprt");
    assert_eq!(s.list_runs().expect("list"), vec![run, sprt_run]);
    assert!(matches!(s.get_run(RunId::new(999)), Err(Error::RunNotFound(r)) if r == RunId::new(999)));
    assert!(matches!(s.get_run(RunId::new(u64::MAX)), Err(Error::RunNotFound(r)) if r == RunId::new(u64::MAX)));
}

fn runs_pin_their_tables_and_leases_carry_them(s: &dyn Storage) {
    use proto::domain::TablePin;
    let pins = vec![TablePin { set: "KCK".into(), checksum: 1 }, TablePin { set: "KRKA".into(), checksum: u64::MAX }];
    let v = variants(s, 2);
    let suite = suite(s, 4);
    let spec = run_spec(RunKind::Games { pairs: 4 }, v, suite, SLOW);
    let pinned = s.create_run_pinned(&spec, &pins, 10).expect("run");
    assert_eq!(pinned.tablebases, pins);
    assert_eq!(s.get_run(pinned.id).expect("run").tablebases, pins);
    let plain = s.create_run(&spec, 10).expect("run");
    assert!(s.get_run(plain.id).expect("run").tablebases.is_empty());
    // Two pins of one set are refused, and nothing of that run is stored.
    let twice = [pins[0].clone(), TablePin { checksum: 2, ..pins[0].clone() }];
    assert!(s.create_run_pinned(&spec, &twice, 10).is_err());
    assert_eq!(s.list_runs().expect("runs").len(), 2);
    let w = worker(s, "w", 0, 20);
    let mut seen = 0;
    while let Some(lease) = s.lease_batch(w, 1, 20).expect("lease") {
        let expected: &[TablePin] = if lease.run == pinned.id { &pins } else { &[] };
        assert_eq!(lease.tablebases, expected, "lease {} of run {}", lease.id, lease.run);
        assert_eq!(s.lease_terms(lease.id).expect("terms").tablebases, expected);
        seen |= if lease.run == pinned.id { 1 } else { 2 };
        if seen == 3 {
            break;
        }
    }
    assert_eq!(seen, 3, "both runs were leased");
}

fn leasing_respects_bench_signatures(s: &dyn Storage) {
    let clock = ManualClock::new(10_000);
    let v = variants(s, 2);
    let suite = suite(s, 4);
    let mut spec = run_spec(RunKind::Sprt(SprtSettings::default()), v, suite, SLOW);
    spec.bench_signature = Some(0xDEAD_BEEF_0000_0001);
    let run = s.create_run(&spec, clock.now_ms()).expect("run");
    let stranger = worker(s, "stranger", 7, clock.now_ms());
    let matching = worker(s, "matching", 0xDEAD_BEEF_0000_0001, clock.now_ms());
    assert_eq!(s.lease_batch(stranger, 4, clock.now_ms()).expect("lease"), None);
    let lease = s.lease_batch(matching, 4, clock.now_ms()).expect("lease").expect("work");
    assert_eq!(lease.run, run.id);
    // A run without a signature serves everyone.
    let open = games_run(s, 3, clock.now_ms());
    let lease = s.lease_batch(stranger, 1, clock.now_ms()).expect("lease").expect("work");
    assert_eq!(lease.run, open);
    assert!(
        matches!(s.lease_batch(WorkerId::new(999), 1, clock.now_ms()), Err(Error::WorkerNotFound(w)) if w == WorkerId::new(999))
    );
}

fn engine_worker(s: &dyn Storage, name: &str, engines: &[(&str, char)], now: u64) -> WorkerId {
    let info = WorkerInfo {
        name: name.into(),
        host: "host".into(),
        cores: 2,
        engine_version: "1.0".into(),
        bench_signature: 1,
        worker_key: format!("key-{name}"),
        rules_version: engine::RULES_VERSION,
        engines: engines
            .iter()
            .map(|&(engine, sha)| proto::domain::EngineInfo {
                name: engine.into(),
                id_name: format!("{engine} 1.0"),
                sha256: sha.to_string().repeat(64),
            })
            .collect(),
        bench_nps: 0,
        simd: None,
        nnue_bench_nps: 0,
    };
    s.register_worker(&info, now).expect("worker")
}

/// Runs that name an external engine go only to workers that advertised it, with the binary
/// the run pinned at its first lease; in-process runs go to everyone.
fn leases_go_only_to_workers_with_the_runs_engines(s: &dyn Storage) {
    let now = 10_000;
    let fsf = s
        .add_variant(&VariantSpec {
            name: "fairy".into(),
            kind: VariantKind::External {
                engine: "fsf".into(),
                protocol: proto::domain::EngineProtocol::Ucci,
                options: vec![],
            },
        })
        .expect("external");
    let base = s.add_variant(&params("base", "")).expect("params");
    let suite = suite(s, 4);
    let run =
        s.create_run(&run_spec(RunKind::Games { pairs: 4 }, vec![fsf.id, base.id], suite, SLOW), now).expect("run");
    assert_eq!(
        s.run_engines(run.id).expect("engines"),
        [scheduler::EngineNeed { name: "fsf".into(), pinned_sha256: None }]
    );
    let plain = engine_worker(s, "plain", &[], now);
    let wrong = engine_worker(s, "wrong", &[("pikafish", 'a')], now);
    assert_eq!(s.lease_batch(plain, 4, now).expect("lease"), None, "no engines");
    assert_eq!(s.lease_batch(wrong, 4, now).expect("lease"), None, "other engines");
    assert_eq!(s.connected_engines(0).expect("connected").len(), 1, "one worker has engines");
    let with = engine_worker(s, "with", &[("fsf", 'a'), ("pikafish", 'b')], now);
    let lease = s.lease_batch(with, 1, now).expect("lease").expect("the fsf run");
    assert_eq!(lease.run, run.id);
    let pinned = s.run_engines(run.id).expect("engines");
    assert_eq!(pinned[0].pinned_sha256.as_deref(), Some("a".repeat(64).as_str()), "pinned to the first binary");
    let other_binary = engine_worker(s, "other-binary", &[("fsf", 'c')], now);
    assert_eq!(s.lease_batch(other_binary, 4, now).expect("lease"), None, "the same name, another binary");
    let same_binary = engine_worker(s, "same-binary", &[("fsf", 'a')], now);
    assert_eq!(s.lease_batch(same_binary, 1, now).expect("lease").expect("work").run, run.id);
    // An in-process run still serves the engine-less worker.
    let open = games_run(s, 1, now);
    assert_eq!(s.lease_batch(plain, 1, now).expect("lease").expect("work").run, open);
    // Connected means seen lately.
    assert_eq!(s.connected_engines(now + 1).expect("connected").len(), 0);
}

fn a_worker_key_registers_the_same_worker_again(s: &dyn Storage) {
    let clock = ManualClock::new(5_000);
    let run = games_run(s, 4, clock.now_ms());
    let first = keyed_worker(s, "w", "key-one", 1, clock.now_ms());
    let lease = s.lease_batch(first, 4, clock.now_ms()).expect("lease").expect("work");
    let reports = play_all(&lease);
    s.record_results(first, lease.id, 0, &reports[..1], false, clock.now_ms()).expect("record");

    // Killed and started again on the same spool: same key, maybe a new name and engine.
    clock.advance(1_000);
    let again = keyed_worker(s, "w-restarted", "key-one", 2, clock.now_ms());
    assert_eq!(again, first, "the same key is the same worker");
    let other = keyed_worker(s, "other", "key-two", 1, clock.now_ms());
    assert_ne!(other, first);
    let (anon1, anon2) = (worker(s, "anon", 1, clock.now_ms()), worker(s, "anon", 1, clock.now_ms()));
    assert_ne!(anon1, anon2, "a worker without a key is new every time");
    assert!(![first, other].contains(&anon1) && ![first, other].contains(&anon2));

    // Its results spooled before the restart still belong to its lease ...
    let late = s.record_results(again, lease.id, 1, &reports[1..], true, clock.now_ms()).expect("owner accepted");
    assert_eq!((late.accepted, late.duplicate), (3, false));
    assert!(matches!(
        s.record_results(other, lease.id, 2, &reports, true, clock.now_ms()),
        Err(Error::LeaseNotOwned { worker, .. }) if worker == other
    ));
    let stats = s.get_run(run).expect("run").stats;
    assert_eq!(total_pairs(&stats), 4);
    // ... and its description is the new one: it registered with bench signature 2.
    let mut spec = run_spec(RunKind::Games { pairs: 1 }, variants(s, 2), suite(s, 2), SLOW);
    spec.bench_signature = Some(2);
    let pinned = s.create_run(&spec, clock.now_ms()).expect("run").id;
    assert_eq!(s.lease_batch(again, 1, clock.now_ms()).expect("lease").map(|l| l.run), Some(pinned));
    assert_eq!(s.lease_batch(other, 1, clock.now_ms()).expect("lease"), None);
}

fn leasing_respects_free_slots(s: &dyn Storage) {
    let clock = ManualClock::new(50_000);
    let v = variants(s, 2);
    let suite = suite(s, 10);
    s.create_run(&run_spec(RunKind::Sprt(SprtSettings::default()), v.clone(), suite, SLOW), 0).expect("run");
    let w = worker(s, "w", 1, clock.now_ms());
    assert_eq!(s.lease_batch(w, 0, clock.now_ms()).expect("lease"), None, "no free slot, no work");
    let lease = s.lease_batch(w, 3, clock.now_ms()).expect("lease").expect("work");
    assert_eq!(lease.tasks.len(), 3, "one slow pair per slot");
    assert_eq!(lease.deadline_unix_ms, clock.now_ms() + scheduler::LEASE_TIMEOUT_MS);
    assert_eq!(lease.tc, SLOW);
    let ids: Vec<&str> = lease.variants.iter().map(|x| x.id.as_str()).collect();
    assert_eq!(ids, vec![v[0].as_str(), v[1].as_str()]);
    let lease = s.lease_batch(w, 1_000, clock.now_ms()).expect("lease").expect("work");
    assert_eq!(lease.tasks.len(), scheduler::MAX_BATCH_PAIRS);
    // A fast time control fills a minute per slot.
    let fast =
        s.create_run(&run_spec(RunKind::Games { pairs: 1_000 }, v, suite, TimeControl::Nodes(5_000)), 0).expect("run");
    let w2 = worker(s, "w2", 1, clock.now_ms());
    s.set_run_state(RunId::new(1), RunState::Stopped).expect("stop the SPRT");
    let lease = s.lease_batch(w2, 1, clock.now_ms()).expect("lease").expect("work");
    assert_eq!(lease.run, fast.id);
    assert_eq!(lease.tasks.len(), scheduler::batch_pairs(TimeControl::Nodes(5_000), 1));
}

fn leases_never_overlap_and_openings_do_not_repeat(s: &dyn Storage) {
    let clock = ManualClock::new(0);
    let v = variants(s, 2);
    let suite_id = suite(s, 10);
    let suite = s.get_suite(suite_id).expect("suite");
    s.create_run(&run_spec(RunKind::Games { pairs: 25 }, v.clone(), suite_id, SLOW), 0).expect("run");
    let workers: Vec<WorkerId> = (0..3).map(|i| worker(s, &format!("w{i}"), 1, 0)).collect();
    let mut tasks = Vec::new();
    for round in 0..4 {
        for &w in &workers {
            if let Some(lease) = s.lease_batch(w, 1 + round, clock.now_ms()).expect("lease") {
                tasks.extend(lease.tasks);
            }
        }
    }
    tasks.sort_by_key(|t| t.pair_index);
    let indices: Vec<u64> = tasks.iter().map(|t| t.pair_index).collect();
    assert_eq!(indices, (0..25).collect::<Vec<_>>(), "every pair handed out exactly once");
    for task in &tasks {
        assert_eq!(task.variants, [v[0].clone(), v[1].clone()]);
        assert_eq!(task.opening, suite.openings[task.opening_index as usize]);
        assert_eq!(task.opening_index, scheduler::opening_for_pair(RunId::new(1), task.pair_index, 10));
    }
    for chunk in tasks.chunks(10) {
        let distinct: BTreeSet<u32> = chunk.iter().map(|t| t.opening_index).collect();
        assert_eq!(distinct.len(), chunk.len(), "no opening repeats before the suite is used up");
    }
    assert_eq!(s.lease_batch(workers[0], 8, clock.now_ms()).expect("lease"), None, "all pairs are out");
}

fn concurrent_leases_never_overlap(s: &dyn Storage) {
    let v = variants(s, 2);
    let suite = suite(s, 10);
    s.create_run(&run_spec(RunKind::Sprt(SprtSettings::default()), v, suite, SLOW), 0).expect("run");
    let workers: Vec<WorkerId> = (0..4).map(|i| worker(s, &format!("w{i}"), 1, 0)).collect();
    let all: Vec<u64> = std::thread::scope(|scope| {
        let handles: Vec<_> = workers
            .iter()
            .map(|&w| {
                scope.spawn(move || {
                    let mut mine = Vec::new();
                    for i in 0..10 {
                        let lease = s.lease_batch(w, 2, i).expect("lease").expect("work");
                        mine.extend(indices(&lease));
                        s.record_results(w, lease.id, 0, &play_all(&lease), true, i).expect("record");
                    }
                    mine
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("thread")).collect()
    });
    let distinct: BTreeSet<u64> = all.iter().copied().collect();
    assert_eq!(distinct.len(), all.len());
    assert_eq!(all.len(), 80);
    assert_eq!(total_pairs(&s.get_run(RunId::new(1)).expect("run").stats), 80);
}

fn expiry_returns_only_unfinished_pairs_to_another_worker(s: &dyn Storage) {
    let clock = ManualClock::new(1_000_000);
    let run = games_run(s, 6, clock.now_ms());
    let a = worker(s, "a", 1, clock.now_ms());
    let b = worker(s, "b", 1, clock.now_ms());
    let lease = s.lease_batch(a, 4, clock.now_ms()).expect("lease").expect("work");
    assert_eq!(indices(&lease), vec![0, 1, 2, 3]);
    let reports = play_all(&lease);
    let outcome = s.record_results(a, lease.id, 0, &reports[..2], false, clock.now_ms()).expect("record");
    assert_eq!(outcome.accepted, 2);

    // Before the deadline nothing expires.
    assert_eq!(s.expire_leases(clock.now_ms()).expect("expire"), 0);
    clock.set(lease.deadline_unix_ms + scheduler::LEASE_TIMEOUT_MS + 1);
    assert_eq!(s.expire_leases(clock.now_ms()).expect("expire"), 1);
    assert_eq!(s.expire_leases(clock.now_ms()).expect("expire again"), 0);
    assert!(matches!(s.heartbeat(a, lease.id, clock.now_ms()), Err(Error::LeaseClosed(id)) if id == lease.id));

    let again = s.lease_batch(b, 2, clock.now_ms()).expect("lease").expect("work");
    assert_eq!(indices(&again), vec![2, 3], "only the unfinished pairs, offered first");
    for (old, new) in lease.tasks[2..].iter().zip(&again.tasks) {
        assert_eq!(old, new, "a returned pair keeps its opening and players");
    }
    let rest = s.lease_batch(b, 8, clock.now_ms()).expect("lease").expect("work");
    assert_eq!(indices(&rest), vec![4, 5]);
    s.record_results(b, again.id, 0, &play_all(&again), false, clock.now_ms()).expect("record");
    s.record_results(b, rest.id, 0, &play_all(&rest), false, clock.now_ms()).expect("record");
    let run = s.get_run(run).expect("run");
    assert_eq!(total_pairs(&run.stats), 6);
    assert_eq!(run.state, RunState::Completed);
}

fn late_results_of_an_expired_lease_count_once(s: &dyn Storage) {
    let clock = ManualClock::new(0);
    let run = games_run(s, 2, 0);
    let a = worker(s, "a", 1, 0);
    let b = worker(s, "b", 1, 0);
    let lease = s.lease_batch(a, 2, 0).expect("lease").expect("work");
    clock.set(lease.deadline_unix_ms + 1);
    assert_eq!(s.expire_leases(clock.now_ms()).expect("expire"), 1);
    let again = s.lease_batch(b, 2, clock.now_ms()).expect("lease").expect("work");
    assert_eq!(indices(&again), vec![0, 1]);
    // The first worker was slow, not dead: its results arrive late and count.
    let late = s.record_results(a, lease.id, 0, &play_all(&lease)[..1], false, clock.now_ms()).expect("late");
    assert_eq!(late.accepted, 1);
    // The second worker's copy of that pair is acknowledged but not counted again.
    let second = s.record_results(b, again.id, 0, &play_all(&again), false, clock.now_ms()).expect("record");
    assert_eq!(second.accepted, 1);
    let run = s.get_run(run).expect("run");
    assert_eq!(total_pairs(&run.stats), 2);
    assert_eq!(run.state, RunState::Completed);
    let games = s.games_since(run.id, 0, 100).expect("games");
    assert_eq!(games.len(), 4);
    assert_eq!(games.iter().filter(|g| g.worker == "a").count(), 2);
}

fn resubmission_is_idempotent(s: &dyn Storage) {
    let run = games_run(s, 10, 0);
    let w = worker(s, "w", 1, 0);
    let lease = s.lease_batch(w, 4, 0).expect("lease").expect("work");
    let reports = play_all(&lease);
    let first = s.record_results(w, lease.id, 1, &reports[..2], false, 10).expect("record");
    assert_eq!((first.accepted, first.duplicate), (2, false));
    let stats = s.get_run(run).expect("run").stats;
    let games = s.games_since(run, 0, 100).expect("games");
    assert_eq!(games.len(), 4);

    // The same (lease, seq) again: acknowledged, nothing changes.
    let resent = s.record_results(w, lease.id, 1, &reports[..2], false, 20).expect("resend");
    assert_eq!((resent.accepted, resent.duplicate), (0, true));
    // The same pairs under a new sequence number (a retry after a lost reply): counted once.
    let retried = s.record_results(w, lease.id, 2, &reports[..3], false, 30).expect("retry");
    assert_eq!((retried.accepted, retried.duplicate), (1, false));
    // A pair repeated inside one submission counts once too.
    let doubled = vec![reports[3].clone(), reports[3].clone()];
    let once = s.record_results(w, lease.id, 3, &doubled, false, 40).expect("doubled");
    assert_eq!(once.accepted, 1);

    let after = s.get_run(run).expect("run").stats;
    assert_eq!(total_pairs(&stats), 2);
    assert_eq!(total_pairs(&after), 4);
    let games = s.games_since(run, 0, 100).expect("games");
    assert_eq!(games.len(), 8);
    let pairs: BTreeSet<(u64, u8)> = games.iter().map(|g| (g.pair_index, g.game_in_pair)).collect();
    assert_eq!(pairs.len(), 8, "each game stored once");
}

fn bad_submissions_change_nothing(s: &dyn Storage) {
    let run = games_run(s, 10, 0);
    let w = worker(s, "w", 1, 0);
    let other = worker(s, "other", 1, 0);
    let lease = s.lease_batch(w, 2, 0).expect("lease").expect("work");
    let mine = s.lease_batch(other, 2, 0).expect("lease").expect("work");
    let reports = play_all(&lease);

    // A pair of another lease in the batch rejects the whole batch.
    let mut mixed = reports.clone();
    mixed.push(play(&mine.tasks[0]));
    match s.record_results(w, lease.id, 1, &mixed, false, 0) {
        Err(Error::InvalidReport { lease: l, pair, .. }) => {
            assert_eq!((l, pair), (lease.id, mine.tasks[0].pair_index))
        }
        other => panic!("expected an invalid report, got {other:?}"),
    }
    // (What the games say is the referee's business, before storage: tests/it/referee.rs.)
    // Someone else's lease, or no lease at all.
    assert!(matches!(
        s.record_results(other, lease.id, 1, &play_all(&lease), false, 0),
        Err(Error::LeaseNotOwned { .. })
    ));
    assert!(
        matches!(s.record_results(w, LeaseId::new(999), 1, &[], false, 0), Err(Error::LeaseNotFound(l)) if l == LeaseId::new(999))
    );
    assert!(matches!(s.heartbeat(other, lease.id, 0), Err(Error::LeaseNotOwned { .. })));

    assert_eq!(total_pairs(&s.get_run(run).expect("run").stats), 0);
    assert!(s.games_since(run, 0, 10).expect("games").is_empty());
    // The rejected sequence number was not used up.
    let good = s.record_results(w, lease.id, 1, &play_all(&lease), false, 0).expect("record");
    assert_eq!((good.accepted, good.duplicate), (2, false));
}

fn stats_equal_the_sum_of_recorded_pairs(s: &dyn Storage) {
    let v = variants(s, 3);
    let suite = suite(s, 7);
    let spec = run_spec(RunKind::RoundRobin { pairs_per_pairing: 5 }, v.clone(), suite, SLOW);
    let run = s.create_run(&spec, 0).expect("run");
    let w = worker(s, "w", 1, 0);
    let mut expected = vec![PairingStats::default(); 3];
    let mut played = Vec::new();
    let mut seq = 0;
    while let Some(lease) = s.lease_batch(w, 4, seq).expect("lease") {
        // Pairings advance together.
        for task in &lease.tasks {
            let p = scheduler::pairings(&spec)[task.pairing as usize];
            assert_eq!(task.variants, [v[p.a].clone(), v[p.b].clone()]);
            let report = play(task);
            expected[task.pairing as usize].add_pair(report.outcomes());
            played.push((task.clone(), report));
        }
        s.record_results(w, lease.id, seq, &play_all(&lease), false, seq).expect("record");
        seq += 1;
    }
    let run = s.get_run(run.id).expect("run");
    assert_eq!(run.stats, expected);
    assert_eq!(total_pairs(&run.stats), 15);
    assert_eq!(run.state, RunState::Completed);
    for stats in &run.stats {
        assert_eq!(stats.wins + stats.draws + stats.losses, 2 * scheduler::pairs_recorded(stats));
    }
    let games = s.games_since(run.id, 0, 1_000).expect("games");
    assert_eq!(games.len(), 30);
    assert!(games.windows(2).all(|w| w[0].game_id < w[1].game_id), "ids increase");
    for (task, report) in &played {
        for (k, expected_game) in report.games.iter().enumerate() {
            let stored = games
                .iter()
                .find(|g| g.pair_index == task.pair_index && g.game_in_pair as usize == k)
                .expect("stored game");
            // Move stats are the referee's, checked before storage and not kept.
            let kept = GameReport { move_stats: Vec::new(), forfeit: None, ..expected_game.clone() };
            assert_eq!(stored.report, kept, "the report round-trips");
            assert_eq!(stored.opening_index, task.opening_index);
            assert_eq!(stored.worker, "w");
            assert_eq!(stored.run, run.id);
        }
    }
}

fn fixed_games_runs_complete(s: &dyn Storage) {
    let run = games_run(s, 5, 0);
    let w = worker(s, "w", 1, 0);
    let first = s.lease_batch(w, 3, 0).expect("lease").expect("work");
    let second = s.lease_batch(w, 3, 0).expect("lease").expect("work");
    assert_eq!((first.tasks.len(), second.tasks.len()), (3, 2));
    assert_eq!(s.lease_batch(w, 3, 0).expect("lease"), None, "every pair is out");
    s.record_results(w, first.id, 0, &play_all(&first), false, 1).expect("record");
    assert_eq!(s.get_run(run).expect("run").state, RunState::Active);
    s.record_results(w, second.id, 0, &play_all(&second), false, 1).expect("record");
    let done = s.get_run(run).expect("run");
    assert_eq!(done.state, RunState::Completed);
    assert_eq!(total_pairs(&done.stats), 5);
    assert_eq!(s.lease_batch(w, 3, 2).expect("lease"), None);
    // Both leases closed themselves when their pairs were all recorded.
    assert!(matches!(s.heartbeat(w, first.id, 2), Err(Error::LeaseClosed(_))));
    // Nothing left to expire.
    assert_eq!(s.expire_leases(u64::MAX).expect("expire"), 0);
}

fn final_batch_returns_unreported_pairs(s: &dyn Storage) {
    let run = games_run(s, 4, 0);
    let a = worker(s, "a", 1, 0);
    let b = worker(s, "b", 1, 0);
    let lease = s.lease_batch(a, 4, 0).expect("lease").expect("work");
    let reports = play_all(&lease);
    // The worker shuts down after one pair and says so.
    s.record_results(a, lease.id, 0, &reports[..1], true, 5).expect("record");
    assert!(matches!(s.heartbeat(a, lease.id, 6), Err(Error::LeaseClosed(_))));
    let again = s.lease_batch(b, 4, 6).expect("lease").expect("work");
    assert_eq!(indices(&again), vec![1, 2, 3]);
    s.record_results(b, again.id, 0, &play_all(&again), true, 7).expect("record");
    let run = s.get_run(run).expect("run");
    assert_eq!(run.state, RunState::Completed);
    assert_eq!(total_pairs(&run.stats), 4);
}

fn heartbeats_extend_deadlines(s: &dyn Storage) {
    let clock = ManualClock::new(1_000);
    games_run(s, 10, 0);
    let w = worker(s, "w", 1, 0);
    let lease = s.lease_batch(w, 2, clock.now_ms()).expect("lease").expect("work");
    let duration = lease.deadline_unix_ms - clock.now_ms();
    clock.set(lease.deadline_unix_ms - 1);
    let extended = s.heartbeat(w, lease.id, clock.now_ms()).expect("heartbeat");
    assert_eq!(extended, clock.now_ms() + duration);
    clock.set(lease.deadline_unix_ms + 1);
    assert_eq!(s.expire_leases(clock.now_ms()).expect("expire"), 0, "the heartbeat kept it alive");
    // A heartbeat never shortens a lease.
    assert_eq!(s.heartbeat(w, lease.id, 0).expect("heartbeat"), extended);
    // Submitting results is a sign of life too.
    clock.set(extended);
    s.record_results(w, lease.id, 0, &play_all(&lease)[..1], false, clock.now_ms()).expect("record");
    clock.set(extended + 1);
    assert_eq!(s.expire_leases(clock.now_ms()).expect("expire"), 0);
    clock.set(extended + duration + 1);
    assert_eq!(s.expire_leases(clock.now_ms()).expect("expire"), 1);
    assert!(matches!(s.heartbeat(w, LeaseId::new(999), 0), Err(Error::LeaseNotFound(l)) if l == LeaseId::new(999)));
}

fn run_states_gate_leasing(s: &dyn Storage) {
    let v = variants(s, 2);
    let suite = suite(s, 3);
    let sprt = s.create_run(&run_spec(RunKind::Sprt(SprtSettings::default()), v.clone(), suite, SLOW), 0).expect("run");
    let games = s.create_run(&run_spec(RunKind::Games { pairs: 3 }, v, suite, SLOW), 0).expect("run");
    let w = worker(s, "w", 1, 0);
    assert_eq!(s.set_run_state(sprt.id, RunState::Stopped).expect("stop").state, RunState::Stopped);
    assert_eq!(s.set_run_state(games.id, RunState::Stopped).expect("stop").state, RunState::Stopped);
    assert_eq!(s.lease_batch(w, 1, 0).expect("lease"), None, "stopped runs hand out nothing");
    s.set_run_state(sprt.id, RunState::Active).expect("resume");
    let lease = s.lease_batch(w, 1, 0).expect("lease").expect("work");
    assert_eq!(lease.run, sprt.id);
    // Only an SPRT gets a verdict, and a verdict is final.
    assert!(matches!(
        s.set_run_state(games.id, RunState::SprtDone { h1: true }),
        Err(Error::InvalidStateChange { .. })
    ));
    let done = s.set_run_state(sprt.id, RunState::SprtDone { h1: false }).expect("verdict");
    assert_eq!(done.state, RunState::SprtDone { h1: false });
    assert_eq!(s.get_run(sprt.id).expect("run").state, RunState::SprtDone { h1: false });
    assert!(matches!(s.set_run_state(sprt.id, RunState::Active), Err(Error::InvalidStateChange { .. })));
    assert!(matches!(s.set_run_state(sprt.id, RunState::Completed), Err(Error::InvalidStateChange { .. })));
    assert!(
        matches!(s.set_run_state(RunId::new(77), RunState::Stopped), Err(Error::RunNotFound(r)) if r == RunId::new(77))
    );
    // Results of games already under way are still recorded after the verdict.
    let late = s.record_results(w, lease.id, 0, &play_all(&lease), false, 1).expect("record");
    assert_eq!(late.accepted, 1);
}

fn runs_share_workers(s: &dyn Storage) {
    let v = variants(s, 2);
    let suite = suite(s, 3);
    let sprt = RunKind::Sprt(SprtSettings::default());
    let one = s.create_run(&run_spec(sprt.clone(), v.clone(), suite, SLOW), 0).expect("run");
    let two = s.create_run(&run_spec(sprt, v, suite, SLOW), 0).expect("run");
    let w = worker(s, "w", 1, 0);
    let runs: Vec<RunId> = (0..4).map(|_| s.lease_batch(w, 1, 0).expect("lease").expect("work").run).collect();
    assert_eq!(runs, vec![one.id, two.id, one.id, two.id], "the run with fewer pairs in flight goes first");
}

fn lease_terms_are_what_the_lease_was_given(s: &dyn Storage) {
    let v = variants(s, 2);
    let suite = suite(s, 10);
    let spec = RunSpec {
        sample_every: 6,
        adjudication: Adjudication { resign_score: 900, ..Adjudication::default() },
        ..run_spec(RunKind::Games { pairs: 8 }, v, suite, SLOW)
    };
    let run = s.create_run(&spec, 0).expect("run");
    let w = worker(s, "w", 1, 0);
    let mut lease = s.lease_batch(w, 3, 0).expect("lease").expect("work");
    let terms = s.lease_terms(lease.id).expect("terms");
    lease.tasks.sort_by_key(|t| t.pair_index);
    assert_eq!(terms, LeaseTerms::from(&lease), "every task with its opening line, and the run's rules");
    assert_eq!((terms.run, terms.tc, terms.adjudication, terms.sample_every), (run.id, SLOW, spec.adjudication, 6));
    assert!(terms.tasks.iter().all(|t| t.opening.starts_with(START)), "{:?}", terms.tasks);
    // Finished, closed or expired: a late or resent submission is refereed all the same.
    s.record_results(w, lease.id, 0, &play_all(&lease)[..1], true, 1).expect("record");
    assert_eq!(s.lease_terms(lease.id).expect("terms of a closed lease"), terms);
    let mut second = s.lease_batch(w, 2, 2).expect("lease").expect("work");
    second.tasks.sort_by_key(|t| t.pair_index);
    s.expire_leases(second.deadline_unix_ms + 1).expect("expire");
    assert_eq!(s.lease_terms(second.id).expect("terms of an expired lease").tasks, second.tasks);
    assert!(matches!(s.lease_terms(LeaseId::new(999)), Err(Error::LeaseNotFound(l)) if l == LeaseId::new(999)));
}

/// The speed the runs below are meant for (no reference for networks).
const REFERENCE: ReferenceNps = ReferenceNps::hce(NonZeroU64::new(1_000_000));
/// Both references: runs that play a network are meant for 400,000 nps with one.
const BOTH: ReferenceNps = ReferenceNps { hce: NonZeroU64::new(1_000_000), nnue: NonZeroU64::new(400_000) };

fn timed_worker(s: &dyn Storage, name: &str, bench_nps: u64) -> WorkerId {
    s.register_worker(&WorkerInfo { bench_nps, ..info(name, 1) }, 0).expect("worker")
}

/// A fresh active run (every earlier one stopped, so that it is the one leased) at `tc`.
fn only_run(s: &dyn Storage, tc: TimeControl) -> RunId {
    for run in s.list_runs().expect("runs") {
        if run.state == RunState::Active {
            s.set_run_state(run.id, RunState::Stopped).expect("stop");
        }
    }
    let v = variants(s, 2);
    let suite = suite(s, 10);
    s.create_run(&run_spec(RunKind::Games { pairs: 50 }, v, suite, tc), 0).expect("run").id
}

fn leases_scale_move_times_and_clocks_to_the_workers_speed(s: &dyn Storage) {
    let slow = timed_worker(s, "half-speed", 500_000);
    let fast = timed_worker(s, "double-speed", 2_000_000);
    let unmeasured = timed_worker(s, "unmeasured", 0);
    let crawling = timed_worker(s, "ten-times-slower", 100_000);
    let tc_of = |worker, reference| {
        let lease = s.lease_batch_scaled(worker, 1, reference, 0).expect("lease").expect("work");
        // The referee replays the lease's games against the same time control.
        assert_eq!(s.lease_terms(lease.id).expect("terms").tc, lease.tc);
        lease.tc
    };

    only_run(s, TimeControl::MoveTimeMs(1_000));
    assert_eq!(tc_of(slow, REFERENCE), TimeControl::MoveTimeMs(2_000), "half the speed, twice the time");
    assert_eq!(tc_of(fast, REFERENCE), TimeControl::MoveTimeMs(500));
    assert_eq!(tc_of(unmeasured, REFERENCE), TimeControl::MoveTimeMs(1_000), "an unmeasured worker: unscaled");
    assert_eq!(tc_of(crawling, REFERENCE), TimeControl::MoveTimeMs(4_000), "beyond the bound: served at 4x");
    assert_eq!(tc_of(slow, ReferenceNps::default()), TimeControl::MoveTimeMs(1_000), "no reference, no scaling");
    assert_eq!(tc_of(slow, BOTH), TimeControl::MoveTimeMs(2_000), "a run without a network: the HCE's ratio");
    assert_eq!(s.lease_batch(slow, 1, 0).expect("lease").expect("work").tc, TimeControl::MoveTimeMs(1_000));

    only_run(s, SLOW);
    assert_eq!(tc_of(slow, REFERENCE), TimeControl::Clock { base_ms: 20_000, inc_ms: 200 });
    assert_eq!(tc_of(fast, REFERENCE), TimeControl::Clock { base_ms: 5_000, inc_ms: 50 });

    only_run(s, TimeControl::Nodes(20_000));
    assert_eq!(tc_of(slow, REFERENCE), TimeControl::Nodes(20_000), "nodes are the same work on any machine");
    only_run(s, TimeControl::Depth(6));
    assert_eq!(tc_of(crawling, REFERENCE), TimeControl::Depth(6));

    // A batch is about a minute of play on the worker: at 100 ms a move a pair takes ~30 s, so
    // a worker at the reference speed gets two pairs a slot, a half-speed one one.
    only_run(s, TimeControl::MoveTimeMs(100));
    let pairs = |worker| s.lease_batch_scaled(worker, 2, REFERENCE, 0).expect("lease").expect("work").tasks.len();
    assert_eq!((pairs(unmeasured), pairs(slow), pairs(fast)), (4, 2, 8));
}

fn lease_terms_keep_the_scale_the_lease_was_granted_with(s: &dyn Storage) {
    let run = only_run(s, TimeControl::MoveTimeMs(1_000));
    let slow = timed_worker(s, "half-speed", 500_000);
    let lease = s.lease_batch_scaled(slow, 2, REFERENCE, 0).expect("lease").expect("work");
    assert_eq!(lease.tc, TimeControl::MoveTimeMs(2_000));
    // A worker registers again at another speed: its new leases follow it, its old one does not.
    let keyed = s
        .register_worker(&WorkerInfo { bench_nps: 250_000, worker_key: "k".into(), ..info("keyed", 1) }, 0)
        .expect("worker");
    let quarter = s.lease_batch_scaled(keyed, 1, REFERENCE, 0).expect("lease").expect("work");
    assert_eq!(quarter.tc, TimeControl::MoveTimeMs(4_000));
    s.register_worker(&WorkerInfo { bench_nps: 1_000_000, worker_key: "k".into(), ..info("keyed", 1) }, 1)
        .expect("again");
    assert_eq!(
        s.lease_batch_scaled(keyed, 1, REFERENCE, 1).expect("lease").expect("work").tc,
        TimeControl::MoveTimeMs(1_000)
    );
    // Closed, expired, or asked of a coordinator with another reference (or none): the same terms.
    s.record_results(slow, lease.id, 0, &play_all(&lease)[..1], true, 2).expect("record");
    s.expire_leases(quarter.deadline_unix_ms + 1).expect("expire");
    for (l, tc) in [(lease.id, 2_000), (quarter.id, 4_000)] {
        let terms = s.lease_terms(l).expect("terms");
        assert_eq!((terms.run, terms.tc), (run, TimeControl::MoveTimeMs(tc)), "lease {l}");
    }
}

/// A worker measured at `bench_nps` with the HCE and `nnue_bench_nps` with a network.
fn network_worker(s: &dyn Storage, name: &str, bench_nps: u64, nnue_bench_nps: u64) -> WorkerId {
    let info = WorkerInfo { bench_nps, simd: Some(SimdLevel::Scalar), nnue_bench_nps, ..info(name, 1) };
    s.register_worker(&info, 0).expect("worker")
}

/// A fresh active run (every earlier one stopped) of a variant that names a stored network
/// against the HCE, at `tc`.
fn only_network_run(s: &dyn Storage, tc: TimeControl) -> RunId {
    for run in s.list_runs().expect("runs") {
        if run.state == RunState::Active {
            s.set_run_state(run.id, RunState::Stopped).expect("stop");
        }
    }
    let bytes = engine::nnue::Network::random(3, 16).to_bytes();
    let id = engine::nnue::NetworkId::of_file(&bytes);
    s.add_network(id, &bytes, 0).expect("network");
    let net = s.add_variant(&params("net", &format!("eval = \"nnue:{id}\"\n"))).expect("network variant").id;
    let v = vec![net, variants(s, 1).remove(0)];
    let suite = suite(s, 10);
    s.create_run(&run_spec(RunKind::Games { pairs: 50 }, v, suite, tc), 0).expect("run").id
}

fn leases_of_network_runs_scale_by_the_workers_speed_with_a_network(s: &dyn Storage) {
    // Half the HCE reference, a quarter of the network's; twice the network's; unmeasured.
    let scalar = network_worker(s, "scalar", 500_000, 100_000);
    let fast = network_worker(s, "fast", 500_000, 800_000);
    let old = network_worker(s, "old", 500_000, 0);
    let tc_of = |worker, references| {
        let lease = s.lease_batch_scaled(worker, 1, references, 0).expect("lease").expect("work");
        assert_eq!(s.lease_terms(lease.id).expect("terms").tc, lease.tc, "the referee's time control");
        lease.tc
    };
    only_network_run(s, TimeControl::MoveTimeMs(1_000));
    assert_eq!(tc_of(scalar, BOTH), TimeControl::MoveTimeMs(4_000), "the network's ratio, not the HCE's 2");
    assert_eq!(tc_of(fast, BOTH), TimeControl::MoveTimeMs(500));
    assert_eq!(tc_of(old, BOTH), TimeControl::MoveTimeMs(1_000), "no speed with a network: unscaled");
    assert_eq!(tc_of(scalar, REFERENCE), TimeControl::MoveTimeMs(1_000), "no network reference: unscaled");
    only_network_run(s, SLOW);
    assert_eq!(tc_of(fast, BOTH), TimeControl::Clock { base_ms: 5_000, inc_ms: 50 });
    // The same workers on a run of the HCE: the HCE's ratio.
    only_run(s, TimeControl::MoveTimeMs(1_000));
    for worker in [scalar, fast, old] {
        assert_eq!(tc_of(worker, BOTH), TimeControl::MoveTimeMs(2_000));
    }
}

fn workers_are_listed_with_their_speed(s: &dyn Storage) {
    timed_worker(s, "measured", 1_234_567);
    timed_worker(s, "unmeasured", 0);
    network_worker(s, "with-a-network", 900_000, 700_000);
    let rows = s.list_workers(1).expect("workers");
    let speeds: Vec<(&str, u64, Option<SimdLevel>, u64)> =
        rows.iter().map(|w| (w.name.as_str(), w.bench_nps, w.simd, w.nnue_bench_nps)).collect();
    assert_eq!(
        speeds,
        [
            ("measured", 1_234_567, None, 0),
            ("unmeasured", 0, None, 0),
            ("with-a-network", 900_000, Some(SimdLevel::Scalar), 700_000)
        ]
    );
    // Registering again with the same key replaces both, the level too.
    let keyed = WorkerInfo { worker_key: "k".into(), ..info("keyed", 1) };
    s.register_worker(&WorkerInfo { simd: Some(SimdLevel::Scalar), nnue_bench_nps: 1, ..keyed.clone() }, 0)
        .expect("worker");
    s.register_worker(&WorkerInfo { simd: Some(SimdLevel::Avx2), nnue_bench_nps: 2, ..keyed }, 1).expect("again");
    let last = s.list_workers(1).expect("workers").pop().expect("the keyed worker");
    assert_eq!((last.name.as_str(), last.simd, last.nnue_bench_nps), ("keyed", Some(SimdLevel::Avx2), 2));
}

fn export_bookkeeping(s: &dyn Storage) {
    let run = games_run(s, 3, 0);
    let w = worker(s, "w", 1, 0);
    let lease = s.lease_batch(w, 3, 0).expect("lease").expect("work");
    s.record_results(w, lease.id, 0, &play_all(&lease), true, 0).expect("record");
    let all = s.games_since(run, 0, 100).expect("games");
    assert_eq!(all.len(), 6);
    let page = s.games_since(run, 0, 4).expect("page");
    assert_eq!(page, all[..4]);
    let rest = s.games_since(run, page[3].game_id, 4).expect("rest");
    assert_eq!(rest, all[4..]);
    assert_eq!(s.exported_up_to(run).expect("mark"), 0);
    s.mark_exported(run, page[3].game_id).expect("mark");
    assert_eq!(s.exported_up_to(run).expect("mark"), page[3].game_id);
    s.mark_exported(run, 1).expect("mark");
    assert_eq!(s.exported_up_to(run).expect("mark"), page[3].game_id, "the mark never moves back");
    assert!(matches!(s.mark_exported(RunId::new(42), 1), Err(Error::RunNotFound(r)) if r == RunId::new(42)));
    assert!(matches!(s.exported_up_to(RunId::new(42)), Err(Error::RunNotFound(r)) if r == RunId::new(42)));
    assert!(matches!(s.games_since(RunId::new(42), 0, 1), Err(Error::RunNotFound(r)) if r == RunId::new(42)));
}

/// Pruning deletes the positions of exported games only (up to the run's mark, within the range
/// asked for, of the run's own games), keeps the games, and counts what it deleted.
fn only_exported_games_lose_their_positions(s: &dyn Storage) {
    use coordinator::storage::prune;
    let run = games_run(s, 3, 0);
    let other = games_run(s, 3, 0);
    let w = worker(s, "w", 1, 0);
    while let Some(lease) = s.lease_batch(w, 3, 0).expect("lease") {
        s.record_results(w, lease.id, 0, &play_all(&lease), true, 0).expect("record");
    }
    let before = s.games_since(run, 0, 100).expect("games");
    let others = s.games_since(other, 0, 100).expect("games");
    assert_eq!((before.len(), others.len()), (6, 6));
    let positions = |run| -> Vec<usize> {
        s.games_since(run, 0, 100).expect("games").iter().map(|g| g.report.positions.len()).collect()
    };
    assert_eq!((positions(run), positions(other)), (vec![1; 6], vec![1; 6]));

    assert_eq!(s.prune_exported_positions(run, 0, u64::MAX).expect("prune"), 0, "nothing is exported yet");
    assert_eq!(prune::prune_exported_positions(s, run).expect("prune").positions, 0);
    assert_eq!(positions(run), [1; 6]);

    let mark = before[3].game_id;
    s.mark_exported(run, mark).expect("mark");
    assert_eq!(s.prune_exported_positions(run, 0, before[1].game_id).expect("prune"), 2, "only the range asked");
    assert_eq!(positions(run), [0, 0, 1, 1, 1, 1]);
    let pruned = prune::prune_exported_positions(s, run).expect("prune");
    assert_eq!((pruned.run, pruned.exported_up_to, pruned.positions), (run, mark, 2));
    assert_eq!(positions(run), [0, 0, 0, 0, 1, 1], "games beyond the mark keep their positions");
    assert_eq!(s.prune_exported_positions(run, 0, u64::MAX).expect("again"), 0, "pruning twice deletes nothing");

    // The games stay, whole but for their positions.
    let after = s.games_since(run, 0, 100).expect("games");
    for (b, a) in before.iter().zip(&after) {
        let mut unpruned = a.clone();
        unpruned.report.positions.clone_from(&b.report.positions);
        assert_eq!(&unpruned, b, "game {}", a.game_id);
    }
    assert!(s.get_game(before[0].game_id).expect("game").report.positions.is_empty());
    assert_eq!(s.get_game(before[5].game_id).expect("game").report.positions.len(), 1);
    assert_eq!(s.run_aggregates(run).expect("aggregates").games, 6);

    // A mark beyond the other run's games prunes only this run's.
    let last = before.iter().chain(&others).map(|g| g.game_id).max().expect("games");
    s.mark_exported(run, last).expect("mark");
    assert_eq!(prune::prune_exported_positions(s, run).expect("prune").positions, 2);
    assert_eq!((positions(run), positions(other)), (vec![0; 6], vec![1; 6]));

    s.mark_exported(other, others[2].game_id).expect("mark");
    assert_eq!(prune::prune_exported_positions(s, other).expect("prune").positions, 3);
    assert_eq!(positions(other), [0, 0, 0, 1, 1, 1]);
    assert!(matches!(
        s.prune_exported_positions(RunId::new(42), 0, 1),
        Err(Error::RunNotFound(r)) if r == RunId::new(42)
    ));
}

// ---------------------------------------------------------------------------------------------
// SQLite only

#[test]
fn sqlite_reopen_keeps_everything() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("farm.db");
    let (run, w, lease, before, games_before) = {
        let s = SqliteStorage::open(&path).expect("open");
        let run = games_run(&s, 6, 0);
        let w = worker(&s, "w", 1, 0);
        let lease = s.lease_batch(w, 4, 0).expect("lease").expect("work");
        s.record_results(w, lease.id, 1, &play_all(&lease)[..2], false, 1).expect("record");
        s.mark_exported(run, 2).expect("mark");
        let games = s.games_since(run, 0, 100).expect("games");
        (run, w, lease, s.get_run(run).expect("run"), games)
    };
    let s = SqliteStorage::open(&path).expect("reopen");
    assert_eq!(s.get_run(run).expect("run"), before);
    assert_eq!(s.games_since(run, 0, 100).expect("games"), games_before);
    assert_eq!(s.exported_up_to(run).expect("mark"), 2);
    // The lease, its submissions and the worker survived.
    let resent = s.record_results(w, lease.id, 1, &play_all(&lease)[..2], false, 2).expect("resend");
    assert!(resent.duplicate);
    let rest = s.record_results(w, lease.id, 2, &play_all(&lease), false, 2).expect("record");
    assert_eq!(rest.accepted, 2);
    let more = s.lease_batch(w, 4, 3).expect("lease").expect("work");
    assert_eq!(indices(&more), vec![4, 5], "pair numbering continues");
    let games = s.games_since(run, 0, 100).expect("games");
    assert_eq!(games.len(), 8);
    assert!(games.windows(2).all(|g| g[0].game_id < g[1].game_id));
}

#[test]
fn sqlite_lease_scales_and_worker_speeds_survive_reopening() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("farm.db");
    let (slow, lease) = {
        let s = SqliteStorage::open(&path).expect("open");
        only_run(&s, TimeControl::Clock { base_ms: 1_000, inc_ms: 10 });
        let slow = timed_worker(&s, "half-speed", 500_000);
        (slow, s.lease_batch_scaled(slow, 1, REFERENCE, 0).expect("lease").expect("work"))
    };
    assert_eq!(lease.tc, TimeControl::Clock { base_ms: 2_000, inc_ms: 20 });
    let s = SqliteStorage::open(&path).expect("reopen");
    assert_eq!(s.lease_terms(lease.id).expect("terms").tc, lease.tc, "a restart changes nothing");
    let next = s.lease_batch_scaled(slow, 1, REFERENCE, 1).expect("lease").expect("work");
    assert_eq!(next.tc, lease.tc, "the worker's speed was kept");
    assert_eq!(s.list_workers(1).expect("workers")[0].bench_nps, 500_000);
}

#[test]
fn sqlite_worker_keys_survive_reopening() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("farm.db");
    let id = {
        let s = SqliteStorage::open(&path).expect("open");
        worker(&s, "anon", 1, 0);
        keyed_worker(&s, "w", "the-key", 1, 0)
    };
    let s = SqliteStorage::open(&path).expect("reopen");
    assert_eq!(keyed_worker(&s, "w", "the-key", 1, 1), id);
    assert_ne!(keyed_worker(&s, "w", "another-key", 1, 1), id);
    // Only a digest of the key is stored.
    let conn = rusqlite::Connection::open(&path).expect("raw open");
    let stored: Vec<Option<String>> = conn
        .prepare("SELECT key_digest FROM workers ORDER BY id")
        .and_then(|mut q| q.query_map([], |r| r.get(0))?.collect())
        .expect("digests");
    assert_eq!(stored.len(), 3);
    assert_eq!(stored[0], None);
    assert!(stored.iter().flatten().all(|d| d.len() == 64 && !d.contains("key")), "{stored:?}");
}

#[test]
fn sqlite_refuses_other_schema_versions() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("farm.db");
    drop(SqliteStorage::open(&path).expect("create"));
    let conn = rusqlite::Connection::open(&path).expect("raw open");
    conn.execute("UPDATE schema_version SET version = 99", []).expect("bump");
    drop(conn);
    assert!(matches!(SqliteStorage::open(&path), Err(Error::Corrupt(m)) if m.contains("99")));
}

#[test]
fn sqlite_reports_malformed_content_as_errors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("farm.db");
    let (run, variant, lost) = {
        let s = SqliteStorage::open(&path).expect("open");
        let run = games_run(&s, 2, 0);
        (run, s.get_run(run).expect("run").spec.variants[0].clone(), games_run(&s, 2, 0))
    };
    let conn = rusqlite::Connection::open(&path).expect("raw open");
    conn.execute("UPDATE runs SET tc_value = -5 WHERE id = ?1", [run.get() as i64]).expect("damage run");
    conn.execute("UPDATE variants SET spec = '3:abc,' WHERE id = ?1", [variant.as_str()]).expect("damage variant");
    conn.execute("DELETE FROM run_pairings WHERE run_id = ?1", [lost.get() as i64]).expect("lose a pairing");
    drop(conn);
    let s = SqliteStorage::open(&path).expect("open");
    assert!(matches!(s.get_run(run), Err(Error::Corrupt(_))));
    assert!(
        matches!(s.get_run(lost), Err(Error::Corrupt(e)) if e.contains("0 pairings stored")),
        "a run without the statistics row of its pairing"
    );
    assert!(matches!(s.list_runs(), Err(Error::Corrupt(_))));
    assert!(matches!(s.get_variant(&variant), Err(Error::Corrupt(_))));
}

#[test]
fn sqlite_in_memory_works() {
    let s = SqliteStorage::open_in_memory().expect("open");
    assert!(s.path().is_none());
    let run = games_run(&s, 1, 0);
    assert_eq!(s.get_run(run).expect("run").state, RunState::Active);
}

// ---------------------------------------------------------------------------------------------
// The web pages' reads

fn variants_and_suites_are_listed(s: &dyn Storage) {
    assert!(s.list_variants().expect("none").is_empty() && s.list_suites().expect("none").is_empty());
    let ids = variants(s, 3);
    let mut by_id: Vec<_> = ids.iter().map(|id| s.get_variant(id).expect("variant")).collect();
    by_id.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(s.list_variants().expect("variants"), by_id);
    let first = suite(s, 10);
    let second = s.add_openings("two", &[START.to_string(), "startpos moves h2e2".to_string()]).expect("suite").id;
    let summaries: Vec<(SuiteId, String, u32)> =
        s.list_suites().expect("suites").into_iter().map(|x| (x.id, x.name, x.openings)).collect();
    assert_eq!(summaries, [(first, "test suite".to_string(), 10), (second, "two".to_string(), 2)]);
    // The same name and openings are the same suite; another name or another line is not.
    let lines = [START.to_string(), "startpos moves h2e2".to_string()];
    assert_eq!(s.add_openings("two", &lines).expect("again").id, second);
    assert_ne!(s.add_openings("three", &lines).expect("renamed").id, second);
    assert_ne!(s.add_openings("two", &lines[..1]).expect("one line fewer").id, second);
    assert_eq!(s.list_suites().expect("suites").len(), 4);
}

/// A game of `plies` moves ending as `outcome` by `reason`.
fn ended(red: &VariantId, black: &VariantId, outcome: GameOutcome, reason: Termination, plies: usize) -> GameReport {
    let moves = ["h2e2", "h9g7", "h0g2", "i9h9", "b0c2"];
    GameReport {
        reason,
        moves: moves.iter().cycle().take(plies).map(|m| m.to_string()).collect(),
        ..game(red, black, outcome, 0)
    }
}

/// The run of [`recorded_run`]: two workers recorded four pairs, a third holds a lease.
struct Recorded {
    run: RunId,
    variants: Vec<VariantId>,
    workers: [WorkerId; 3],
    t0: u64,
}

/// Pair index -> its games as (outcome, termination, plies), game 0 with `variants[0]` as Red.
fn scripted(pair_index: u64) -> [(GameOutcome, Termination, usize); 2] {
    use GameOutcome::*;
    let mate = Termination::Rules(Reason::Checkmate);
    match pair_index {
        // variants[0] wins as Red, then draws: 3 half points.
        0 => [(RedWins, mate, 3), (Draw, Termination::Rules(Reason::Repetition), 5)],
        // A draw, then variants[1] wins as Red: 1.
        1 => [(Draw, Termination::AdjudicatedDraw, 4), (RedWins, mate, 3)],
        // variants[0] loses as Red before moving, then wins as Black: 2.
        2 => [(BlackWins, Termination::EngineError, 0), (BlackWins, mate, 3)],
        // Two wins: 4.
        _ => [(RedWins, mate, 5), (BlackWins, Termination::AdjudicatedResign, 4)],
    }
}

fn scripted_pair(task: &PairTask) -> PairReport {
    let [a, b] = &task.variants;
    let [g0, g1] = scripted(task.pair_index);
    PairReport { pair_index: task.pair_index, games: [ended(a, b, g0.0, g0.1, g0.2), ended(b, a, g1.0, g1.1, g1.2)] }
}

/// w1 leases pairs 0 and 1, w2 pairs 2 and 3 (at t0); w2 records both at t0 + 1s, w1 pair 1 at
/// t0 + 2s and pair 0 at t0 + 3s (recording order 2, 3, 1, 0: game ids 1..=8); w3 (with an
/// engine) leases pair 4 at t0 + 4s and holds it.
fn recorded_run(s: &dyn Storage) -> Recorded {
    let t0 = 1_000_000;
    let v = variants(s, 2);
    let suite = suite(s, 10);
    let run = s.create_run(&run_spec(RunKind::Games { pairs: 6 }, v.clone(), suite, SLOW), t0).expect("run").id;
    let (w1, w2) = (worker(s, "w1", 1, t0), worker(s, "w2", 1, t0));
    let l1 = s.lease_batch(w1, 2, t0).expect("lease").expect("work");
    let l2 = s.lease_batch(w2, 2, t0).expect("lease").expect("work");
    assert_eq!((indices(&l1), indices(&l2)), (vec![0, 1], vec![2, 3]));
    let reports = |l: &Lease| -> Vec<PairReport> { l.tasks.iter().map(scripted_pair).collect() };
    let (r1, r2) = (reports(&l1), reports(&l2));
    assert_eq!(s.record_results(w2, l2.id, 0, &r2, false, t0 + 1_000).expect("w2").accepted, 2);
    assert_eq!(s.record_results(w1, l1.id, 0, &r1[1..], false, t0 + 2_000).expect("w1").accepted, 1);
    assert_eq!(s.record_results(w1, l1.id, 1, &r1[..1], true, t0 + 3_000).expect("w1").accepted, 1);
    // A resend counts nothing (nor notes the worker as seen), here or in its recent games.
    assert!(s.record_results(w1, l1.id, 1, &r1[..1], true, t0 + 3_500).expect("resend").duplicate);
    let w3 = engine_worker(s, "w3", &[("pikafish", 'a')], t0 + 4_000);
    let l3 = s.lease_batch(w3, 1, t0 + 4_000).expect("lease").expect("work");
    assert_eq!(indices(&l3), [4]);
    Recorded { run, variants: v, workers: [w1, w2, w3], t0 }
}

fn a_runs_games_read_back_for_its_page(s: &dyn Storage) {
    let r = recorded_run(s);
    let page = s.run_games_page(r.run, 0, 3).expect("page");
    assert_eq!(page.iter().map(|g| g.game_id).collect::<Vec<_>>(), [1, 2, 3]);
    assert_eq!(
        page[0],
        coordinator::GameSummary {
            game_id: 1,
            run: r.run,
            pair_index: 2,
            game_in_pair: 0,
            red: r.variants[0].clone(),
            black: r.variants[1].clone(),
            outcome: GameOutcome::BlackWins,
            reason: Termination::EngineError,
            plies: 0,
            worker: "w2".into(),
        }
    );
    assert_eq!((page[1].red.clone(), page[1].plies, page[1].game_in_pair), (r.variants[1].clone(), 3, 1));
    // Every game, page by page, is what games_since reads, without moves.
    let all = s.games_since(r.run, 0, 100).expect("games");
    let paged: Vec<_> = (0..3).flat_map(|p| s.run_games_page(r.run, p * 3, 3).expect("page")).collect();
    assert_eq!(paged.len(), 8);
    for (summary, game) in paged.iter().zip(&all) {
        assert_eq!(
            (summary.game_id, summary.pair_index, summary.game_in_pair, &summary.worker),
            (game.game_id, game.pair_index, game.game_in_pair, &game.worker)
        );
        assert_eq!((summary.outcome, summary.reason), (game.report.outcome, game.report.reason));
        assert_eq!(summary.plies as usize, game.report.moves.len());
    }
    assert_eq!(paged.iter().map(|g| g.pair_index).collect::<Vec<_>>(), [2, 2, 3, 3, 1, 1, 0, 0]);
    assert!(s.run_games_page(r.run, 8, 50).expect("past the end").is_empty());
    assert!(s.run_games_page(r.run, 0, 0).expect("empty page").is_empty());

    // A game by id, with its sampled positions.
    let last = s.get_game(8).expect("game 8");
    assert_eq!(&last, &all[7]);
    assert_eq!((last.pair_index, last.game_in_pair, last.worker.as_str()), (0, 1, "w1"));
    assert_eq!(last.report.moves, ["h2e2", "h9g7", "h0g2", "i9h9", "b0c2"]);
    assert_eq!(last.report.positions.len(), 1);
    assert_eq!(last.report.positions[0].best_move, "b0c2");
}

fn a_runs_aggregates_and_pair_sequence_are_exact(s: &dyn Storage) {
    let r = recorded_run(s);
    let mate = Termination::Rules(Reason::Checkmate);
    let a = s.run_aggregates(r.run).expect("aggregates");
    assert_eq!(a.games, 8);
    // Ties in the vocabulary's order.
    assert_eq!(
        a.terminations,
        [
            (mate, 4),
            (Termination::Rules(Reason::Repetition), 1),
            (Termination::AdjudicatedResign, 1),
            (Termination::AdjudicatedDraw, 1),
            (Termination::EngineError, 1),
        ]
    );
    assert_eq!(a.lengths, [(0, 1), (3, 3), (4, 2), (5, 2)]);
    let [w1, w2, _] = r.workers;
    assert_eq!(
        a.workers,
        [
            coordinator::WorkerRunStats {
                worker: w1,
                name: "w1".into(),
                pairs: 2,
                pentanomial: [0, 1, 0, 1, 0],
                last_seen_ms: r.t0 + 3_000
            },
            coordinator::WorkerRunStats {
                worker: w2,
                name: "w2".into(),
                pairs: 2,
                pentanomial: [0, 0, 1, 0, 1],
                last_seen_ms: r.t0 + 1_000
            },
        ]
    );
    // The run's own statistics agree.
    assert_eq!(s.get_run(r.run).expect("run").stats[0].pentanomial, [0, 1, 1, 1, 1]);
    assert_eq!(s.run_pair_sequence(r.run).expect("sequence"), [(0, 2), (0, 4), (0, 1), (0, 3)]);

    // A run without games.
    let empty = games_run(s, 2, r.t0);
    assert_eq!(s.run_aggregates(empty).expect("aggregates"), coordinator::RunAggregates::default());
    assert!(s.run_pair_sequence(empty).expect("sequence").is_empty());
    assert!(s.run_games_page(empty, 0, 50).expect("page").is_empty());
}

fn pairs_of_every_pairing_are_in_the_sequence(s: &dyn Storage) {
    let now = 1_000;
    let v = variants(s, 3);
    let suite = suite(s, 10);
    let spec = run_spec(RunKind::Gauntlet { pairs_per_opponent: 3 }, v, suite, SLOW);
    let run = s.create_run(&spec, now).expect("run").id;
    let w = worker(s, "w", 1, now);
    let lease = s.lease_batch(w, 6, now).expect("lease").expect("work");
    let mut tasks = lease.tasks.clone();
    assert_eq!(tasks.len(), 6);
    assert!(tasks.iter().any(|t| t.pairing == 0) && tasks.iter().any(|t| t.pairing == 1), "{tasks:?}");
    // Recorded highest index first, one submission each.
    tasks.reverse();
    for (seq, t) in (0u64..).zip(&tasks) {
        assert_eq!(s.record_results(w, lease.id, seq, &[play(t)], false, now).expect("record").accepted, 1);
    }
    let expected: Vec<(u32, u8)> = tasks.iter().map(|t| (t.pairing, play(t).first_half_points() as u8)).collect();
    assert_eq!(s.run_pair_sequence(run).expect("sequence"), expected);
    let aggregates = s.run_aggregates(run).expect("aggregates");
    let mut pairing_0 = [0u64; 5];
    for &(pairing, index) in expected.iter().filter(|(p, _)| *p == 0) {
        assert_eq!(pairing, 0);
        pairing_0[usize::from(index)] += 1;
    }
    assert_eq!(aggregates.workers.len(), 1);
    assert_eq!((aggregates.workers[0].pairs, aggregates.workers[0].pentanomial), (6, pairing_0));
    assert_eq!(s.get_run(run).expect("run").stats[0].pentanomial, pairing_0);
    assert_eq!(aggregates.games, 12);
    assert_eq!(aggregates.lengths, [(3, 12)]);
}

fn workers_are_listed_with_leases_and_recent_games(s: &dyn Storage) {
    let r = recorded_run(s);
    let [w1, w2, w3] = r.workers;
    let rows = s.list_workers(r.t0 + 4_000).expect("workers");
    let summary: Vec<(WorkerId, &str, u32, u64, u32, u64)> = rows
        .iter()
        .map(|w| (w.id, w.name.as_str(), w.cores, w.last_seen_ms, w.leases_held, w.games_last_10_min))
        .collect();
    assert_eq!(
        summary,
        [(w1, "w1", 2, r.t0 + 3_000, 0, 4), (w2, "w2", 2, r.t0 + 1_000, 0, 4), (w3, "w3", 2, r.t0 + 4_000, 1, 0),]
    );
    assert!(rows[0].engines.is_empty() && rows[0].host == "host");
    assert_eq!(rows[2].engines.len(), 1);
    assert_eq!((rows[2].engines[0].name.as_str(), rows[2].engines[0].sha256.as_str()), ("pikafish", &*"a".repeat(64)));
    // Ten minutes after w2's submission it no longer counts; w1's last two still do.
    let later = s.list_workers(r.t0 + 1_001 + 600_000).expect("workers");
    assert_eq!(later.iter().map(|w| w.games_last_10_min).collect::<Vec<_>>(), [4, 0, 0]);
    let much_later = s.list_workers(r.t0 + 3_001 + 600_000).expect("workers");
    assert_eq!(much_later.iter().map(|w| w.games_last_10_min).collect::<Vec<_>>(), [0, 0, 0]);
}

fn unknown_ids_are_not_found_by_the_web_reads(s: &dyn Storage) {
    let r = recorded_run(s);
    let nobody = RunId::new(99);
    assert!(matches!(s.get_game(9), Err(Error::GameNotFound(9))));
    assert!(matches!(s.get_game(0), Err(Error::GameNotFound(0))));
    assert!(matches!(s.get_game(u64::MAX), Err(Error::GameNotFound(u64::MAX))));
    assert!(matches!(s.run_games_page(nobody, 0, 50), Err(Error::RunNotFound(r)) if r == nobody));
    assert!(matches!(s.run_aggregates(nobody), Err(Error::RunNotFound(r)) if r == nobody));
    assert!(matches!(s.run_pair_sequence(nobody), Err(Error::RunNotFound(r)) if r == nobody));
    assert!(s.get_game(9).expect_err("unknown").is_not_found());
    assert!(s.get_game(1).is_ok() && s.run_aggregates(r.run).is_ok());
}

// ---------------------------------------------------------------------------------------------
// SPSA

fn spsa_settings() -> proto::domain::SpsaSettings {
    proto::domain::SpsaSettings {
        pairs: 6,
        params: proto::domain::parse_spsa_lines("search.rfp_margin,90,20,300,10,0.002\nx,0.5,0,1,0.1,0.002")
            .expect("valid lines"),
    }
}

fn spsa_runs_move_theta_once_per_submission(s: &dyn Storage) {
    use coordinator::spsa;
    let v = variants(s, 1);
    let suite = suite(s, 10);
    let settings = spsa_settings();
    let spec = run_spec(RunKind::Spsa(settings.clone()), v.clone(), suite, SLOW);
    let run = s.create_run(&spec, 5).expect("run").id;
    let start: Vec<f64> = s.spsa_values(run).expect("values").iter().map(|p| p.value).collect();
    assert_eq!(start, [90.0, 0.5]);
    let history = s.spsa_history(run).expect("history");
    assert_eq!((history.len(), history[0].iteration, history[0].theta.clone()), (1, 0, start.clone()));

    let w = worker(s, "w", 1, 0);
    let lease = s.lease_batch(w, 2, 10).expect("lease").expect("work");
    let batch = lease.spsa.clone().expect("an SPSA lease carries its batch");
    assert_eq!(batch.iteration, 1);
    assert!(lease.tasks.iter().all(|t| t.variants == [v[0].clone(), v[0].clone()]));
    let mut flips = Vec::new();
    for ((p, point), t) in settings.params.iter().zip(&batch.points).zip(&start) {
        let (c, _) = spsa::gains(p, settings.pairs, 1);
        assert!(((point.plus - point.minus).abs() - 2.0 * c).abs() < 1e-9, "{point:?}");
        assert!(((point.plus + point.minus) / 2.0 - t).abs() < 1e-9, "{point:?}");
        flips.push((point.plus - t).signum());
    }

    // The plus side (the task's first player) wins both games of the pair: W - L = 2.
    let task = &lease.tasks[0];
    let [a, b] = &task.variants;
    let won = PairReport {
        pair_index: task.pair_index,
        games: [game(a, b, GameOutcome::RedWins, 1), game(b, a, GameOutcome::BlackWins, 2)],
    };
    s.record_results(w, lease.id, 0, std::slice::from_ref(&won), false, 20).expect("record");
    let after: Vec<f64> = s.spsa_values(run).expect("values").iter().map(|p| p.value).collect();
    for (i, p) in settings.params.iter().enumerate() {
        let (c, r) = spsa::gains(p, settings.pairs, 1);
        let want = (start[i] + r * c * 2.0 * flips[i]).clamp(p.min, p.max);
        assert!((after[i] - want).abs() < 1e-12, "{}: {} != {want}", p.name, after[i]);
        assert_ne!(after[i], start[i]);
    }
    // A resend, and the same pair again under a new sequence number, change nothing.
    s.record_results(w, lease.id, 0, std::slice::from_ref(&won), false, 30).expect("resend");
    s.record_results(w, lease.id, 1, std::slice::from_ref(&won), false, 30).expect("retry");
    let again: Vec<f64> = s.spsa_values(run).expect("values").iter().map(|p| p.value).collect();
    assert_eq!(again, after);
    let history = s.spsa_history(run).expect("history");
    assert_eq!(history.iter().map(|h| h.iteration).collect::<Vec<_>>(), [0, 1]);
    assert_eq!(history[1].theta, after);

    // The next lease is drawn at the next iteration, around the new values.
    let next = s.lease_batch(w, 1, 40).expect("lease").expect("work");
    let batch = next.spsa.expect("batch");
    assert_eq!(batch.iteration, 2);
    assert!(((batch.points[0].plus + batch.points[0].minus) / 2.0 - after[0]).abs() < 1e-9);

    // Other runs carry no batch and no values.
    let other = games_run(s, 2, 0);
    s.set_run_state(run, RunState::Stopped).expect("stop");
    let plain = s.lease_batch(w, 1, 50).expect("lease").expect("work");
    assert_eq!((plain.run, plain.spsa), (other, None));
    assert!(s.spsa_values(other).expect("values").is_empty());
}

/// A datagen run: its spec (random plies included) reads back as created; its pairs are the
/// one variant against itself from the pair's random opening (the same in the lease and in
/// the terms the referee replays against); positions without a score keep none; it completes
/// after its pairs.
fn datagen_runs_round_trip_and_lease_random_openings_to_themselves(s: &dyn Storage) {
    use proto::domain::{DATAGEN_TC, DatagenSettings};
    let v = variants(s, 1);
    let lines = ["startpos".to_owned(), "startpos moves h2e2 h9g7".to_owned()];
    let suite = s.add_openings("datagen suite", &lines).expect("suite").id;
    let spec = RunSpec {
        tc: DATAGEN_TC,
        sample_every: 1,
        ..run_spec(RunKind::Datagen(DatagenSettings { pairs: 3, random_plies: 6 }), v.clone(), suite, SLOW)
    };
    let run = s.create_run(&spec, 5).expect("run").id;
    assert_eq!(s.get_run(run).expect("run").spec, spec, "the spec reads back whole");
    assert_eq!(s.list_runs().expect("runs").iter().find(|r| r.id == run).map(|r| &r.spec), Some(&spec));

    let w = worker(s, "w", 1, 0);
    let lease = s.lease_batch(w, 8, 10).expect("lease").expect("work");
    assert_eq!(indices(&lease), [0, 1, 2]);
    assert_eq!((lease.sample_every, lease.tc, lease.spsa.is_none()), (1, DATAGEN_TC, true));
    for t in &lease.tasks {
        assert_eq!(t.variants, [v[0].clone(), v[0].clone()], "self-play");
        let line = &lines[t.opening_index as usize];
        let want = |game| coordinator::datagen::random_opening(line, run, t.pair_index, game, 6).expect("opening");
        assert_eq!(t.opening, want(0), "pair {}", t.pair_index);
        assert_eq!(
            t.second_opening,
            Some(want(1)),
            "pair {}: the second game has random plies of its own",
            t.pair_index
        );
        assert_ne!(&t.opening, line, "the random plies are part of the leased opening");
    }
    assert_eq!(s.lease_terms(lease.id).expect("terms").tasks, lease.tasks, "the referee's openings are the lease's");

    let mut reports = play_all(&lease);
    reports[0].games[1].positions[0].search_score = None;
    s.record_results(w, lease.id, 0, &reports, true, 20).expect("record");
    let games = s.games_since(run, 0, 10).expect("games");
    assert_eq!(games.len(), 6);
    let scores: Vec<Option<i32>> = games.iter().map(|g| g.report.positions[0].search_score).collect();
    assert_eq!(scores.iter().filter(|s| s.is_none()).count(), 1, "{scores:?}");
    assert!(scores.iter().flatten().all(|&s| s == 30));
    let unscored = games.iter().find(|g| g.report.positions[0].search_score.is_none()).expect("the unscored game");
    assert_eq!((unscored.pair_index, unscored.game_in_pair), (0, 1));
    assert_eq!(s.get_game(unscored.game_id).expect("by id").report.positions[0].search_score, None);
    assert_eq!(s.get_run(run).expect("run").state, RunState::Completed);
}

fn spsa_rows<B: Backend>(b: &B) {
    use coordinator::spsa::{HistoryPoint, Perturbation};
    let run = primitive_run(b, RunKind::Games { pairs: 5 }, None);
    let missing = b.read("a conformance case", move |tx| tx.spsa_theta(run)).expect_err("no values yet");
    assert!(matches!(missing, Error::Corrupt(_)), "{missing}");
    tx(b, move |tx| tx.set_spsa_theta(run, &[1.5, -2.0]));
    tx(b, move |tx| tx.set_spsa_theta(run, &[1.25, -2.5]));
    assert_eq!(tx(b, move |tx| tx.spsa_theta(run)), [1.25, -2.5]);
    for iteration in [3, 0] {
        let point = HistoryPoint { iteration, received_ms: 10 + iteration, theta: vec![iteration as f64] };
        tx(b, move |tx| tx.insert_spsa_history(run, &point));
    }
    let history = tx(b, move |tx| tx.spsa_history(run));
    assert_eq!(history.iter().map(|h| (h.iteration, h.received_ms)).collect::<Vec<_>>(), [(0, 10), (3, 13)]);
    let w = tx(b, |tx| {
        tx.insert_worker(
            &WorkerInfo {
                name: "w".into(),
                host: "h".into(),
                cores: 1,
                engine_version: "1".into(),
                bench_signature: 0,
                worker_key: String::new(),
                rules_version: engine::RULES_VERSION,
                engines: Vec::new(),
                bench_nps: 0,
                simd: None,
                nnue_bench_nps: 0,
            },
            None,
            0,
        )
    });
    let lease = tx(b, move |tx| {
        tx.insert_lease(&NewLease {
            run,
            worker: w,
            created_ms: 0,
            deadline_ms: 9,
            duration_ms: 9,
            tc_scale: TcScale::UNSCALED,
        })
    });
    assert_eq!(tx(b, move |tx| tx.spsa_lease(lease)), None);
    let ps = vec![Perturbation { flip: -1, c: 0.5, r: 0.25 }, Perturbation { flip: 1, c: 3.0, r: 0.001 }];
    let stored = ps.clone();
    tx(b, move |tx| tx.insert_spsa_lease(lease, 4, &stored));
    assert_eq!(tx(b, move |tx| tx.spsa_lease(lease)), Some((4, ps)));
}

// ---------------------------------------------------------------------------------------------
// Tournaments

fn swiss(rounds: u32) -> RunKind {
    RunKind::Tournament(proto::domain::TournamentSettings::new(proto::domain::TournamentFormat::Swiss, rounds))
}

/// Red wins both games when Red is the lower variant index: the lower index always wins.
fn lower_index_wins(task: &PairTask, ids: &[VariantId]) -> PairReport {
    let [a, b] = &task.variants;
    let pos = |v: &VariantId| ids.iter().position(|x| x == v).expect("a player");
    let (first, second) = if pos(a) < pos(b) {
        (GameOutcome::RedWins, GameOutcome::BlackWins)
    } else {
        (GameOutcome::BlackWins, GameOutcome::RedWins)
    };
    PairReport {
        pair_index: task.pair_index,
        games: [game(a, b, first, task.pair_index), game(b, a, second, task.pair_index)],
    }
}

fn tournament_rounds_are_drawn_only_when_the_last_one_is_complete(s: &dyn Storage) {
    let v = variants(s, 4);
    let suite = suite(s, 10);
    let run = s.create_run(&run_spec(swiss(3), v.clone(), suite, SLOW), 0).expect("tournament").id;
    // Round 1 is drawn with the run: two matches of one pair, by entry order.
    let draw = s.tournament_draw(run).expect("draw").expect("a tournament");
    let pairs_of = |d: &proto::domain::TournamentDraw, round: u32| -> Vec<(usize, usize)> {
        d.matches.iter().filter(|m| m.m.round == round).map(|m| (m.m.a, m.m.b)).collect()
    };
    assert_eq!(pairs_of(&draw, 1), [(0, 1), (2, 3)]);
    assert_eq!(draw.names, ["v0", "v1", "v2", "v3"]);
    let w = worker(s, "w", 1, 0);
    let lease = s.lease_batch(w, 8, 0).expect("lease").expect("round 1");
    assert_eq!(lease.tasks.len(), 2, "one pair a match");
    assert!(s.lease_batch(w, 8, 1).expect("lease").is_none(), "nothing more until round 1 is done");
    let reports: Vec<PairReport> = lease.tasks.iter().map(|t| lower_index_wins(t, &v)).collect();
    s.record_results(w, lease.id, 1, &reports[..1], false, 2).expect("record");
    assert_eq!(s.tournament_draw(run).expect("draw").expect("t").matches.len(), 2, "round 1 still open");
    s.record_results(w, lease.id, 2, &reports[1..], true, 3).expect("record");
    // Round 2, drawn in the same transaction: the winners (0, 2) and the losers (1, 3) meet.
    let draw = s.tournament_draw(run).expect("draw").expect("t");
    assert_eq!(pairs_of(&draw, 2), [(0, 2), (1, 3)]);
    // A resend of the last submission draws nothing more.
    let again = s.record_results(w, lease.id, 2, &reports[1..], true, 4).expect("resend");
    assert!(again.duplicate);
    assert_eq!(s.tournament_draw(run).expect("draw").expect("t").matches.len(), 4);
    // Play out rounds 2 and 3; the run completes after its last round and never before.
    for round in 2..=3u32 {
        assert_eq!(s.get_run(run).expect("run").state, RunState::Active, "round {round}");
        let lease = s.lease_batch(w, 8, 10 * u64::from(round)).expect("lease").expect("a round");
        let reports: Vec<PairReport> = lease.tasks.iter().map(|t| lower_index_wins(t, &v)).collect();
        s.record_results(w, lease.id, 1, &reports, true, 10 * u64::from(round) + 1).expect("record");
    }
    let done = s.get_run(run).expect("run");
    assert_eq!(done.state, RunState::Completed);
    let draw = s.tournament_draw(run).expect("draw").expect("t");
    assert_eq!(pairs_of(&draw, 3), [(0, 3), (2, 1)], "the higher-ranked player first");
    assert!(s.lease_batch(w, 8, 100).expect("lease").is_none());
    // The standings from the stored draw and statistics: 0 won all, 3 lost all.
    let t = coordinator::tournament::director::Tournament::from_draw(
        match &done.spec.kind {
            RunKind::Tournament(settings) => settings,
            other => panic!("{other:?}"),
        },
        4,
        &draw,
        &done.stats,
    );
    let table: Vec<(usize, u32)> = t.standings(u32::MAX).iter().map(|l| (l.player, l.points)).collect();
    assert_eq!(table, [(0, 12), (1, 8), (2, 4), (3, 0)]);
}

fn tournaments_refuse_bad_designs_by_name(s: &dyn Storage) {
    let v = variants(s, 4);
    let suite = suite(s, 4);
    let refused = |kind: RunKind, variants: Vec<VariantId>| -> String {
        s.create_run(&run_spec(kind, variants, suite, SLOW), 0).expect_err("refused").to_string()
    };
    assert!(refused(swiss(4), v.clone()).contains("tournament.rounds"), "Swiss rounds above N - 1");
    assert!(refused(swiss(1), v[..1].to_vec()).contains("2 to"), "one variant");
    let twice = vec![v[0].clone(), v[1].clone(), v[0].clone()];
    assert!(refused(swiss(1), twice).contains("twice"));
    let two_same = vec![v[0].clone(), v[0].clone()];
    assert!(refused(swiss(1), two_same).contains("twice"), "a duplicate even in a field of two");
    let mut zero = proto::domain::TournamentSettings::new(proto::domain::TournamentFormat::RoundRobin, 1);
    zero.pairs_per_match = 0;
    assert!(refused(RunKind::Tournament(zero), v.clone()).contains("tournament.pairs_per_match"));
    assert!(s.list_runs().expect("runs").is_empty(), "nothing was stored");
}

fn tournament_rows<B: Backend>(b: &B) {
    use proto::domain::{ByeSlot, Match, MatchStage};
    let run = primitive_run(b, RunKind::Games { pairs: 5 }, None);
    assert!(tx(b, move |tx| tx.matches(run)).is_empty());
    let before = tx(b, move |tx| tx.run_stats(run)).len();
    let m = |round, slot, stage| Match { round, slot, a: 1, b: 0, stage, pairs: 2 };
    let first = tx(b, move |tx| tx.insert_match(run, &m(1, 0, MatchStage::Main)));
    let second = tx(b, move |tx| tx.insert_match(run, &m(1, 0, MatchStage::Armageddon)));
    assert_eq!((first as usize, second as usize), (before, before + 1), "each match is the next pairing");
    assert_eq!(tx(b, move |tx| tx.run_stats(run)).len(), before + 2);
    assert_eq!(tx(b, move |tx| tx.allocation(run)).allocated.len(), before + 2);
    tx(b, move |tx| tx.set_armageddon_result(run, second, 1));
    let rows = tx(b, move |tx| tx.matches(run));
    assert_eq!(
        rows.iter().map(|r| (r.pairing, r.m.stage, r.armageddon_red_points)).collect::<Vec<_>>(),
        [(first, MatchStage::Main, None), (second, MatchStage::Armageddon, Some(1))]
    );
    for bye in [ByeSlot { round: 2, slot: 1, player: 3 }, ByeSlot { round: 1, slot: 4, player: 2 }] {
        tx(b, move |tx| tx.insert_bye(run, &bye));
    }
    assert_eq!(tx(b, move |tx| tx.byes(run)).iter().map(|b| (b.round, b.player)).collect::<Vec<_>>(), [(1, 2), (2, 3)]);
    let missing = b.write("a conformance case", move |tx| tx.set_armageddon_result(run, 99, 2)).expect_err("no match");
    assert!(matches!(missing, Error::Corrupt(_)), "{missing}");
}

#[test]
fn sqlite_a_tournament_between_rounds_survives_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("farm.db");
    let (run, v, w) = {
        let s = SqliteStorage::open(&path).expect("open");
        let v = variants(&s, 4);
        let suite = suite(&s, 10);
        let run = s.create_run(&run_spec(swiss(3), v.clone(), suite, SLOW), 0).expect("tournament").id;
        let w = worker(&s, "w", 1, 0);
        let lease = s.lease_batch(w, 8, 0).expect("lease").expect("round 1");
        let reports: Vec<PairReport> = lease.tasks.iter().map(|t| lower_index_wins(t, &v)).collect();
        s.record_results(w, lease.id, 1, &reports, true, 1).expect("record");
        (run, v, w)
    };
    // The coordinator stops between rounds: round 2 was stored with round 1's last result.
    let s = SqliteStorage::open(&path).expect("reopen");
    let draw = s.tournament_draw(run).expect("draw").expect("t");
    assert_eq!(draw.matches.len(), 4);
    let lease = s.lease_batch(w, 8, 2).expect("lease").expect("round 2 is leased after the restart");
    let pairings: BTreeSet<u32> = lease.tasks.iter().map(|t| t.pairing).collect();
    assert_eq!(pairings, BTreeSet::from([2, 3]));
    let players: Vec<[VariantId; 2]> = lease.tasks.iter().map(|t| t.variants.clone()).collect();
    assert!(players.contains(&[v[0].clone(), v[2].clone()]), "{players:?}");
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL only: several coordinators on one database, reopening, named errors

/// Four workers, each leasing three pairs at a time through one of two coordinators (two
/// `PgStorage` on one database, alternating per call), record every pair they are given, while a
/// reader follows the games as the exporter does (`games_since` the highest id seen).
#[test]
fn postgres_two_coordinators_lease_each_pair_once_and_the_exporter_misses_no_game() {
    let Some(db) = postgres_support::fresh() else { return };
    let a = PgStorage::open(&db.url).expect("open a");
    let b = PgStorage::open(&db.url).expect("open b");
    let run = games_run(&a, 60, 0);
    let coordinators = [&a, &b];
    let workers: Vec<WorkerId> = (0..4).map(|i| worker(coordinators[i % 2], &format!("w{i}"), 1, 0)).collect();
    let done = std::sync::atomic::AtomicBool::new(false);
    let (leased, followed) = std::thread::scope(|scope| {
        let follower = scope.spawn(|| {
            let mut seen = Vec::new();
            let mut after = 0;
            loop {
                let finished = done.load(std::sync::atomic::Ordering::SeqCst);
                let games = b.games_since(run, after, 1000).expect("games since");
                if let Some(last) = games.last() {
                    after = last.game_id;
                }
                seen.extend(games.iter().map(|g| g.game_id));
                if finished {
                    return seen;
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        });
        let players: Vec<_> = workers
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                scope.spawn(move || {
                    let mut leased = Vec::new();
                    for call in i.. {
                        let s = coordinators[call % 2];
                        let Some(lease) = s.lease_batch(w, 3, 1).expect("lease") else { break };
                        leased.extend(indices(&lease));
                        let other = coordinators[(call + 1) % 2];
                        other.record_results(w, lease.id, 1, &play_all(&lease), true, 2).expect("record");
                    }
                    leased
                })
            })
            .collect();
        let leased: Vec<u64> = players.into_iter().flat_map(|p| p.join().expect("worker thread")).collect();
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        (leased, follower.join().expect("follower thread"))
    });
    let mut sorted = leased.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..60).collect::<Vec<u64>>(), "every pair leased exactly once");
    let r = a.get_run(run).expect("run");
    assert_eq!(r.state, RunState::Completed);
    assert_eq!(total_pairs(&r.stats), 60);
    let games = a.games_since(run, 0, 1000).expect("games");
    assert_eq!(games.len(), 120);
    assert!(games.windows(2).all(|g| g[0].game_id < g[1].game_id));
    let slots: BTreeSet<(u64, u8)> = games.iter().map(|g| (g.pair_index, g.game_in_pair)).collect();
    assert_eq!(slots.len(), 120, "each game of each pair once");
    let all: Vec<u64> = games.iter().map(|g| g.game_id).collect();
    assert_eq!(followed, all, "following by highest id seen reads every game, in order, once");
}

/// More transactions at once than the pool has connections: they wait for one instead of
/// opening more (each costs a password exchange), and every one of them succeeds.
#[test]
fn postgres_many_threads_share_a_bounded_pool() {
    let Some(db) = postgres_support::fresh() else { return };
    let s = PgStorage::open(&db.url).expect("open");
    let threads = 48;
    let run = games_run(&s, threads, 0);
    let workers: Vec<WorkerId> = (0..threads).map(|i| worker(&s, &format!("w{i}"), 1, 0)).collect();
    let done = std::sync::atomic::AtomicBool::new(false);
    let (most, leased) = std::thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            let mut admin = postgres::Client::connect(&db.url, postgres::NoTls).expect("connect");
            let mut most = 0;
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                let row = admin
                    .query_one(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'xqfarm'",
                        &[],
                    )
                    .expect("count connections");
                most = most.max(row.get::<_, i64>(0));
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            most
        });
        let handles: Vec<_> = workers
            .iter()
            .map(|&w| {
                let s = &s;
                scope.spawn(move || {
                    let lease = s.lease_batch(w, 1, 1).expect("lease").expect("work");
                    for _ in 0..5 {
                        s.get_run(run).expect("read the run");
                    }
                    s.record_results(w, lease.id, 1, &play_all(&lease), true, 2).expect("record");
                    indices(&lease)
                })
            })
            .collect();
        let leased: Vec<u64> = handles.into_iter().flat_map(|h| h.join().expect("a thread")).collect();
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        (watcher.join().expect("the watcher"), leased)
    });
    let distinct: BTreeSet<u64> = leased.iter().copied().collect();
    assert_eq!(distinct.len(), leased.len(), "a pair leased twice: {leased:?}");
    assert_eq!(s.get_run(run).expect("run").state, RunState::Completed);
    // The pool's 16, and the announcer's connection.
    assert!(most <= 17, "{most} connections open at once");
}

#[test]
fn postgres_reopen_keeps_everything() {
    let Some(db) = postgres_support::fresh() else { return };
    let (run, w, lease, before) = {
        let s = PgStorage::open(&db.url).expect("open");
        let run = games_run(&s, 6, 0);
        let w = worker(&s, "w", 1, 0);
        let lease = s.lease_batch(w, 4, 0).expect("lease").expect("work");
        s.record_results(w, lease.id, 1, &play_all(&lease)[..2], false, 1).expect("record");
        s.mark_exported(run, 2).expect("mark");
        (run, w, lease, s.get_run(run).expect("run"))
    };
    let s = PgStorage::open(&db.url).expect("reopen");
    assert_eq!(s.get_run(run).expect("run"), before);
    assert_eq!(s.exported_up_to(run).expect("mark"), 2);
    assert!(s.record_results(w, lease.id, 1, &play_all(&lease)[..2], false, 2).expect("resend").duplicate);
    let more = s.lease_batch(w, 4, 3).expect("lease").expect("work");
    assert_eq!(indices(&more), vec![4, 5], "pair numbering continues");
}

#[test]
fn postgres_a_version_2_database_gains_networks_and_keeps_its_runs() {
    let Some(db) = postgres_support::fresh() else { return };
    let (run, before) = {
        let s = PgStorage::open(&db.url).expect("open");
        let run = games_run(&s, 2, 0);
        (run, s.get_run(run).expect("run"))
    };
    // Version 3 only added the networks table, version 4 two worker columns: without them and
    // their version rows, the database is what a version 2 build wrote.
    db.execute(
        "DROP TABLE networks; ALTER TABLE workers DROP COLUMN simd, DROP COLUMN nnue_bench_nps;
         DELETE FROM xqfarm_schema_version WHERE version >= 3;",
    );
    let s = PgStorage::open(&db.url).expect("migrates");
    assert_eq!(s.get_run(run).expect("run"), before);
    let bytes = engine::nnue::Network::random(4, 16).to_bytes();
    let id = engine::nnue::NetworkId::of_file(&bytes);
    s.add_network(id, &bytes, 1).expect("the new table takes networks");
    assert_eq!(s.get_network(id).expect("read back"), bytes);
    let mut admin = postgres::Client::connect(&db.url, postgres::NoTls).expect("connect");
    let versions: Vec<i64> = admin
        .query("SELECT version FROM xqfarm_schema_version ORDER BY version", &[])
        .expect("versions")
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(versions, [1, 2, 3, 4, 5]);
}

#[test]
fn postgres_unreachable_server_is_named_at_once() {
    // Port 1 on loopback: nothing listens there, so the connection is refused.
    let start = std::time::Instant::now();
    let e = PgStorage::open("postgres://farm:s3cret@127.0.0.1:1/xqfarm").expect_err("nothing listens");
    let text = e.to_string();
    assert!(matches!(e, Error::Database { .. }), "{e:?}");
    assert!(text.contains("127.0.0.1:1") && text.contains("cannot reach"), "{text}");
    assert!(!text.contains("s3cret"), "the password is never shown: {text}");
    assert!(start.elapsed() < coordinator::storage::postgres::CONNECT_TIMEOUT, "refused, not timed out");
}

#[test]
fn postgres_wrong_password_is_named() {
    let Some(db) = postgres_support::fresh() else { return };
    let url = db.url.replacen(":xqfarm-test@", ":not-the-password@", 1);
    assert_ne!(url, db.url, "the test server's URL carries its password");
    let e = PgStorage::open(&url).expect_err("wrong password");
    let text = e.to_string();
    assert!(matches!(e, Error::Database { .. }) && text.contains("refused the password"), "{text}");
    assert!(!text.contains("not-the-password"), "{text}");
}

#[test]
fn postgres_foreign_schema_is_refused_untouched() {
    let Some(db) = postgres_support::fresh() else { return };
    db.execute("CREATE TABLE accounts (id BIGINT PRIMARY KEY); INSERT INTO accounts VALUES (7);");
    let e = PgStorage::open(&db.url).expect_err("another application's database");
    let text = e.to_string();
    assert!(matches!(e, Error::Database { .. }) && text.contains("accounts"), "{text}");
    // Nothing was created beside it: an empty database for the coordinator still works elsewhere.
    let mut c = postgres::Client::connect(&db.url, postgres::NoTls).expect("connect");
    let tables: i64 = c
        .query_one("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'", &[])
        .expect("count")
        .get(0);
    assert_eq!(tables, 1, "only the application's own table");
}

#[test]
fn postgres_refuses_a_newer_schema() {
    let Some(db) = postgres_support::fresh() else { return };
    drop(PgStorage::open(&db.url).expect("create"));
    db.execute("UPDATE xqfarm_schema_version SET version = 99");
    let e = PgStorage::open(&db.url).expect_err("newer");
    assert!(matches!(&e, Error::Database { reason, .. } if reason.contains("99")), "{e}");
}

/// The shape of a PostgreSQL database's schema: columns (type, nullability, default),
/// constraints, indexes, triggers and the functions they run.
fn postgres_schema(url: &str) -> Vec<String> {
    let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connect");
    let mut shape = Vec::new();
    for sql in [
        "SELECT table_name::text || '.' || column_name::text || ' ' || data_type::text || ' ' || is_nullable::text
             || ' ' || coalesce(column_default::text, '') FROM information_schema.columns
         WHERE table_schema = 'public' ORDER BY 1",
        "SELECT conrelid::regclass::text || ' ' || conname::text || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
         WHERE connamespace = 'public'::regnamespace ORDER BY 1",
        "SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1",
        "SELECT tgname::text FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1",
        "SELECT proname::text || ' ' || prosrc FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY 1",
    ] {
        shape.extend(c.query(sql, &[]).expect("schema").iter().map(|r| r.get::<_, String>(0)));
    }
    shape
}

/// `tests/data/pg-v1.sql` is the farm of `tests/data/make-farm-v8.sh` written to PostgreSQL by a
/// build of schema version 1 (from before the datagen branch): its dump, replayed, is migrated
/// in place to the current version (5) with every row kept, takes a datagen run and unscored
/// positions, and has a new database's schema.
#[test]
fn postgres_version_1_database_is_migrated_in_place() {
    let Some(old) = postgres_support::fresh() else { return };
    old.execute(include_str!("../data/pg-v1.sql"));
    let count = |url: &str, sql: &str| -> i64 {
        let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connect");
        c.query_one(sql, &[]).expect("count").get(0)
    };
    let scores = "SELECT COUNT(*) FROM positions WHERE search_score IS NOT NULL";
    assert_eq!(count(&old.url, scores), 110, "the fixture's positions");
    let before = position_rows(&old.url);

    let s = PgStorage::open(&old.url).expect("open and migrate");
    assert_eq!(count(&old.url, "SELECT MAX(version) FROM xqfarm_schema_version"), 5);
    assert_eq!(position_rows(&old.url), before, "every position keeps its values");
    let run = s.get_run(RunId::new(1)).expect("run 1");
    assert_eq!((run.spec.kind.clone(), run.state.clone()), (RunKind::Games { pairs: 2 }, RunState::Completed));
    let spec = RunSpec {
        name: "datagen".into(),
        kind: RunKind::Datagen(proto::domain::DatagenSettings { pairs: 1, random_plies: 8 }),
        variants: vec![run.spec.variants[0].clone()],
        tc: proto::domain::DATAGEN_TC,
        sample_every: 1,
        ..run.spec.clone()
    };
    let datagen = s.create_run(&spec, 4_000_000_000_000).expect("a datagen run");
    assert_eq!(s.get_run(datagen.id).expect("read back").spec, spec);
    let w = worker(&s, "w", 1, 4_000_000_000_001);
    let lease = s.lease_batch(w, 1, 4_000_000_000_002).expect("lease").expect("work");
    let mut report = play(&lease.tasks[0]);
    report.games[0].positions[0].search_score = None;
    s.record_results(w, lease.id, 0, &[report], true, 4_000_000_000_003).expect("recorded");
    assert_eq!(count(&old.url, "SELECT COUNT(*) FROM positions WHERE search_score IS NULL"), 1);
    drop(s);

    let Some(new) = postgres_support::fresh() else { return };
    drop(PgStorage::open(&new.url).expect("a new database"));
    assert_eq!(postgres_schema(&old.url), postgres_schema(&new.url), "a migrated database is a new one");
}

/// `tests/data/pg-v3.sql` is the farm of `tests/data/make-farm-v10.sh` written to PostgreSQL by
/// a build of schema version 3: replayed and migrated in place to version 4, its worker keeps
/// its speed and has no SIMD level and no speed with a network, a network run leased to it is
/// unscaled, and the database has a new one's schema.
#[test]
fn postgres_version_3_database_gains_simd_levels_and_network_speeds() {
    let Some(old) = postgres_support::fresh() else { return };
    old.execute(include_str!("../data/pg-v3.sql"));
    let worker_row = |url: &str| -> String {
        let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connect");
        c.query_one("SELECT concat_ws('|', id, name, bench_signature, bench_nps, key_digest) FROM workers", &[])
            .expect("the worker")
            .get(0)
    };
    let before = worker_row(&old.url);
    let s = PgStorage::open(&old.url).expect("open and migrate");
    assert_eq!(worker_row(&old.url), before, "the worker keeps its row");
    let row = s.list_workers(4_000_000_000_000).expect("workers").remove(0);
    assert_eq!((row.name.as_str(), row.bench_nps, row.simd, row.nnue_bench_nps), ("w-measured", 500_000, None, 0));
    let run = s.get_run(RunId::new(1)).expect("run 1");
    assert_eq!((run.spec.name.as_str(), run.state.clone()), ("net-run", RunState::Completed));
    let spec = RunSpec { name: "net-timed".into(), tc: TimeControl::MoveTimeMs(100), ..run.spec.clone() };
    let timed = s.create_run(&spec, 4_000_000_000_000).expect("a run of the stored network");
    let lease = s.lease_batch_scaled(row.id, 1, BOTH, 4_000_000_000_001).expect("lease").expect("work");
    assert_eq!((lease.run, lease.tc), (timed.id, TimeControl::MoveTimeMs(100)), "no speed with a network");
    drop(s);

    let Some(new) = postgres_support::fresh() else { return };
    drop(PgStorage::open(&new.url).expect("a new database"));
    assert_eq!(postgres_schema(&old.url), postgres_schema(&new.url), "a migrated database is a new one");
}

/// `tests/data/pg-v4.sql` is the farm of `tests/data/make-farm-v10.sh` written by a build of
/// schema version 4: migrated in place to version 5, it keeps its pair results, its trigger finds a
/// pair's first game by its id (and by the pair when the ids are not adjacent), and it has a new
/// database's schema.
#[test]
fn postgres_version_4_database_records_pair_results_by_the_first_games_id() {
    let Some(old) = postgres_support::fresh() else { return };
    old.execute(include_str!("../data/pg-v4.sql"));
    let results = |url: &str| -> Vec<String> {
        let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connect");
        c.query(
            "SELECT concat_ws('|', run_id, first_game_id, pair_index, pairing, worker_id, points) FROM run_pair_results
             ORDER BY run_id, first_game_id",
            &[],
        )
        .expect("pair results")
        .iter()
        .map(|r| r.get::<_, String>(0))
        .collect()
    };
    assert_eq!(results(&old.url), ["1|1|0|0|1|4"], "the fixture's one pair, won twice by the network");
    let s = PgStorage::open(&old.url).expect("open and migrate");
    assert_eq!(results(&old.url), ["1|1|0|0|1|4"], "kept");

    // A pair recorded through the workflow: game 0's id is game 1's minus one.
    let run = s.get_run(RunId::new(1)).expect("run 1");
    let spec = RunSpec { name: "after".into(), kind: RunKind::Games { pairs: 1 }, ..run.spec.clone() };
    let after = s.create_run(&spec, 4_000_000_000_000).expect("a run");
    let w = worker(&s, "w", 1, 4_000_000_000_001);
    let lease = s.lease_batch(w, 1, 4_000_000_000_002).expect("lease").expect("work");
    let report = play(&lease.tasks[0]);
    let points = report.first_half_points();
    s.record_results(w, lease.id, 0, &[report], true, 4_000_000_000_003).expect("recorded");
    assert_eq!(results(&old.url)[1], format!("{}|3|0|0|{}|{points}", after.id, w));

    // Games whose ids are not adjacent (written by hand): found by the pair instead.
    old.execute(
        "INSERT INTO pairs (run_id, pair_index, pairing, opening_index, status)
             SELECT run_id, 7, pairing, opening_index, status FROM pairs WHERE run_id = 1 AND pair_index = 0;
         INSERT INTO games (id, run_id, pair_index, game_in_pair, opening_index, worker_id, red, black, start_fen,
                            outcome, reason, moves, duration_ms, nodes, plies, pairing)
             SELECT id + 100 + 5 * game_in_pair, run_id, 7, game_in_pair, opening_index, worker_id, red, black,
                    start_fen, outcome, reason, moves, duration_ms, nodes, plies, pairing
             FROM games WHERE run_id = 1 AND pair_index = 0 ORDER BY game_in_pair;",
    );
    assert_eq!(results(&old.url)[1], "1|101|7|0|1|4");
    drop(s);

    let Some(new) = postgres_support::fresh() else { return };
    drop(PgStorage::open(&new.url).expect("a new database"));
    assert_eq!(postgres_schema(&old.url), postgres_schema(&new.url), "a migrated database is a new one");
}

/// Every stored position as text, in order.
fn position_rows(url: &str) -> Vec<String> {
    let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connect");
    c.query(
        "SELECT concat_ws('|', game_id, seq, ply, fen, red_to_move, static_eval, search_score, best_move, in_check,
             quiet) FROM positions ORDER BY game_id, seq",
        &[],
    )
    .expect("positions")
    .iter()
    .map(|r| r.get::<_, String>(0))
    .collect()
}
