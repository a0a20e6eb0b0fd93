//! The in-memory backend: all state behind one mutex, each transaction holding it. For tests
//! and throwaway local runs. A write transaction keeps an undo journal and plays it back when
//! its closure fails, so that it happens completely or not at all, as in SQLite.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use engine::nnue::NetworkId;

use proto::domain::{
    EngineInfo, GameReport, LeaseId, OpeningSuite, OpeningSuiteSummary, PairingStats, Run, RunId, RunKind, RunSpec,
    RunState, SuiteId, TablePin, Termination, Variant, VariantId, VariantSpec, WorkerId, WorkerInfo,
};

use super::tx::{
    Allocation, Backend, GameEnds, LeasePair, LeasePairStatus, LeaseRow, LeaseState, NewGame, NewLease, PairResult,
    PairRow, PairStatus, PairTally, Tx, WorkerBench, WorkerSummary,
};
use super::{GameSummary, StoredGame};
use crate::error::{Error, Result};
use crate::scheduler::{self, EngineNeed, NewPair, PairPlan, RunLoad};
use crate::spsa::{HistoryPoint, Perturbation};
use proto::domain::{ByeSlot, Match, MatchRow};

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

impl Backend for MemoryStorage {
    fn write<T, F>(&self, _context: &'static str, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&mut dyn Tx) -> Result<T> + Send + 'static,
    {
        let mut guard = self.lock()?;
        let mut tx = MemoryTx { state: &mut guard, undo: Vec::new() };
        let out = f(&mut tx);
        if out.is_err() {
            let MemoryTx { state, undo } = tx;
            for step in undo.into_iter().rev() {
                step(state);
            }
        }
        out
    }

    fn read<T, F>(&self, context: &'static str, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&mut dyn Tx) -> Result<T> + Send + 'static,
    {
        // One lock for both: a read sees no transaction half done.
        self.write(context, f)
    }
}

#[derive(Debug, Default)]
struct State {
    variants: BTreeMap<VariantId, VariantSpec>,
    /// Network files by their SHA-256.
    networks: BTreeMap<NetworkId, Arc<[u8]>>,
    suites: BTreeMap<SuiteId, OpeningSuite>,
    runs: BTreeMap<RunId, RunRow>,
    pairs: BTreeMap<(RunId, u64), PairRow>,
    /// The pooled pairs: an index of `pairs`.
    pooled: BTreeSet<(RunId, u64)>,
    /// The lease each pair is pending in: an index of `lease_pairs`.
    holders: HashMap<(RunId, u64), LeaseId>,
    workers: BTreeMap<WorkerId, WorkerRow>,
    /// Worker ids by the digest of their key.
    worker_keys: HashMap<String, WorkerId>,
    leases: BTreeMap<LeaseId, LeaseRow>,
    lease_pairs: BTreeMap<(LeaseId, u64), LeasePairStatus>,
    /// Accepted pair count and time received by (lease, sequence number).
    submissions: HashMap<(LeaseId, u64), (usize, u64)>,
    games: BTreeMap<(RunId, u64), GameRow>,
    /// The run of each game: an index of `games`.
    game_runs: BTreeMap<u64, RunId>,
    last_game_id: u64,
    /// The iteration and perturbation of each SPSA lease.
    spsa_leases: BTreeMap<LeaseId, (u64, Vec<Perturbation>)>,
}

#[derive(Clone, Debug)]
struct RunRow {
    spec: Arc<RunSpec>,
    state: RunState,
    created_ms: u64,
    stats: Vec<PairingStats>,
    allocation: Allocation,
    /// Pairs leased now: a count of `pairs`.
    leased: u64,
    exported_up_to: u64,
    /// The engines the run's variants name, by name, pinned as leased.
    engines: Vec<EngineNeed>,
    /// The endgame tables it pinned, in set order.
    tablebases: Vec<TablePin>,
    /// SPSA runs: the current values (none before they are set) and their history.
    spsa_theta: Option<Vec<f64>>,
    spsa_history: Vec<HistoryPoint>,
    /// Tournaments: the matches drawn (one per pairing, in order) and the byes.
    matches: Vec<MatchRow>,
    byes: Vec<ByeSlot>,
}

#[derive(Clone, Debug)]
struct WorkerRow {
    info: WorkerInfo,
    last_seen_ms: u64,
    /// What it advertised, by name (not `info.engines`: see [`Tx::store_worker_engines`]).
    engines: Vec<EngineInfo>,
}

#[derive(Clone, Debug)]
struct GameRow {
    pair_index: u64,
    game_in_pair: u8,
    opening_index: u32,
    pairing: u32,
    worker: WorkerId,
    report: GameReport,
}

fn next_id<K: Copy + Ord, V>(map: &BTreeMap<K, V>) -> u64
where
    u64: From<K>,
{
    map.last_key_value().map_or(1, |(id, _)| u64::from(*id) + 1)
}

impl State {
    fn run_row(&mut self, id: RunId) -> Result<&mut RunRow> {
        self.runs.get_mut(&id).ok_or(Error::RunNotFound(id))
    }

    /// A run's games, in id order.
    fn run_games(&self, run: RunId) -> impl Iterator<Item = (u64, &GameRow)> {
        self.games.range((run, 0)..=(run, u64::MAX)).map(|(&(_, id), g)| (id, g))
    }

    fn worker_name(&self, worker: WorkerId) -> Result<String> {
        Ok(self.workers.get(&worker).ok_or(Error::WorkerNotFound(worker))?.info.name.clone())
    }

    fn stored_game(&self, run: RunId, game_id: u64, g: &GameRow) -> Result<StoredGame> {
        Ok(StoredGame {
            game_id,
            run,
            pair_index: g.pair_index,
            pairing: g.pairing,
            game_in_pair: g.game_in_pair,
            opening_index: g.opening_index,
            worker: self.worker_name(g.worker)?,
            report: g.report.clone(),
        })
    }

    /// Sets or removes a pair, keeping the pool index and the run's leased count.
    fn put_pair(&mut self, key: (RunId, u64), row: Option<PairRow>) {
        let old = match row {
            Some(row) => self.pairs.insert(key, row),
            None => self.pairs.remove(&key),
        };
        let leased = |r: Option<PairRow>| u64::from(r.is_some_and(|r| r.status == PairStatus::Leased));
        if let Some(run) = self.runs.get_mut(&key.0) {
            run.leased = (run.leased + leased(row)).saturating_sub(leased(old));
        }
        if row.is_some_and(|r| r.status == PairStatus::Pooled) {
            self.pooled.insert(key);
        } else {
            self.pooled.remove(&key);
        }
    }

    /// Sets or removes a lease's pair, keeping the holder index.
    fn put_lease_pair(&mut self, lease: LeaseId, run: RunId, index: u64, status: Option<LeasePairStatus>) {
        match status {
            Some(status) => self.lease_pairs.insert((lease, index), status),
            None => self.lease_pairs.remove(&(lease, index)),
        };
        if status == Some(LeasePairStatus::Pending) {
            self.holders.insert((run, index), lease);
        } else if self.holders.get(&(run, index)) == Some(&lease) {
            self.holders.remove(&(run, index));
        }
    }
}

type Undo = Box<dyn FnOnce(&mut State)>;

struct MemoryTx<'a> {
    state: &'a mut State,
    undo: Vec<Undo>,
}

impl MemoryTx<'_> {
    fn journal(&mut self, step: impl FnOnce(&mut State) + 'static) {
        self.undo.push(Box::new(step));
    }

