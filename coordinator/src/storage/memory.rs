//! The in-memory backend: all state behind one mutex. For tests and throwaway local runs.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Mutex, MutexGuard};

use proto::domain::{
    EngineInfo, GameReport, Lease, LeaseId, OpeningSuite, PairReport, PairingStats, Run, RunId, RunSpec, RunState,
    SuiteId, Variant, VariantId, VariantSpec, WorkerId, WorkerInfo,
};

use super::{LeaseTerms, RecordOutcome, Storage, StoredGame, check_state_change, make_task, task_variant_ids};
use crate::error::{Error, Result};
use crate::scheduler::{self, EngineNeed, Pairing, RunLoad};
use crate::{report, spec};

#[derive(Debug, Default)]
pub struct MemoryStorage {
    state: Mutex<State>,
}

impl MemoryStorage {
    pub fn new() -> MemoryStorage {
        MemoryStorage::default()
    }

    fn lock(&self) -> Result<MutexGuard<'_, State>> {
        // A poisoned lock means a panic mid-change: the state may be half updated.
        self.state.lock().map_err(|_| Error::storage("locking the in-memory state", "the lock is poisoned"))
    }
}

#[derive(Debug, Default)]
struct State {
    variants: BTreeMap<VariantId, VariantSpec>,
    suites: BTreeMap<SuiteId, OpeningSuite>,
    runs: BTreeMap<RunId, RunRecord>,
    workers: BTreeMap<WorkerId, WorkerRecord>,
    /// Worker ids by the digest of their key (`spec::worker_key_digest`).
    worker_keys: HashMap<String, WorkerId>,
    leases: BTreeMap<LeaseId, LeaseRecord>,
    /// Accepted pair count by (lease, sequence number).
    submissions: HashMap<(LeaseId, u64), usize>,
    last_game_id: u64,
}

#[derive(Debug)]
struct RunRecord {
    run: Run,
    pairings: Vec<Pairing>,
    suite_len: usize,
    /// Pairs ever created, per pairing.
    allocated: Vec<u64>,
    next_pair_index: u64,
    pairs: BTreeMap<u64, PairRecord>,
    pooled: BTreeSet<u64>,
    in_flight: u64,
    games: Vec<StoredGame>,
    exported_up_to: u64,
    /// The external engines the run's variants name, pinned as leased.
    engines: Vec<EngineNeed>,
}

#[derive(Debug)]
struct PairRecord {
    pairing: u32,
    opening_index: u32,
    /// The lease holding the pair while it is leased.
    holder: Option<LeaseId>,
    done: bool,
}

