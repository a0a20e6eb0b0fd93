//! The workflow, tested once over the in-memory backend, down to the rows it leaves behind.
//! (`tests/it/storage_conformance.rs` runs the same `Storage` calls on every backend.)

use proto::domain::{
    Adjudication, EngineInfo, EngineProtocol, GameOutcome, GameReport, Lease, LeaseId, PairReport, PairTask, RunId,
    RunKind, RunSpec, RunState, SprtSettings, Termination, TimeControl, VariantId, VariantKind, VariantSpec, WorkerId,
    WorkerInfo,
};

use crate::error::Error;
use crate::scheduler;
use crate::storage::tx::{Backend, LeasePairStatus, LeaseState, PairStatus};
use crate::storage::{MemoryStorage, Storage};
use crate::tc_scale::ReferenceNps;

/// A pair takes over a minute: one pair per free slot.
const SLOW: TimeControl = TimeControl::Clock { base_ms: 10_000, inc_ms: 100 };
const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";

struct Farm {
    s: MemoryStorage,
    run: RunId,
}

fn params(name: &str) -> VariantSpec {
    VariantSpec { name: name.into(), kind: VariantKind::Params { toml: String::new() } }
}

fn farm(kind: RunKind) -> Farm {
    farm_with(kind, &params("a"))
}

/// A run between `first` and an in-process variant.
fn farm_with(kind: RunKind, first: &VariantSpec) -> Farm {
    let s = MemoryStorage::new();
    let a = s.add_variant(first).expect("variant").id;
    let b = s.add_variant(&params("b")).expect("variant").id;
    let lines: Vec<String> = (0..4).map(|i| format!("{START} moves h2e2 opening{i}")).collect();
    let openings = s.add_openings("suite", &lines).expect("suite").id;
    let spec = RunSpec {
        name: "run".into(),
        kind,
        variants: vec![a, b],
        tc: SLOW,
        openings,
        adjudication: Adjudication::default(),
        bench_signature: None,
        sample_every: 0,
    };
    let run = s.create_run(&spec, 0).expect("run").id;
    Farm { s, run }
}

impl Farm {
    fn worker(&self, name: &str) -> WorkerId {
        self.s.register_worker(&worker_info(name, String::new(), Vec::new()), 0).expect("worker")
    }

    fn lease(&self, worker: WorkerId, slots: u32, now: u64) -> Lease {
        self.s.lease_batch(worker, slots, now).expect("lease").expect("work")
    }

    fn pair_status(&self, index: u64) -> PairStatus {
        let run = self.run;
        self.s.read("test", move |tx| tx.pair(run, index)).expect("read").expect("pair").status
    }

    fn lease_pairs(&self, lease: LeaseId) -> Vec<(u64, LeasePairStatus)> {
        let pairs = self.s.read("test", move |tx| tx.lease_pairs(lease)).expect("read");
        pairs.into_iter().map(|p| (p.index, p.status)).collect()
    }

    fn lease_state(&self, lease: LeaseId) -> LeaseState {
        self.s.read("test", move |tx| tx.lease(lease)).expect("read").state
    }

    fn pooled(&self) -> Vec<u64> {
        let run = self.run;
        self.s.read("test", move |tx| tx.pooled_pairs(run, 100)).expect("read")
    }

    fn recorded(&self) -> u64 {
        self.s.get_run(self.run).expect("run").stats.iter().map(scheduler::pairs_recorded).sum()
    }

    fn state(&self) -> RunState {
        self.s.get_run(self.run).expect("run").state
    }
}

fn worker_info(name: &str, worker_key: String, engines: Vec<EngineInfo>) -> WorkerInfo {
    WorkerInfo {
        name: name.into(),
        host: "h".into(),
        cores: 1,
        engine_version: "1".into(),
        bench_signature: 1,
        worker_key,
        rules_version: engine::RULES_VERSION,
        engines,
        bench_nps: 0,
        simd: None,
        nnue_bench_nps: 0,
    }
}

fn report(task: &PairTask) -> PairReport {
    let game = |red: &VariantId, black: &VariantId| GameReport {
        red: red.clone(),
        black: black.clone(),
        start_fen: START.into(),
        outcome: GameOutcome::Draw,
        reason: Termination::EngineError,
        moves: Vec::new(),
        move_stats: Vec::new(),
        forfeit: None,
        duration_ms: 1,
        nodes: 1,
        positions: Vec::new(),
    };
    let [a, b] = &task.variants;
    PairReport { pair_index: task.pair_index, games: [game(a, b), game(b, a)] }
}

fn reports(lease: &Lease) -> Vec<PairReport> {
    lease.tasks.iter().map(report).collect()
}