    /// Journals the run's row as it is now, to restore it on rollback.
    fn save_run(&mut self, id: RunId) -> Result<&mut RunRow> {
        let saved = self.state.run_row(id)?.clone();
        self.journal(move |s| {
            s.runs.insert(id, saved);
        });
        self.state.run_row(id)
    }

    fn lease_row(&mut self, id: LeaseId) -> Result<&mut LeaseRow> {
        self.state.leases.get_mut(&id).ok_or(Error::LeaseNotFound(id))
    }

    fn save_lease(&mut self, id: LeaseId) -> Result<&mut LeaseRow> {
        let saved = *self.lease_row(id)?;
        self.journal(move |s| {
            s.leases.insert(id, saved);
        });
        self.lease_row(id)
    }

    fn pair_row(&self, run: RunId, index: u64) -> Result<PairRow> {
        self.state
            .pairs
            .get(&(run, index))
            .copied()
            .ok_or_else(|| Error::Corrupt(format!("run {run} has no pair {index}")))
    }
}

impl Tx for MemoryTx<'_> {
    fn insert_variant(&mut self, variant: &Variant) -> Result<()> {
        if !self.state.variants.contains_key(&variant.id) {
            self.state.variants.insert(variant.id.clone(), variant.spec.clone());
            let id = variant.id.clone();
            self.journal(move |s| {
                s.variants.remove(&id);
            });
        }
        Ok(())
    }

    fn variant(&mut self, id: &VariantId) -> Result<Variant> {
        let spec = self.state.variants.get(id).ok_or_else(|| Error::VariantNotFound(id.clone()))?;
        Ok(Variant { id: id.clone(), spec: spec.clone() })
    }

    fn variant_exists(&mut self, id: &VariantId) -> Result<bool> {
        Ok(self.state.variants.contains_key(id))
    }

    fn insert_network(&mut self, id: NetworkId, bytes: &[u8], _now_ms: u64) -> Result<()> {
        if let std::collections::btree_map::Entry::Vacant(slot) = self.state.networks.entry(id) {
            slot.insert(bytes.into());
            self.journal(move |s| {
                s.networks.remove(&id);
            });
        }
        Ok(())
    }

    fn network(&mut self, id: NetworkId) -> Result<Option<Vec<u8>>> {
        Ok(self.state.networks.get(&id).map(|bytes| bytes.to_vec()))
    }

    fn network_exists(&mut self, id: NetworkId) -> Result<bool> {
        Ok(self.state.networks.contains_key(&id))
    }

    fn insert_suite(&mut self, name: &str, lines: &[String]) -> Result<SuiteId> {
        let id = SuiteId::new(next_id(&self.state.suites));
        self.state.suites.insert(id, OpeningSuite { id, name: name.into(), openings: lines.to_vec() });
        self.journal(move |s| {
            s.suites.remove(&id);
        });
        Ok(id)
    }

    fn suite(&mut self, id: SuiteId) -> Result<OpeningSuite> {
        self.state.suites.get(&id).cloned().ok_or(Error::SuiteNotFound(id))
    }

    fn suite_size(&mut self, id: SuiteId) -> Result<usize> {
        Ok(self.state.suites.get(&id).ok_or(Error::SuiteNotFound(id))?.openings.len())
    }

    fn opening(&mut self, suite: SuiteId, index: u32) -> Result<String> {
        let openings = &self.state.suites.get(&suite).ok_or(Error::SuiteNotFound(suite))?.openings;
        openings
            .get(index as usize)
            .cloned()
            .ok_or_else(|| Error::Corrupt(format!("suite {suite} has no opening {index}")))
    }

    fn variants(&mut self) -> Result<Vec<Variant>> {
        Ok(self.state.variants.iter().map(|(id, spec)| Variant { id: id.clone(), spec: spec.clone() }).collect())
    }

    fn suite_summaries(&mut self) -> Result<Vec<OpeningSuiteSummary>> {
        self.state
            .suites
            .values()
            .map(|s| {
                let openings = u32::try_from(s.openings.len())
                    .map_err(|_| Error::Corrupt(format!("suite {} holds {} openings", s.id, s.openings.len())))?;
                Ok(OpeningSuiteSummary { id: s.id, name: s.name.clone(), openings })
            })
            .collect()
    }

    fn insert_run(&mut self, spec: &RunSpec, pairings: usize, now_ms: u64) -> Result<RunId> {
        let id = RunId::new(next_id(&self.state.runs));
        let row = RunRow {
            spec: Arc::new(spec.clone()),
            state: RunState::Active,
            created_ms: now_ms,
            stats: vec![PairingStats::default(); pairings],
            allocation: Allocation { next_pair_index: 0, allocated: vec![0; pairings] },
            leased: 0,
            exported_up_to: 0,
            engines: Vec::new(),
            tablebases: Vec::new(),
            spsa_theta: None,
            spsa_history: Vec::new(),
            matches: Vec::new(),
            byes: Vec::new(),
        };
        self.state.runs.insert(id, row);
        self.journal(move |s| {
            s.runs.remove(&id);
        });
        Ok(id)
    }

    fn run(&mut self, id: RunId) -> Result<Run> {
        let row = self.state.run_row(id)?;
        Ok(Run {
            id,
            spec: RunSpec::clone(&row.spec),
            state: row.state.clone(),
            stats: row.stats.clone(),
            created_unix_ms: row.created_ms,
            tablebases: row.tablebases.clone(),
        })
    }

    fn run_ids(&mut self) -> Result<Vec<RunId>> {
        Ok(self.state.runs.keys().copied().collect())
    }

    fn run_spec(&mut self, id: RunId) -> Result<Arc<RunSpec>> {
        Ok(Arc::clone(&self.state.run_row(id)?.spec))
    }

    fn run_state(&mut self, id: RunId) -> Result<RunState> {
        Ok(self.state.run_row(id)?.state.clone())
    }

    fn set_run_state(&mut self, id: RunId, state: &RunState) -> Result<()> {
        self.save_run(id)?.state = state.clone();
        Ok(())
    }

    fn run_stats(&mut self, id: RunId) -> Result<Vec<PairingStats>> {
        Ok(self.state.run_row(id)?.stats.clone())
    }

    fn add_stats(&mut self, run: RunId, pairing: u32, delta: &PairingStats) -> Result<()> {
        let row = self.save_run(run)?;
        let stats = row
            .stats
            .get_mut(pairing as usize)
            .ok_or_else(|| Error::Corrupt(format!("run {run} has no pairing {pairing}")))?;
        for (total, d) in stats.pentanomial.iter_mut().zip(delta.pentanomial) {
            *total += d;
        }
        stats.wins += delta.wins;
        stats.draws += delta.draws;
        stats.losses += delta.losses;
        Ok(())
    }

    fn active_run_loads(&mut self, bench_signature: Option<u64>) -> Result<Vec<RunLoad>> {
        let state = &*self.state;
        Ok(state
            .runs
            .iter()
            .filter(|(_, r)| {
                r.state == RunState::Active
                    && bench_signature.is_none_or(|b| r.spec.bench_signature.is_none_or(|s| s == b))
            })
            .map(|(&run, r)| RunLoad {
                run,
                requeued: state.pooled.range((run, 0)..=(run, u64::MAX)).count() as u64,
                in_flight: r.leased,
                allocated: r.allocation.allocated.clone(),
                next_pair_index: r.allocation.next_pair_index,
                plan: match r.spec.kind {
                    RunKind::Tournament(_) => PairPlan::Total(r.matches.iter().map(|m| m.m.pairs).sum()),
                    _ => scheduler::pairs_per_pairing(&r.spec.kind).map_or(PairPlan::Unbounded, PairPlan::PerPairing),
                },
                engines: r.engines.clone(),
            })
            .collect())
    }

    fn allocation(&mut self, run: RunId) -> Result<Allocation> {
        Ok(self.state.run_row(run)?.allocation.clone())
    }

    fn exported_up_to(&mut self, run: RunId) -> Result<u64> {
        Ok(self.state.run_row(run)?.exported_up_to)
    }

    fn set_spsa_theta(&mut self, run: RunId, theta: &[f64]) -> Result<()> {
        self.save_run(run)?.spsa_theta = Some(theta.to_vec());
        Ok(())
    }

    fn spsa_theta(&mut self, run: RunId) -> Result<Vec<f64>> {
        self.state
            .run_row(run)?
            .spsa_theta
            .clone()
            .ok_or_else(|| Error::Corrupt(format!("SPSA run {run} has no values")))
    }

    fn insert_spsa_history(&mut self, run: RunId, point: &HistoryPoint) -> Result<()> {
        let history = &mut self.save_run(run)?.spsa_history;
        if history.iter().any(|p| p.iteration == point.iteration) {
            return Err(Error::storage("recording an SPSA run's history", "an iteration recorded twice"));
        }
        history.push(point.clone());
        history.sort_by_key(|p| p.iteration);
        Ok(())
    }

    fn spsa_history(&mut self, run: RunId) -> Result<Vec<HistoryPoint>> {
        Ok(self.state.run_row(run)?.spsa_history.clone())
    }

    fn insert_spsa_lease(&mut self, lease: LeaseId, iteration: u64, perturbations: &[Perturbation]) -> Result<()> {
        self.lease_row(lease)?;
        if self.state.spsa_leases.contains_key(&lease) {
            return Err(Error::storage("storing a lease's SPSA perturbation", "the lease has one"));
        }
        self.state.spsa_leases.insert(lease, (iteration, perturbations.to_vec()));
        self.journal(move |s| {
            s.spsa_leases.remove(&lease);
        });
        Ok(())
    }

    fn spsa_lease(&mut self, lease: LeaseId) -> Result<Option<(u64, Vec<Perturbation>)>> {
        Ok(self.state.spsa_leases.get(&lease).cloned())
    }

    fn insert_match(&mut self, run: RunId, m: &Match) -> Result<u32> {
        let row = self.save_run(run)?;
        let pairing = u32::try_from(row.stats.len()).map_err(|_| Error::Corrupt(format!("run {run}: pairings")))?;
        row.stats.push(PairingStats::default());
        row.allocation.allocated.push(0);
        row.matches.push(MatchRow { pairing, m: *m, armageddon_red_points: None });
        Ok(pairing)
    }

    fn matches(&mut self, run: RunId) -> Result<Vec<MatchRow>> {
        Ok(self.state.run_row(run)?.matches.clone())
    }

    fn insert_bye(&mut self, run: RunId, bye: &ByeSlot) -> Result<()> {
        let byes = &mut self.save_run(run)?.byes;
        byes.push(*bye);
        byes.sort_by_key(|b| (b.round, b.slot));
        Ok(())
    }

    fn byes(&mut self, run: RunId) -> Result<Vec<ByeSlot>> {
        Ok(self.state.run_row(run)?.byes.clone())
    }

    fn set_armageddon_result(&mut self, run: RunId, pairing: u32, red_points: u32) -> Result<()> {
        let row = self.save_run(run)?;
        let m = row
            .matches
            .iter_mut()
            .find(|m| m.pairing == pairing)
            .ok_or_else(|| Error::Corrupt(format!("run {run} has no match {pairing}")))?;
        m.armageddon_red_points = Some(red_points);
        Ok(())
    }

    fn set_exported_up_to(&mut self, run: RunId, game_id: u64) -> Result<()> {
        self.save_run(run)?.exported_up_to = game_id;
        Ok(())
    }

    fn insert_run_tablebases(&mut self, run: RunId, pins: &[TablePin]) -> Result<()> {
        let stored = &mut self.save_run(run)?.tablebases;
        for pin in pins {
            if stored.iter().any(|p| p.set == pin.set) {
                return Err(Error::Corrupt(format!("run {run} pins set {} twice", pin.set)));
            }
            stored.push(pin.clone());
        }
        stored.sort();
        Ok(())
    }

    fn run_tablebases(&mut self, run: RunId) -> Result<Vec<TablePin>> {
        Ok(self.state.run_row(run)?.tablebases.clone())
    }

    fn insert_run_engines(&mut self, run: RunId, needs: &[EngineNeed]) -> Result<()> {
        let engines = &mut self.save_run(run)?.engines;
        for need in needs {
            if engines.iter().any(|n| n.name == need.name) {
                return Err(Error::Corrupt(format!("run {run} needs engine {} twice", need.name)));
            }
            engines.push(need.clone());
        }
        engines.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(())
    }

    fn run_engine_needs(&mut self, run: RunId) -> Result<Vec<EngineNeed>> {
        Ok(self.state.runs.get(&run).map(|r| r.engines.clone()).unwrap_or_default())
    }

    fn pin_engine(&mut self, run: RunId, engine: &EngineInfo) -> Result<()> {
        let unpinned = |r: &RunRow| r.engines.iter().any(|n| n.name == engine.name && n.pinned_sha256.is_none());
        if self.state.runs.get(&run).is_some_and(unpinned) {
            let need = self.save_run(run)?.engines.iter_mut().find(|n| n.name == engine.name);
            if let Some(need) = need {
                need.pinned_sha256 = Some(engine.sha256.clone());
            }
        }
        Ok(())
    }

    fn store_worker_engines(&mut self, worker: WorkerId, engines: &[EngineInfo]) -> Result<()> {
        let row = self.state.workers.get_mut(&worker).ok_or(Error::WorkerNotFound(worker))?;
        let mut sorted = engines.to_vec();
        sorted.sort_by(|a, b| a.name.cmp(&b.name));
        if sorted.windows(2).any(|w| w[0].name == w[1].name) {
            return Err(Error::Corrupt(format!("worker {worker} advertised an engine name twice")));
        }
        let old = std::mem::replace(&mut row.engines, sorted);
        self.journal(move |s| {
            if let Some(row) = s.workers.get_mut(&worker) {
                row.engines = old;
            }
        });
        Ok(())
    }

    fn worker_engines(&mut self, worker: WorkerId) -> Result<Vec<EngineInfo>> {
        Ok(self.state.workers.get(&worker).map(|w| w.engines.clone()).unwrap_or_default())
    }

    fn connected_engines(&mut self, since_ms: u64) -> Result<Vec<Vec<EngineInfo>>> {
        Ok(self
            .state
            .workers
            .values()
            .filter(|w| w.last_seen_ms >= since_ms && !w.engines.is_empty())
            .map(|w| w.engines.clone())
            .collect())
    }

    fn pooled_pairs(&mut self, run: RunId, limit: usize) -> Result<Vec<u64>> {
        Ok(self.state.pooled.range((run, 0)..=(run, u64::MAX)).take(limit).map(|&(_, i)| i).collect())
    }

    fn pair(&mut self, run: RunId, index: u64) -> Result<Option<PairRow>> {
        Ok(self.state.pairs.get(&(run, index)).copied())
    }

    fn insert_pair(&mut self, run: RunId, pair: NewPair, opening_index: u32) -> Result<()> {
        let key = (run, pair.pair_index);
        if self.state.pairs.contains_key(&key) {
            return Err(Error::Corrupt(format!("run {run} already has pair {}", pair.pair_index)));
        }
        self.state.run_row(run)?;
        let row = PairRow { pairing: pair.pairing, opening_index, status: PairStatus::Leased };
        self.state.put_pair(key, Some(row));
        self.journal(move |s| s.put_pair(key, None));
        Ok(())
    }

    fn add_allocated(&mut self, run: RunId, pairing: u32, pairs: u64) -> Result<()> {
        let count = self
            .save_run(run)?
            .allocation
            .allocated
            .get_mut(pairing as usize)
            .ok_or_else(|| Error::Corrupt(format!("run {run} has no pairing {pairing}")))?;
        *count += pairs;
        Ok(())
    }

    fn set_next_pair_index(&mut self, run: RunId, next: u64) -> Result<()> {
        self.save_run(run)?.allocation.next_pair_index = next;
        Ok(())
    }

    fn set_pair_status(&mut self, run: RunId, index: u64, status: PairStatus) -> Result<()> {
        let old = self.pair_row(run, index)?;
        self.state.put_pair((run, index), Some(PairRow { status, ..old }));
        self.journal(move |s| s.put_pair((run, index), Some(old)));
        Ok(())
    }

    fn pair_holder(&mut self, run: RunId, index: u64) -> Result<Option<LeaseId>> {
        Ok(self.state.holders.get(&(run, index)).copied())
    }

    fn insert_lease(&mut self, lease: &NewLease) -> Result<LeaseId> {
        let id = LeaseId::new(next_id(&self.state.leases));
        let row = LeaseRow {
            run: lease.run,
            worker: lease.worker,
            state: LeaseState::Active,
            deadline_ms: lease.deadline_ms,
            duration_ms: lease.duration_ms,
            tc_scale: lease.tc_scale,
        };
        self.state.leases.insert(id, row);
        self.journal(move |s| {
            s.leases.remove(&id);
        });
        Ok(id)
    }

    fn lease(&mut self, id: LeaseId) -> Result<LeaseRow> {
        self.lease_row(id).copied()
    }

    fn set_lease_state(&mut self, id: LeaseId, state: LeaseState) -> Result<()> {
        self.save_lease(id)?.state = state;
        Ok(())
    }

    fn set_lease_deadline(&mut self, id: LeaseId, deadline_ms: u64) -> Result<()> {
        self.save_lease(id)?.deadline_ms = deadline_ms;
        Ok(())
    }

    fn overdue_leases(&mut self, now_ms: u64) -> Result<Vec<LeaseId>> {
        Ok(self
            .state
            .leases
            .iter()
            .filter(|(_, l)| l.state == LeaseState::Active && scheduler::is_expired(l.deadline_ms, now_ms))
            .map(|(&id, _)| id)
            .collect())
    }

    fn insert_lease_pair(&mut self, lease: LeaseId, run: RunId, index: u64) -> Result<()> {
        if self.lease_row(lease)?.run != run || !self.state.pairs.contains_key(&(run, index)) {
            return Err(Error::Corrupt(format!("lease {lease} given pair {index} of run {run}")));
        }
        if self.state.lease_pairs.contains_key(&(lease, index)) {
            return Err(Error::Corrupt(format!("lease {lease} given pair {index} twice")));
        }
        self.state.put_lease_pair(lease, run, index, Some(LeasePairStatus::Pending));
        self.journal(move |s| s.put_lease_pair(lease, run, index, None));
        Ok(())
    }

    fn lease_pairs(&mut self, lease: LeaseId) -> Result<Vec<LeasePair>> {
        let run = self.lease_row(lease)?.run;
        let state = &*self.state;
        state
            .lease_pairs
            .range((lease, 0)..=(lease, u64::MAX))
            .map(|(&(_, index), &status)| {
                let pair = state.pairs.get(&(run, index)).copied();
                let pair = pair.ok_or_else(|| Error::Corrupt(format!("run {run} has no pair {index}")))?;
                Ok(LeasePair { index, status, pair })
            })
            .collect()
    }

    fn set_lease_pair_status(&mut self, lease: LeaseId, index: u64, status: LeasePairStatus) -> Result<()> {
        let run = self.lease_row(lease)?.run;
        let old = *self
            .state
            .lease_pairs
            .get(&(lease, index))
            .ok_or_else(|| Error::Corrupt(format!("lease {lease} has no pair {index}")))?;
        self.state.put_lease_pair(lease, run, index, Some(status));
        self.journal(move |s| s.put_lease_pair(lease, run, index, Some(old)));
        Ok(())
    }

    fn submission_seen(&mut self, lease: LeaseId, seq: u64) -> Result<bool> {
        Ok(self.state.submissions.contains_key(&(lease, seq)))
    }

    fn insert_submission(&mut self, lease: LeaseId, seq: u64, accepted: usize, now_ms: u64) -> Result<()> {
        self.lease_row(lease)?;
        if self.state.submissions.insert((lease, seq), (accepted, now_ms)).is_some() {
            return Err(Error::Corrupt(format!("submission {seq} of lease {lease} recorded twice")));
        }
        self.journal(move |s| {
            s.submissions.remove(&(lease, seq));
        });
        Ok(())
    }

    fn insert_game(&mut self, game: NewGame<'_>) -> Result<()> {
        self.state.run_row(game.run)?;
        if !self.state.workers.contains_key(&game.worker) {
            return Err(Error::WorkerNotFound(game.worker));
        }
        let last = self.state.last_game_id;
        let id = last + 1;
        self.state.last_game_id = id;
        let row = GameRow {
            pair_index: game.pair_index,
            game_in_pair: game.game_in_pair,
            opening_index: game.opening_index,
            pairing: game.pairing,
            worker: game.worker,
            // What SQLite keeps, so both backends read the same games back.
            report: GameReport { move_stats: Vec::new(), forfeit: None, ..game.report.clone() },
        };
        let run = game.run;
        self.state.games.insert((run, id), row);
        self.state.game_runs.insert(id, run);
        self.journal(move |s| {
            s.games.remove(&(run, id));
            s.game_runs.remove(&id);
            s.last_game_id = last;
        });
        Ok(())
    }

    fn games_since(&mut self, run: RunId, after_game_id: u64, limit: usize) -> Result<Vec<StoredGame>> {
        self.state.run_row(run)?;
        let state = &*self.state;
        state
            .games
            .range((run, after_game_id.saturating_add(1))..=(run, u64::MAX))
            .take(limit)
            .map(|(&(_, game_id), g)| state.stored_game(run, game_id, g))
            .collect()
    }

    fn game(&mut self, game_id: u64) -> Result<StoredGame> {
        let state = &*self.state;
        let run = *state.game_runs.get(&game_id).ok_or(Error::GameNotFound(game_id))?;
        let row = state.games.get(&(run, game_id)).ok_or(Error::GameNotFound(game_id))?;
        state.stored_game(run, game_id, row)
    }

    fn game_summaries(&mut self, run: RunId, offset: u64, limit: usize) -> Result<Vec<GameSummary>> {
        self.state.run_row(run)?;
        let state = &*self.state;
        state
            .run_games(run)
            .skip(usize::try_from(offset).unwrap_or(usize::MAX))
            .take(limit)
            .map(|(game_id, g)| {
                Ok(GameSummary {
                    game_id,
                    run,
                    pair_index: g.pair_index,
                    game_in_pair: g.game_in_pair,
                    red: g.report.red.clone(),
                    black: g.report.black.clone(),
                    outcome: g.report.outcome,
                    reason: g.report.reason,
                    plies: u32::try_from(g.report.moves.len()).unwrap_or(u32::MAX),
                    worker: state.worker_name(g.worker)?,
                })
            })
            .collect()
    }

    fn pair_results(&mut self, run: RunId) -> Result<Vec<PairResult>> {
        self.state.run_row(run)?;
        // By pair: (first game id, pairing, worker, games, half points).
        let mut pairs: BTreeMap<u64, (u64, u32, WorkerId, u32, u8)> = BTreeMap::new();
        for (game_id, g) in self.state.run_games(run) {
            let entry = pairs.entry(g.pair_index).or_insert((game_id, g.pairing, g.worker, 0, 0));
            entry.0 = entry.0.min(game_id);
            entry.3 += 1;
            entry.4 += g.report.outcome.half_points(g.game_in_pair == 0);
        }
        let mut results = pairs
            .into_values()
            .map(|(first_game_id, pairing, worker, games, first_half_points)| {
                if games != 2 {
                    return Err(Error::Corrupt(format!("the pair of game {first_game_id} has {games} games")));
                }
                Ok(PairResult { first_game_id, pairing, worker, first_half_points })
            })
            .collect::<Result<Vec<_>>>()?;
        results.sort_unstable_by_key(|p| p.first_game_id);
        Ok(results)
    }

    fn pair_tallies(&mut self, run: RunId) -> Result<Vec<PairTally>> {
        let mut counts: HashMap<(WorkerId, u32, u8), u64> = HashMap::new();
        for p in self.pair_results(run)? {
            *counts.entry((p.worker, p.pairing, p.first_half_points)).or_default() += 1;
        }
        Ok(counts
            .into_iter()
            .map(|((worker, pairing, first_half_points), pairs)| PairTally {
                worker,
                pairing,
                first_half_points,
                pairs,
            })
            .collect())
    }

    fn game_ends(&mut self, run: RunId) -> Result<Vec<GameEnds>> {
        self.state.run_row(run)?;
        let mut counts: HashMap<(Termination, u32), u64> = HashMap::new();
        for (_, g) in self.state.run_games(run) {
            let plies = u32::try_from(g.report.moves.len()).unwrap_or(u32::MAX);
            *counts.entry((g.report.reason, plies)).or_default() += 1;
        }
        Ok(counts.into_iter().map(|((reason, plies), games)| GameEnds { reason, plies, games }).collect())
    }

    fn delete_positions(&mut self, run: RunId, after_game_id: u64, up_to_game_id: u64) -> Result<u64> {
        self.state.run_row(run)?;
        if up_to_game_id <= after_game_id {
            return Ok(0);
        }
        let mut taken: Vec<(u64, Vec<proto::domain::PositionSample>)> = Vec::new();
        for (&(_, id), g) in self.state.games.range_mut((run, after_game_id + 1)..=(run, up_to_game_id)) {
            if !g.report.positions.is_empty() {
                taken.push((id, std::mem::take(&mut g.report.positions)));
            }
        }
        let deleted = taken.iter().map(|(_, p)| p.len() as u64).sum();
        self.journal(move |s| {
            for (id, positions) in taken {
                if let Some(g) = s.games.get_mut(&(run, id)) {
                    g.report.positions = positions;
                }
            }
        });
        Ok(deleted)
    }

    fn update_worker_by_key(&mut self, info: &WorkerInfo, key_digest: &str, now_ms: u64) -> Result<Option<WorkerId>> {
        let Some(id) = self.state.worker_keys.get(key_digest).copied() else { return Ok(None) };
        let row =
            self.state.workers.get_mut(&id).ok_or_else(|| Error::Corrupt(format!("key of unknown worker {id}")))?;
        let engines = row.engines.clone();
        let old = std::mem::replace(row, WorkerRow { info: info.clone(), last_seen_ms: now_ms, engines });
        self.journal(move |s| {
            s.workers.insert(id, old);
        });
        Ok(Some(id))
    }

    fn insert_worker(&mut self, info: &WorkerInfo, key_digest: Option<&str>, now_ms: u64) -> Result<WorkerId> {
        let id = WorkerId::new(next_id(&self.state.workers));
        self.state.workers.insert(id, WorkerRow { info: info.clone(), last_seen_ms: now_ms, engines: Vec::new() });
        let key = key_digest.map(str::to_owned);
        if let Some(key) = &key {
            self.state.worker_keys.insert(key.clone(), id);
        }
        self.journal(move |s| {
            s.workers.remove(&id);
            if let Some(key) = key {
                s.worker_keys.remove(&key);
            }
        });
        Ok(id)
    }

    fn note_worker_seen(&mut self, id: WorkerId, now_ms: u64) -> Result<()> {
        self.touch_worker(id, now_ms).map(|_| ())
    }

    fn touch_worker(&mut self, id: WorkerId, now_ms: u64) -> Result<WorkerBench> {
        let row = self.state.workers.get_mut(&id).ok_or(Error::WorkerNotFound(id))?;
        let last = row.last_seen_ms;
        row.last_seen_ms = now_ms;
        let bench = WorkerBench {
            signature: row.info.bench_signature,
            nps: row.info.bench_nps,
            nnue_nps: row.info.nnue_bench_nps,
        };
        self.journal(move |s| {
            if let Some(row) = s.workers.get_mut(&id) {
                row.last_seen_ms = last;
            }
        });
        Ok(bench)
    }

    fn workers(&mut self) -> Result<Vec<WorkerSummary>> {
        Ok(self
            .state
            .workers
            .iter()
            .map(|(&id, w)| WorkerSummary {
                id,
                name: w.info.name.clone(),
                host: w.info.host.clone(),
                cores: w.info.cores,
                last_seen_ms: w.last_seen_ms,
                bench_nps: w.info.bench_nps,
                simd: w.info.simd,
                nnue_bench_nps: w.info.nnue_bench_nps,
            })
            .collect())
    }

    fn active_leases_by_worker(&mut self) -> Result<Vec<(WorkerId, u32)>> {
        let mut counts: BTreeMap<WorkerId, u32> = BTreeMap::new();
        for lease in self.state.leases.values().filter(|l| l.state == LeaseState::Active) {
            *counts.entry(lease.worker).or_default() += 1;
        }
        Ok(counts.into_iter().collect())
    }

    fn accepted_pairs_since(&mut self, since_ms: u64) -> Result<Vec<(WorkerId, u64)>> {
        let mut counts: BTreeMap<WorkerId, u64> = BTreeMap::new();
        for (&(lease, _), &(accepted, received_ms)) in &self.state.submissions {
            if received_ms >= since_ms {
                let worker = self.state.leases.get(&lease).ok_or(Error::LeaseNotFound(lease))?.worker;
                *counts.entry(worker).or_default() += accepted as u64;
            }
        }
        Ok(counts.into_iter().filter(|&(_, n)| n > 0).collect())
    }
}