#[derive(Debug)]
struct WorkerRecord {
    info: WorkerInfo,
    last_seen_ms: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LeaseState {
    Active,
    Closed,
    Expired,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LeasePair {
    Pending,
    Finished,
    Returned,
}

#[derive(Debug)]
struct LeaseRecord {
    worker: WorkerId,
    run: RunId,
    state: LeaseState,
    deadline_ms: u64,
    duration_ms: u64,
    pairs: BTreeMap<u64, LeasePair>,
}

fn opening_line(suite: &OpeningSuite, index: u32) -> Result<String> {
    suite
        .openings
        .get(index as usize)
        .cloned()
        .ok_or_else(|| Error::Corrupt(format!("suite {} has no opening {index}", suite.id)))
}

fn next_id<K: Copy + Ord, V>(map: &BTreeMap<K, V>) -> u64
where
    u64: From<K>,
{
    map.last_key_value().map_or(1, |(id, _)| u64::from(*id) + 1)
}

impl State {
    fn run(&self, id: RunId) -> Result<&RunRecord> {
        self.runs.get(&id).ok_or(Error::RunNotFound(id))
    }

    fn run_mut(&mut self, id: RunId) -> Result<&mut RunRecord> {
        self.runs.get_mut(&id).ok_or(Error::RunNotFound(id))
    }

    /// Ends an active lease: its pending pairs go back to the pool.
    fn end_lease(&mut self, lease_id: LeaseId, state: LeaseState) -> Result<usize> {
        let lease = self.leases.get_mut(&lease_id).ok_or(Error::LeaseNotFound(lease_id))?;
        lease.state = state;
        let run = self.runs.get_mut(&lease.run).ok_or(Error::RunNotFound(lease.run))?;
        let mut returned = 0;
        for (&index, status) in lease.pairs.iter_mut().filter(|(_, s)| **s == LeasePair::Pending) {
            let pair = run
                .pairs
                .get_mut(&index)
                .ok_or_else(|| Error::Corrupt(format!("lease {lease_id} holds unknown pair {index}")))?;
            *status = LeasePair::Returned;
            if pair.holder == Some(lease_id) && !pair.done {
                pair.holder = None;
                run.pooled.insert(index);
                run.in_flight = run.in_flight.saturating_sub(1);
                returned += 1;
            }
        }
        Ok(returned)
    }

    fn expire(&mut self, now_ms: u64) -> Result<usize> {
        let overdue: Vec<LeaseId> = self
            .leases
            .iter()
            .filter(|(_, l)| l.state == LeaseState::Active && scheduler::is_expired(l.deadline_ms, now_ms))
            .map(|(&id, _)| id)
            .collect();
        for &lease in &overdue {
            let returned = self.end_lease(lease, LeaseState::Expired)?;
            tracing::info!(lease = %lease, returned, "lease expired");
        }
        Ok(overdue.len())
    }

    fn owned_lease(&mut self, worker: WorkerId, lease: LeaseId) -> Result<&mut LeaseRecord> {
        let record = self.leases.get_mut(&lease).ok_or(Error::LeaseNotFound(lease))?;
        if record.worker != worker {
            return Err(Error::LeaseNotOwned { lease, worker });
        }
        Ok(record)
    }
}

impl Storage for MemoryStorage {
    fn add_variant(&self, variant: &VariantSpec) -> Result<Variant> {
        spec::validate_variant_spec(variant)?;
        let id = spec::variant_id(variant);
        self.lock()?.variants.entry(id.clone()).or_insert_with(|| variant.clone());
        Ok(Variant { id, spec: variant.clone() })
    }

    fn get_variant(&self, id: &VariantId) -> Result<Variant> {
        let state = self.lock()?;
        let spec = state.variants.get(id).ok_or_else(|| Error::VariantNotFound(id.clone()))?;
        Ok(Variant { id: id.clone(), spec: spec.clone() })
    }

    fn add_openings(&self, name: &str, lines: &[String]) -> Result<OpeningSuite> {
        spec::validate_suite(name, lines)?;
        let mut state = self.lock()?;
        let id = SuiteId::new(next_id(&state.suites));
        let suite = OpeningSuite { id, name: name.into(), openings: lines.to_vec() };
        state.suites.insert(id, suite.clone());
        Ok(suite)
    }

    fn get_suite(&self, id: SuiteId) -> Result<OpeningSuite> {
        self.lock()?.suites.get(&id).cloned().ok_or(Error::SuiteNotFound(id))
    }

    fn create_run(&self, run_spec: &RunSpec, now_ms: u64) -> Result<Run> {
        spec::validate_run_spec(run_spec)?;
        let mut state = self.lock()?;
        if let Some(missing) = run_spec.variants.iter().find(|v| !state.variants.contains_key(*v)) {
            return Err(Error::VariantNotFound(missing.clone()));
        }
        let suite_len =
            state.suites.get(&run_spec.openings).ok_or(Error::SuiteNotFound(run_spec.openings))?.openings.len();
        let pairings = scheduler::pairings(run_spec);
        let engines = scheduler::engine_needs(run_spec.variants.iter().filter_map(|v| state.variants.get(v)));
        let id = RunId::new(next_id(&state.runs));
        let run = Run {
            id,
            spec: run_spec.clone(),
            state: RunState::Active,
            stats: vec![PairingStats::default(); pairings.len()],
            created_unix_ms: now_ms,
        };
        state.runs.insert(
            id,
            RunRecord {
                run: run.clone(),
                allocated: vec![0; pairings.len()],
                pairings,
                suite_len,
                next_pair_index: 0,
                pairs: BTreeMap::new(),
                pooled: BTreeSet::new(),
                in_flight: 0,
                games: Vec::new(),
                exported_up_to: 0,
                engines,
            },
        );
        tracing::info!(run = %id, name = %run_spec.name, "run created");
        Ok(run)
    }

    fn get_run(&self, id: RunId) -> Result<Run> {
        Ok(self.lock()?.run(id)?.run.clone())
    }

    fn list_runs(&self) -> Result<Vec<Run>> {
        Ok(self.lock()?.runs.values().map(|r| r.run.clone()).collect())
    }

    fn set_run_state(&self, id: RunId, new_state: RunState) -> Result<Run> {
        let mut state = self.lock()?;
        let record = state.run_mut(id)?;
        check_state_change(&record.run, &new_state)?;
        record.run.state = new_state;
        tracing::info!(run = %id, state = ?record.run.state, "run state set");
        Ok(record.run.clone())
    }

    fn register_worker(&self, info: &WorkerInfo, now_ms: u64) -> Result<WorkerId> {
        spec::validate_worker_info(info)?;
        let mut state = self.lock()?;
        let key = spec::worker_key_digest(&info.worker_key);
        let known = key.as_ref().and_then(|k| state.worker_keys.get(k).copied());
        let id = known.unwrap_or_else(|| WorkerId::new(next_id(&state.workers)));
        state.workers.insert(id, WorkerRecord { info: info.clone(), last_seen_ms: now_ms });
        if let Some(k) = key {
            state.worker_keys.insert(k, id);
        }
        tracing::info!(worker = %id, name = %info.name, again = known.is_some(), "worker registered");
        Ok(id)
    }

    fn lease_batch(&self, worker: WorkerId, free_slots: u32, now_ms: u64) -> Result<Option<Lease>> {
        let mut guard = self.lock()?;
        let state = &mut *guard;
        state.expire(now_ms)?;
        let record = state.workers.get_mut(&worker).ok_or(Error::WorkerNotFound(worker))?;
        record.last_seen_ms = now_ms;
        let signature = record.info.bench_signature;
        let worker_engines = record.info.engines.clone();
        if free_slots == 0 {
            return Ok(None);
        }
        let loads: Vec<RunLoad> = state
            .runs
            .values()
            .filter(|r| r.run.state == RunState::Active && r.run.spec.bench_signature.is_none_or(|s| s == signature))
            .map(|r| RunLoad {
                run: r.run.id,
                requeued: r.pooled.len() as u64,
                in_flight: r.in_flight,
                unallocated: scheduler::pairs_per_pairing(&r.run.spec.kind)
                    .map(|t| t.saturating_mul(r.pairings.len() as u64).saturating_sub(r.allocated.iter().sum())),
                engines: r.engines.clone(),
            })
            .collect();
        let Some(run_id) = scheduler::choose_run(&loads, &worker_engines) else {
            return Ok(None);
        };
        let lease_id = LeaseId::new(next_id(&state.leases));
        let run = state.runs.get_mut(&run_id).ok_or(Error::RunNotFound(run_id))?;
        let suite = state.suites.get(&run.run.spec.openings).ok_or(Error::SuiteNotFound(run.run.spec.openings))?;
        let tc = run.run.spec.tc;
        let batch = scheduler::batch_pairs(tc, free_slots);
        let pooled: Vec<u64> = run.pooled.iter().take(batch).copied().collect();
        let target = scheduler::pairs_per_pairing(&run.run.spec.kind);
        let plan = scheduler::plan_batch(&pooled, &run.allocated, target, run.next_pair_index, batch);
        if plan.is_empty() {
            return Ok(None);
        }
        for pin in scheduler::new_pins(&run.engines, &worker_engines) {
            if let Some(need) = run.engines.iter_mut().find(|n| n.name == pin.name) {
                need.pinned_sha256 = Some(pin.sha256.clone());
                tracing::info!(run = %run_id, engine = %pin.name, sha256 = %pin.sha256, "engine pinned");
            }
        }
        let mut tasks = Vec::with_capacity(plan.len());
        for &index in &plan.requeued {
            let pair =
                run.pairs.get_mut(&index).ok_or_else(|| Error::Corrupt(format!("pooled pair {index} unknown")))?;
            pair.holder = Some(lease_id);
            run.pooled.remove(&index);
            let opening = opening_line(suite, pair.opening_index)?;
            tasks.push(make_task(&run.run.spec, &run.pairings, index, pair.pairing, pair.opening_index, opening)?);
        }
        for new in &plan.fresh {
            let opening_index = scheduler::opening_for_pair(run_id, new.pair_index, run.suite_len);
            run.pairs.insert(
                new.pair_index,
                PairRecord { pairing: new.pairing, opening_index, holder: Some(lease_id), done: false },
            );
            if let Some(count) = run.allocated.get_mut(new.pairing as usize) {
                *count += 1;
            }
            run.next_pair_index = new.pair_index + 1;
            let opening = opening_line(suite, opening_index)?;
            tasks.push(make_task(&run.run.spec, &run.pairings, new.pair_index, new.pairing, opening_index, opening)?);
        }
        run.in_flight += plan.len() as u64;
        let duration_ms = scheduler::LEASE_TIMEOUT_MS;
        let deadline_ms = now_ms.saturating_add(duration_ms);
        state.leases.insert(
            lease_id,
            LeaseRecord {
                worker,
                run: run_id,
                state: LeaseState::Active,
                deadline_ms,
                duration_ms,
                pairs: tasks.iter().map(|t| (t.pair_index, LeasePair::Pending)).collect(),
            },
        );
        let variants = task_variant_ids(&tasks)
            .into_iter()
            .map(|id| {
                let spec = state.variants.get(&id).cloned().ok_or_else(|| Error::VariantNotFound(id.clone()))?;
                Ok(Variant { id, spec })
            })
            .collect::<Result<Vec<_>>>()?;
        let spec = &run.run.spec;
        tracing::debug!(lease = %lease_id, run = %run_id, worker = %worker, pairs = tasks.len(), "lease granted");
        Ok(Some(Lease {
            id: lease_id,
            run: run_id,
            tasks,
            deadline_unix_ms: deadline_ms,
            tc,
            adjudication: spec.adjudication,
            sample_every: spec.sample_every,
            variants,
        }))
    }

    fn lease_terms(&self, lease_id: LeaseId) -> Result<LeaseTerms> {
        let state = self.lock()?;
        let lease = state.leases.get(&lease_id).ok_or(Error::LeaseNotFound(lease_id))?;
        let run = state.run(lease.run)?;
        let spec = &run.run.spec;
        let suite = state.suites.get(&spec.openings).ok_or(Error::SuiteNotFound(spec.openings))?;
        let tasks = lease
            .pairs
            .keys()
            .map(|&index| {
                let pair =
                    run.pairs.get(&index).ok_or_else(|| Error::Corrupt(format!("leased pair {index} unknown")))?;
                let line = opening_line(suite, pair.opening_index)?;
                make_task(spec, &run.pairings, index, pair.pairing, pair.opening_index, line)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(LeaseTerms {
            lease: lease_id,
            run: lease.run,
            tc: spec.tc,
            adjudication: spec.adjudication,
            sample_every: spec.sample_every,
            tasks,
        })
    }

    fn record_results(
        &self,
        worker: WorkerId,
        lease_id: LeaseId,
        seq: u64,
        pairs: &[PairReport],
        final_batch: bool,
        now_ms: u64,
    ) -> Result<RecordOutcome> {
        let mut guard = self.lock()?;
        let state = &mut *guard;
        let lease = state.owned_lease(worker, lease_id)?;
        let run_id = lease.run;
        if state.submissions.contains_key(&(lease_id, seq)) {
            return Ok(RecordOutcome { run: run_id, accepted: 0, duplicate: true });
        }
        // Check everything before changing anything: a bad pair rejects the whole submission.
        let lease = &state.leases[&lease_id];
        let run = state.run(run_id)?;
        for report in pairs {
            if !lease.pairs.contains_key(&report.pair_index) {
                return Err(Error::invalid_report(lease_id, report.pair_index, "the pair is not part of this lease"));
            }
            if !run.pairs.contains_key(&report.pair_index) {
                return Err(Error::Corrupt(format!("leased pair {} unknown", report.pair_index)));
            }
        }
        let worker_name =
            state.workers.get(&worker).map(|w| w.info.name.clone()).ok_or(Error::WorkerNotFound(worker))?;
        if let Some(w) = state.workers.get_mut(&worker) {
            w.last_seen_ms = now_ms;
        }

        let run = state.runs.get_mut(&run_id).ok_or(Error::RunNotFound(run_id))?;
        let mut accepted = 0;
        for report in pairs {
            let Some(pair) = run.pairs.get_mut(&report.pair_index) else {
                continue;
            };
            if pair.done {
                continue;
            }
            pair.done = true;
            if let Some(holder) = pair.holder.take() {
                run.in_flight = run.in_flight.saturating_sub(1);
                if let Some(status) = state.leases.get_mut(&holder).and_then(|l| l.pairs.get_mut(&report.pair_index)) {
                    *status = LeasePair::Finished;
                }
            } else {
                run.pooled.remove(&report.pair_index);
            }
            if let Some(status) = state.leases.get_mut(&lease_id).and_then(|l| l.pairs.get_mut(&report.pair_index)) {
                *status = LeasePair::Finished;
            }
            if let Some(stats) = run.run.stats.get_mut(pair.pairing as usize) {
                report::tally(stats, report);
            }
            for (game_in_pair, game) in (0u8..).zip(report.games.iter()) {
                state.last_game_id += 1;
                run.games.push(StoredGame {
                    game_id: state.last_game_id,
                    run: run_id,
                    pair_index: report.pair_index,
                    game_in_pair,
                    opening_index: pair.opening_index,
                    worker: worker_name.clone(),
                    // What SQLite keeps, so both backends read the same games back.
                    report: GameReport { move_stats: Vec::new(), forfeit: None, ..game.clone() },
                });
            }
            accepted += 1;
        }
        if run.run.state == RunState::Active && scheduler::is_complete(&run.run.spec.kind, &run.run.stats) {
            run.run.state = RunState::Completed;
            tracing::info!(run = %run_id, "run completed");
        }

        let lease = state.leases.get_mut(&lease_id).ok_or(Error::LeaseNotFound(lease_id))?;
        if lease.state == LeaseState::Active {
            if final_batch || lease.pairs.values().all(|s| *s != LeasePair::Pending) {
                state.end_lease(lease_id, LeaseState::Closed)?;
            } else {
                lease.deadline_ms = lease.deadline_ms.max(now_ms.saturating_add(lease.duration_ms));
            }
        }
        state.submissions.insert((lease_id, seq), accepted);
        tracing::debug!(lease = %lease_id, seq, accepted, "results recorded");
        Ok(RecordOutcome { run: run_id, accepted, duplicate: false })
    }

    fn heartbeat(&self, worker: WorkerId, lease_id: LeaseId, now_ms: u64) -> Result<u64> {
        let mut state = self.lock()?;
        let lease = state.owned_lease(worker, lease_id)?;
        if lease.state != LeaseState::Active {
            return Err(Error::LeaseClosed(lease_id));
        }
        lease.deadline_ms = lease.deadline_ms.max(now_ms.saturating_add(lease.duration_ms));
        let deadline = lease.deadline_ms;
        if let Some(w) = state.workers.get_mut(&worker) {
            w.last_seen_ms = now_ms;
        }
        Ok(deadline)
    }

    fn expire_leases(&self, now_ms: u64) -> Result<usize> {
        self.lock()?.expire(now_ms)
    }

    fn games_since(&self, run: RunId, after_game_id: u64, limit: usize) -> Result<Vec<StoredGame>> {
        let state = self.lock()?;
        let games = &state.run(run)?.games;
        let start = games.partition_point(|g| g.game_id <= after_game_id);
        Ok(games[start..].iter().take(limit).cloned().collect())
    }

    fn mark_exported(&self, run: RunId, up_to_game_id: u64) -> Result<()> {
        let mut state = self.lock()?;
        let record = state.run_mut(run)?;
        record.exported_up_to = record.exported_up_to.max(up_to_game_id);
        Ok(())
    }

    fn exported_up_to(&self, run: RunId) -> Result<u64> {
        Ok(self.lock()?.run(run)?.exported_up_to)
    }

    fn run_engines(&self, run: RunId) -> Result<Vec<EngineNeed>> {
        Ok(self.lock()?.run(run)?.engines.clone())
    }

    fn connected_engines(&self, since_ms: u64) -> Result<Vec<Vec<EngineInfo>>> {
        let state = self.lock()?;
        Ok(state
            .workers
            .values()
            .filter(|w| w.last_seen_ms >= since_ms && !w.info.engines.is_empty())
            .map(|w| w.info.engines.clone())
            .collect())
    }
}