#[test]
fn leasing_creates_pairs_held_by_one_lease() {
    let f = farm(RunKind::Games { pairs: 3 });
    let w = f.worker("w");
    let first = f.lease(w, 2, 0);
    assert_eq!(first.tasks.iter().map(|t| t.pair_index).collect::<Vec<_>>(), [0, 1]);
    assert_eq!((f.pair_status(0), f.pair_status(1)), (PairStatus::Leased, PairStatus::Leased));
    assert_eq!(f.lease_pairs(first.id), [(0, LeasePairStatus::Pending), (1, LeasePairStatus::Pending)]);
    let run = f.run;
    let allocation = f.s.read("test", move |tx| tx.allocation(run)).expect("allocation");
    assert_eq!((allocation.next_pair_index, allocation.allocated), (2, vec![2]));
    let holder = f.s.read("test", move |tx| tx.pair_holder(run, 1)).expect("holder");
    assert_eq!(holder, Some(first.id));
    let second = f.lease(w, 2, 0);
    assert_eq!(second.tasks.iter().map(|t| t.pair_index).collect::<Vec<_>>(), [2], "the run has 3 pairs");
    assert_eq!(f.s.lease_batch(w, 2, 0).expect("lease"), None);
}

#[test]
fn a_submission_counts_once_by_lease_and_sequence_number() {
    let f = farm(RunKind::Games { pairs: 2 });
    let w = f.worker("w");
    let lease = f.lease(w, 2, 0);
    let r = reports(&lease);
    let first = f.s.record_results(w, lease.id, 7, &r[..1], false, 10_000).expect("record");
    assert_eq!((first.accepted, first.duplicate), (1, false));
    assert_eq!(f.pair_status(0), PairStatus::Done);
    assert_eq!(f.lease_pairs(lease.id), [(0, LeasePairStatus::Finished), (1, LeasePairStatus::Pending)]);
    // A submission with pairs pending keeps the lease alive, like a heartbeat.
    let id = lease.id;
    let deadline = f.s.read("test", move |tx| tx.lease(id)).expect("lease").deadline_ms;
    assert_eq!(deadline, 10_000 + scheduler::LEASE_TIMEOUT_MS);
    let again = f.s.record_results(w, lease.id, 7, &r, true, 10_000).expect("resend");
    assert_eq!((again.accepted, again.duplicate), (0, true), "a resent (lease, seq) changes nothing");
    assert_eq!(f.lease_state(lease.id), LeaseState::Active, "not even its final flag");
    assert_eq!(f.recorded(), 1);
    let retry = f.s.record_results(w, lease.id, 8, &r, false, 10_000).expect("retry");
    assert_eq!((retry.accepted, retry.duplicate), (1, false), "pair 0 is not counted again");
    assert_eq!(f.recorded(), 2);
    assert_eq!(f.lease_state(lease.id), LeaseState::Closed, "every pair recorded: the lease closes itself");
    assert_eq!(f.state(), RunState::Completed, "the bounded run's last pair landed");
}

#[test]
fn a_pair_reported_twice_in_one_submission_counts_once() {
    let f = farm(RunKind::Games { pairs: 2 });
    let w = f.worker("w");
    let lease = f.lease(w, 2, 0);
    let r = reports(&lease);
    let twice = [r[0].clone(), r[1].clone(), r[0].clone()];
    let out = f.s.record_results(w, lease.id, 0, &twice, false, 10_000).expect("record");
    assert_eq!((out.accepted, out.duplicate), (2, false));
    assert_eq!(f.recorded(), 2, "pair 0's second report is acknowledged, not counted");
    assert_eq!(f.lease_state(lease.id), LeaseState::Closed);
}

#[test]
fn late_results_count_for_pairs_nobody_reported() {
    let f = farm(RunKind::Games { pairs: 3 });
    let (a, b) = (f.worker("a"), f.worker("b"));
    let slow = f.lease(a, 2, 0);
    let expired_at = slow.deadline_unix_ms + 1;
    assert_eq!(f.s.expire_leases(expired_at).expect("expire"), 1);
    assert_eq!(f.lease_state(slow.id), LeaseState::Expired);
    assert_eq!(f.pooled(), [0, 1]);
    assert_eq!(f.lease_pairs(slow.id), [(0, LeasePairStatus::Returned), (1, LeasePairStatus::Returned)]);
    // Pair 0 goes to b; pair 1 stays pooled.
    let again = f.lease(b, 1, expired_at);
    assert_eq!(again.tasks[0], slow.tasks[0], "a returned pair keeps its opening and players");
    assert_eq!(f.pooled(), [1]);

    // a was slow, not dead: both its pairs count, one held by b, one still pooled.
    let late = f.s.record_results(a, slow.id, 0, &reports(&slow), false, expired_at).expect("late");
    assert_eq!(late.accepted, 2);
    assert!(f.pooled().is_empty(), "a recorded pair leaves the pool");
    assert_eq!(f.lease_pairs(slow.id), [(0, LeasePairStatus::Finished), (1, LeasePairStatus::Finished)]);
    assert_eq!(f.lease_pairs(again.id), [(0, LeasePairStatus::Finished)], "b's copy is no longer pending");
    assert_eq!(f.lease_state(again.id), LeaseState::Active, "an expired lease never closes another");
    assert_eq!(f.lease_state(slow.id), LeaseState::Expired, "nor reopens");
    // b's copy of pair 0 is acknowledged, not counted; its lease then has nothing pending.
    let dup = f.s.record_results(b, again.id, 0, &reports(&again), false, expired_at).expect("dup");
    assert_eq!((dup.accepted, dup.duplicate), (0, false));
    assert_eq!(f.lease_state(again.id), LeaseState::Closed);
    assert_eq!(f.recorded(), 2);
    assert_eq!(f.state(), RunState::Active, "pair 2 was never played");
    assert!(matches!(f.s.heartbeat(a, slow.id, expired_at), Err(Error::LeaseClosed(_))));
}

#[test]
fn a_final_batch_returns_what_it_did_not_report() {
    let f = farm(RunKind::Sprt(SprtSettings::default()));
    let (a, b) = (f.worker("a"), f.worker("b"));
    let lease = f.lease(a, 3, 0);
    let done = f.s.record_results(a, lease.id, 0, &reports(&lease)[1..2], true, 5).expect("record");
    assert_eq!(done.accepted, 1);
    assert_eq!(f.lease_state(lease.id), LeaseState::Closed);
    assert_eq!(
        f.lease_pairs(lease.id),
        [(0, LeasePairStatus::Returned), (1, LeasePairStatus::Finished), (2, LeasePairStatus::Returned)]
    );
    assert_eq!(f.pooled(), [0, 2]);
    let next = f.lease(b, 3, 6);
    assert_eq!(next.tasks.iter().map(|t| t.pair_index).collect::<Vec<_>>(), [0, 2, 3], "pooled pairs first");
    assert_eq!(f.state(), RunState::Active, "an SPRT waits for its verdict");
    // No expiry is left to do for a closed lease.
    assert_eq!(f.s.expire_leases(u64::MAX).expect("expire"), 1, "only b's lease");
}

#[test]
fn a_pair_that_is_not_in_the_lease_changes_nothing() {
    let f = farm(RunKind::Games { pairs: 4 });
    let (a, b) = (f.worker("a"), f.worker("b"));
    let mine = f.lease(a, 2, 0);
    let theirs = f.lease(b, 2, 0);
    let mut batch = reports(&mine);
    batch.push(report(&theirs.tasks[0]));
    let err = f.s.record_results(a, mine.id, 0, &batch, true, 1).expect_err("refused");
    assert!(matches!(err, Error::InvalidReport { pair: 2, .. }), "{err}");
    assert_eq!(f.recorded(), 0);
    assert_eq!(f.lease_state(mine.id), LeaseState::Active, "the final flag of a refused batch is ignored");
    let id = mine.id;
    assert!(!f.s.read("test", move |tx| tx.submission_seen(id, 0)).expect("read"), "its seq is not used up");
    assert!(matches!(f.s.record_results(b, mine.id, 0, &[], false, 1), Err(Error::LeaseNotOwned { .. })));
}

#[test]
fn stop_and_resume_gate_leasing() {
    let f = farm(RunKind::Sprt(SprtSettings::default()));
    let w = f.worker("w");
    let held = f.lease(w, 1, 0);
    assert_eq!(f.s.set_run_state(f.run, RunState::Stopped).expect("stop").state, RunState::Stopped);
    assert_eq!(f.s.set_run_state(f.run, RunState::Stopped).expect("stop again").state, RunState::Stopped);
    assert_eq!(f.s.lease_batch(w, 1, 0).expect("lease"), None);
    // Games under way when it stopped still count.
    assert_eq!(f.s.record_results(w, held.id, 0, &reports(&held), true, 1).expect("record").accepted, 1);
    assert!(matches!(f.s.set_run_state(f.run, RunState::SprtDone { h1: true }), Err(Error::InvalidStateChange { .. })));
    f.s.set_run_state(f.run, RunState::Active).expect("resume");
    assert_eq!(f.lease(w, 1, 2).tasks[0].pair_index, 1);
    f.s.set_run_state(f.run, RunState::SprtDone { h1: true }).expect("verdict");
    assert!(matches!(f.s.set_run_state(f.run, RunState::Stopped), Err(Error::InvalidStateChange { .. })));
    assert_eq!(f.s.lease_batch(w, 1, 3).expect("lease"), None);
}

/// A run of `pairs` pairs between an external engine `fsf` and an in-process variant.
fn engine_farm(pairs: u64) -> Farm {
    let fsf = VariantSpec {
        name: "fairy".into(),
        kind: VariantKind::External { engine: "fsf".into(), protocol: EngineProtocol::Ucci, options: vec![] },
    };
    farm_with(RunKind::Games { pairs }, &fsf)
}

/// A worker named `name` with its own key, advertising `fsf` with binary `sha` (repeated).
fn fsf_worker(name: &str, sha: char) -> WorkerInfo {
    let fsf = EngineInfo { name: "fsf".into(), id_name: "Fairy".into(), sha256: sha.to_string().repeat(64) };
    worker_info(name, format!("key-{name}"), vec![fsf])
}

impl Farm {
    fn engine_worker(&self, name: &str, sha: char) -> WorkerId {
        self.s.register_worker(&fsf_worker(name, sha), 0).expect("worker")
    }

    fn pin(&self) -> Option<String> {
        let run = self.run;
        let needs = self.s.read("test", move |tx| tx.run_engine_needs(run)).expect("read");
        assert_eq!(needs.len(), 1, "{needs:?}");
        needs[0].pinned_sha256.clone()
    }
}

#[test]
fn a_run_pins_its_engine_at_the_first_lease_that_plays_it() {
    let f = engine_farm(3);
    assert_eq!(f.pin(), None, "a new run pinned nothing");
    let plain = f.worker("plain");
    assert_eq!(f.s.lease_batch(plain, 1, 0).expect("lease"), None, "a worker without the engine gets no work");
    let (a, b) = (f.engine_worker("a", 'a'), f.engine_worker("b", 'b'));
    assert_eq!(f.s.lease_batch(b, 0, 0).expect("lease"), None);
    assert_eq!(f.pin(), None, "no free slot, no lease, no pin");
    let first = f.lease(b, 1, 0);
    assert_eq!(f.pin(), Some("b".repeat(64)));
    assert_eq!(f.s.lease_batch(a, 1, 0).expect("lease"), None, "another binary of the same name");
    assert_eq!(f.lease(b, 1, 0).tasks[0].pair_index, 1, "the pinned binary keeps getting work");
    // A pooled pair goes only where the pin allows, too.
    f.s.expire_leases(first.deadline_unix_ms + 1).expect("expire");
    assert_eq!(f.s.lease_batch(a, 1, first.deadline_unix_ms + 1).expect("lease"), None);
    assert_eq!(f.pooled(), [0, 1]);
    // Re-registering with the pinned binary makes `a` a fit.
    assert_eq!(f.s.register_worker(&fsf_worker("a", 'b'), 1).expect("again"), a);
    let later = f.lease(a, 1, first.deadline_unix_ms + 2);
    assert_eq!(later.tasks[0].pair_index, 0, "pooled pairs first");
    assert_eq!(f.pin(), Some("b".repeat(64)), "a pin never moves");
}

#[test]
fn a_failed_workflow_call_leaves_no_pin_or_engine_behind() {
    let f = engine_farm(3);
    let w = f.engine_worker("w", 'c');
    let run = f.run;
    let failed = f.s.write("test", move |tx| {
        tx.store_worker_engines(w, &[])?;
        let lease = super::lease_batch(tx, w, 1, ReferenceNps::default(), 0)?;
        assert!(lease.is_none(), "the worker advertises nothing now");
        tx.store_worker_engines(w, &fsf_worker("w", 'c').engines)?;
        let lease = super::lease_batch(tx, w, 1, ReferenceNps::default(), 0)?.expect("work");
        assert_eq!(tx.run_engine_needs(run)?[0].pinned_sha256.as_deref(), Some(&*"c".repeat(64)));
        Err::<(), _>(Error::LeaseClosed(lease.id))
    });
    assert!(matches!(failed, Err(Error::LeaseClosed(_))));
    assert_eq!(f.pin(), None, "the pin was rolled back with the lease");
    assert!(f.pooled().is_empty());
    let engines = f.s.read("test", move |tx| tx.worker_engines(w)).expect("read");
    assert_eq!(engines.len(), 1, "the worker's engines as before: {engines:?}");
    assert_eq!(f.lease(w, 1, 0).tasks[0].pair_index, 0, "the rolled-back pair is created again");
}
