//! The storage primitives: reads and writes of single rows (runs, pairs, leases, a lease's
//! pairs, submissions, games, workers), offered inside one transaction by a [`Backend`]. They
//! decide nothing: what to lease, what counts and when a lease or a run ends is the workflow's
//! ([`super::workflow`]), written once over these. A backend adds primitives, never a second
//! workflow; `tests/it/storage_conformance.rs` holds every backend's primitives to the same results.

use std::sync::Arc;

use engine::nnue::{NetworkId, SimdLevel};
use proto::domain::{
    ByeSlot, EngineInfo, GameReport, LeaseId, Match, MatchRow, OpeningSuite, OpeningSuiteSummary, PairingStats, Run,
    RunId, RunSpec, RunState, SuiteId, TablePin, Termination, Variant, VariantId, WorkerId, WorkerInfo,
};

use super::feed::{Change, ChangeSink};
use super::{GameSummary, StoredGame};
use crate::error::Result;
use crate::scheduler::{EngineNeed, NewPair, RunLoad};
use crate::spsa::{HistoryPoint, Perturbation};
use crate::tc_scale::TcScale;

/// Where a pair of a run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairStatus {
    /// Waiting to be leased again (its lease ended before it was reported).
    Pooled,
    /// Pending in exactly one active lease.
    Leased,
    /// Recorded, once.
    Done,
}

/// A lease's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaseState {
    Active,
    /// Ended by its worker (a final batch) or because every pair was recorded.
    Closed,
    /// Ended by its deadline.
    Expired,
}

/// What became of a pair within one lease.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeasePairStatus {
    /// Given to the lease and not yet recorded.
    Pending,
    /// Recorded (by this lease or another).
    Finished,
    /// Back to the pool when the lease ended.
    Returned,
}

/// One `as_str`/`parse` per closed set of row states, as a backend stores them.
macro_rules! stored_names {
    ($ty:ident { $($variant:ident = $name:literal),* $(,)? }) => {
        impl $ty {
            pub fn as_str(self) -> &'static str {
                match self { $($ty::$variant => $name),* }
            }

            /// The state named `text`, `None` for any other text.
            pub fn parse(text: &str) -> Option<$ty> {
                match text { $($name => Some($ty::$variant),)* _ => None }
            }
        }
    };
}

stored_names!(PairStatus { Pooled = "pooled", Leased = "leased", Done = "done" });
stored_names!(LeaseState { Active = "active", Closed = "closed", Expired = "expired" });
stored_names!(LeasePairStatus { Pending = "pending", Finished = "finished", Returned = "returned" });

/// A pair of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairRow {
    pub pairing: u32,
    pub opening_index: u32,
    pub status: PairStatus,
}

/// A pair as one lease was given it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeasePair {
    pub index: u64,
    /// What became of it in this lease.
    pub status: LeasePairStatus,
    /// The pair itself.
    pub pair: PairRow,
}

/// What a submission is checked against ([`Tx::submission_context`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubmissionContext {
    pub lease: LeaseRow,
    /// The submission's sequence number was recorded before: it is a retry.
    pub seen: bool,
    /// Every pair the lease was given, lowest index first.
    pub pairs: Vec<LeasePair>,
    /// The fewest pairs any pairing of the lease's run has recorded (`None`: the run has no
    /// pairings), for [`crate::scheduler::may_complete`].
    pub fewest_recorded: Option<u64>,
}

/// A lease as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaseRow {
    pub run: RunId,
    pub worker: WorkerId,
    pub state: LeaseState,
    pub deadline_ms: u64,
    /// How long the lease was granted for; a heartbeat extends it by as much again.
    pub duration_ms: u64,
    /// The scale of the run's time control the lease was granted with (its worker's speed
    /// against the coordinator's reference then): what it plays and is refereed by.
    pub tc_scale: TcScale,
}

/// A lease to create, active.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewLease {
    pub run: RunId,
    pub worker: WorkerId,
    pub created_ms: u64,
    pub deadline_ms: u64,
    pub duration_ms: u64,
    pub tc_scale: TcScale,
}

/// How far a run's pair creation has gone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Allocation {
    /// The index the next new pair gets.
    pub next_pair_index: u64,
    /// Pairs ever created, per pairing.
    pub allocated: Vec<u64>,
}

/// A game to store.
#[derive(Clone, Copy, Debug)]
pub struct NewGame<'a> {
    pub run: RunId,
    pub pair_index: u64,
    /// 0 for the pair's first game, 1 for the second.
    pub game_in_pair: u8,
    pub opening_index: u32,
    /// The pair's pairing (stored with each game, so that a run's tallies read one index).
    pub pairing: u32,
    pub worker: WorkerId,
    pub report: &'a GameReport,
}

/// A recorded pair's result, as a run's tallies read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairResult {
    /// The id of its first game: pairs in this order are in recording order.
    pub first_game_id: u64,
    pub pairing: u32,
    /// The worker that recorded it.
    pub worker: WorkerId,
    /// Half points (0..=4) of the pair's `variants[0]` over both games.
    pub first_half_points: u8,
}

/// How many pairs of a run one worker recorded with one result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairTally {
    pub worker: WorkerId,
    pub pairing: u32,
    /// Half points (0..=4) of the pair's `variants[0]`.
    pub first_half_points: u8,
    pub pairs: u64,
}

/// How many games of a run ended one way after so many plies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameEnds {
    pub reason: Termination,
    pub plies: u32,
    pub games: u64,
}

/// A registered worker's own row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerSummary {
    pub id: WorkerId,
    pub name: String,
    pub host: String,
    pub cores: u32,
    pub last_seen_ms: u64,
    /// Its bench speed as it registered (0 = not measured).
    pub bench_nps: u64,
    /// The SIMD level it registered with (`None`: not said).
    pub simd: Option<SimdLevel>,
    /// Its speed with a network as it registered (0 = not measured).
    pub nnue_bench_nps: u64,
}

/// What the lease workflow reads of the worker it serves: its bench figures as it registered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkerBench {
    /// The engine's bench signature (node count); runs pinned to another get no lease of it.
    pub signature: u64,
    /// Its bench speed in nodes per second (0 = not measured): its time controls' scale.
    pub nps: u64,
    /// Its speed with a network (0 = not measured): the scale of runs that play a network.
    pub nnue_nps: u64,
}

/// The primitives, inside one transaction. A missing row named by id is the matching
/// `Error::*NotFound` unless the method says otherwise; stored data that does not decode is
/// `Error::Corrupt`.
pub trait Tx {
    // Variants and suites.

    /// Stores a variant under its id; a variant already stored stays as it is.
    fn insert_variant(&mut self, variant: &Variant) -> Result<()>;
    fn variant(&mut self, id: &VariantId) -> Result<Variant>;
    /// The network a variant's parameters name, if any ([`crate::spec::network_of`]). A variant
    /// never changes, so a backend may keep the answer instead of reading its parameter file
    /// again on every lease.
    fn variant_network(&mut self, id: &VariantId) -> Result<Option<NetworkId>> {
        crate::spec::network_of(&self.variant(id)?.spec)
    }
    fn variant_exists(&mut self, id: &VariantId) -> Result<bool>;
    /// Stores a suite (at least one line) under a new id.
    fn insert_suite(&mut self, name: &str, lines: &[String]) -> Result<SuiteId>;
    fn suite(&mut self, id: SuiteId) -> Result<OpeningSuite>;
    /// How many openings a suite holds.
    fn suite_size(&mut self, id: SuiteId) -> Result<usize>;
    /// Line `index` of a suite; a missing line is corrupt data.
    fn opening(&mut self, suite: SuiteId, index: u32) -> Result<String>;
    /// Every variant, by id.
    fn variants(&mut self) -> Result<Vec<Variant>>;
    /// Stores a network file's bytes under their SHA-256 (the caller checked both); one
    /// already stored stays as it is.
    fn insert_network(&mut self, id: NetworkId, bytes: &[u8], now_ms: u64) -> Result<()>;
    /// A stored network's bytes.
    fn network(&mut self, id: NetworkId) -> Result<Option<Vec<u8>>>;
    fn network_exists(&mut self, id: NetworkId) -> Result<bool>;
    /// Every suite's id, name and size, by id.
    fn suite_summaries(&mut self) -> Result<Vec<OpeningSuiteSummary>>;

    // Runs.

    /// Stores a new active run with `pairings` pairings, no pair and zero statistics.
    fn insert_run(&mut self, spec: &RunSpec, pairings: usize, now_ms: u64) -> Result<RunId>;
    fn run(&mut self, id: RunId) -> Result<Run>;
    /// Every run's id, oldest first.
    fn run_ids(&mut self) -> Result<Vec<RunId>>;
    /// A run's spec, which never changes.
    fn run_spec(&mut self, id: RunId) -> Result<Arc<RunSpec>>;
    fn run_state(&mut self, id: RunId) -> Result<RunState>;
    fn set_run_state(&mut self, id: RunId, state: &RunState) -> Result<()>;
    /// One entry per pairing.
    fn run_stats(&mut self, id: RunId) -> Result<Vec<PairingStats>>;
    /// Adds `delta` to a pairing's statistics.
    fn add_stats(&mut self, run: RunId, pairing: u32, delta: &PairingStats) -> Result<()>;
    /// The load of every active run a worker with `bench_signature` may play (its signature
    /// unset or equal; `None`: every active run, whatever signature it asks for), oldest first,
    /// each with the engines it needs (as [`Tx::run_engine_needs`]).
    fn active_run_loads(&mut self, bench_signature: Option<u64>) -> Result<Vec<RunLoad>>;
    fn allocation(&mut self, run: RunId) -> Result<Allocation>;
    fn exported_up_to(&mut self, run: RunId) -> Result<u64>;
    fn set_exported_up_to(&mut self, run: RunId, game_id: u64) -> Result<()>;

    // Endgame tables.

    /// Pins a new run's endgame tables (set and file checksum).
    fn insert_run_tablebases(&mut self, run: RunId, pins: &[TablePin]) -> Result<()>;
    /// The run's pinned tables in set order.
    fn run_tablebases(&mut self, run: RunId) -> Result<Vec<TablePin>>;

    // Engines by name.

    /// Notes the engines a new run's variants name, none pinned.
    fn insert_run_engines(&mut self, run: RunId, needs: &[EngineNeed]) -> Result<()>;
    /// The engines a run needs, by name, each with the binary it pinned if it pinned one (none
    /// for a run never stored).
    fn run_engine_needs(&mut self, run: RunId) -> Result<Vec<EngineNeed>>;
    /// Pins a run's engine `engine.name` to `engine`'s binary, unless it pinned one already;
    /// a name the run does not need (or a run never stored) changes nothing.
    fn pin_engine(&mut self, run: RunId, engine: &EngineInfo) -> Result<()>;
    /// Replaces what a worker advertised with `engines`.
    fn store_worker_engines(&mut self, worker: WorkerId, engines: &[EngineInfo]) -> Result<()>;
    /// What a worker advertised, by name (none for a worker never registered).
    fn worker_engines(&mut self, worker: WorkerId) -> Result<Vec<EngineInfo>>;
    /// The engines of every worker that advertised any and was seen at or after `since_ms`, one
    /// list (by name) per worker, in worker id order.
    fn connected_engines(&mut self, since_ms: u64) -> Result<Vec<Vec<EngineInfo>>>;

    // Pairs.

    /// Up to `limit` pooled pairs of a run, lowest index first.
    fn pooled_pairs(&mut self, run: RunId, limit: usize) -> Result<Vec<u64>>;
    /// A pair, `None` if the run never created it.
    fn pair(&mut self, run: RunId, index: u64) -> Result<Option<PairRow>>;
    /// Creates a pair, leased. The workflow counts it in the run's [`Allocation`]
    /// ([`Tx::add_allocated`], [`Tx::set_next_pair_index`]).
    fn insert_pair(&mut self, run: RunId, pair: NewPair, opening_index: u32) -> Result<()>;
    /// Adds `pairs` new pairs to a pairing's count of pairs ever created.
    fn add_allocated(&mut self, run: RunId, pairing: u32, pairs: u64) -> Result<()>;
    /// Sets the index the run's next new pair takes.
    fn set_next_pair_index(&mut self, run: RunId, next: u64) -> Result<()>;
    fn set_pair_status(&mut self, run: RunId, index: u64, status: PairStatus) -> Result<()>;
    /// The lease in which the pair is pending, if any.
    fn pair_holder(&mut self, run: RunId, index: u64) -> Result<Option<LeaseId>>;

    // Leases.

    fn insert_lease(&mut self, lease: &NewLease) -> Result<LeaseId>;
    fn lease(&mut self, id: LeaseId) -> Result<LeaseRow>;
    fn set_lease_state(&mut self, id: LeaseId, state: LeaseState) -> Result<()>;
    fn set_lease_deadline(&mut self, id: LeaseId, deadline_ms: u64) -> Result<()>;
    /// Active leases whose deadline is before `now_ms`, in no particular order.
    fn overdue_leases(&mut self, now_ms: u64) -> Result<Vec<LeaseId>>;
    /// Gives a pair of the lease's run to the lease, pending.
    fn insert_lease_pair(&mut self, lease: LeaseId, run: RunId, index: u64) -> Result<()>;
    /// Every pair the lease was given, lowest index first.
    fn lease_pairs(&mut self, lease: LeaseId) -> Result<Vec<LeasePair>>;
    fn set_lease_pair_status(&mut self, lease: LeaseId, index: u64, status: LeasePairStatus) -> Result<()>;
    /// Marks the pair finished under whichever lease holds it (its pending entry, if any) and
    /// under `lease`, which reported it (an entry it must have). Written here over
    /// [`Tx::pair_holder`] and [`Tx::set_lease_pair_status`]; the SQL layer does the same in one
    /// statement that nothing waits for.
    fn finish_leased_pair(&mut self, run: RunId, index: u64, lease: LeaseId) -> Result<()> {
        let holder = self.pair_holder(run, index)?;
        if let Some(holder) = holder {
            self.set_lease_pair_status(holder, index, LeasePairStatus::Finished)?;
        }
        if holder != Some(lease) {
            self.set_lease_pair_status(lease, index, LeasePairStatus::Finished)?;
        }
        Ok(())
    }

    // Submissions and games.

    /// Whether `(lease, seq)` was recorded.
    fn submission_seen(&mut self, lease: LeaseId, seq: u64) -> Result<bool>;
    /// What submission `seq` of the lease is checked against: the lease ([`Tx::lease`]),
    /// whether `seq` was recorded ([`Tx::submission_seen`]), the lease's pairs
    /// ([`Tx::lease_pairs`]) and the fewest pairs a pairing of its run has recorded
    /// ([`Tx::run_stats`]). Written here over those; the SQL layer reads them in one statement.
    fn submission_context(&mut self, lease: LeaseId, seq: u64) -> Result<SubmissionContext> {
        let row = self.lease(lease)?;
        Ok(SubmissionContext {
            lease: row,
            seen: self.submission_seen(lease, seq)?,
            pairs: self.lease_pairs(lease)?,
            fewest_recorded: self.run_stats(row.run)?.iter().map(crate::scheduler::pairs_recorded).min(),
        })
    }
    fn insert_submission(&mut self, lease: LeaseId, seq: u64, accepted: usize, now_ms: u64) -> Result<()>;
    /// Stores a game (without its per-move statistics and forfeit attempt) and its sampled
    /// positions, under an id above every id before it. Nothing waits for the id: on PostgreSQL
    /// the game and its positions go with the transaction's next statement.
    fn insert_game(&mut self, game: NewGame<'_>) -> Result<()>;
    /// Up to `limit` games of a run with ids above `after_game_id`, in id order, each named by
    /// its worker's current name.
    fn games_since(&mut self, run: RunId, after_game_id: u64, limit: usize) -> Result<Vec<StoredGame>>;
    /// A game with its sampled positions, named by its worker's current name.
    fn game(&mut self, game_id: u64) -> Result<StoredGame>;
    /// Up to `limit` games of a run from the `offset`-th, in id order, without moves.
    fn game_summaries(&mut self, run: RunId, offset: u64, limit: usize) -> Result<Vec<GameSummary>>;
    /// Every recorded pair of a run, in recording order (by first game id). Reads no moves.
    fn pair_results(&mut self, run: RunId) -> Result<Vec<PairResult>>;
    /// A run's pair counts by (worker, pairing, points), each such triple once, in no
    /// particular order. Reads no moves.
    fn pair_tallies(&mut self, run: RunId) -> Result<Vec<PairTally>>;
    /// A run's game counts by (termination, plies), each such pair once, in no particular
    /// order. Reads no moves.
    fn game_ends(&mut self, run: RunId) -> Result<Vec<GameEnds>>;
    /// Deletes the sampled positions of the run's games with ids above `after_game_id` and at
    /// most `up_to_game_id`; the games themselves stay. Returns how many positions it deleted.
    fn delete_positions(&mut self, run: RunId, after_game_id: u64, up_to_game_id: u64) -> Result<u64>;

    // SPSA.

    /// Stores an SPSA run's current values (replacing any).
    fn set_spsa_theta(&mut self, run: RunId, theta: &[f64]) -> Result<()>;
    /// An SPSA run's current values; a run without them is corrupt data.
    fn spsa_theta(&mut self, run: RunId) -> Result<Vec<f64>>;
    /// Appends a point to an SPSA run's history.
    fn insert_spsa_history(&mut self, run: RunId, point: &HistoryPoint) -> Result<()>;
    /// An SPSA run's history, by iteration.
    fn spsa_history(&mut self, run: RunId) -> Result<Vec<HistoryPoint>>;
    /// Stores the iteration and perturbation a lease was granted with.
    fn insert_spsa_lease(&mut self, lease: LeaseId, iteration: u64, perturbations: &[Perturbation]) -> Result<()>;
    /// A lease's iteration and perturbation; `None` for a lease of another kind of run.
    fn spsa_lease(&mut self, lease: LeaseId) -> Result<Option<(u64, Vec<Perturbation>)>>;

    // Tournaments (`crate::tournament::director`).

    /// Stores a match of a tournament as the run's next pairing (with empty statistics) and
    /// returns its pairing index.
    fn insert_match(&mut self, run: RunId, m: &Match) -> Result<u32>;
    /// A tournament's matches, in pairing order (none for another kind).
    fn matches(&mut self, run: RunId) -> Result<Vec<MatchRow>>;
    fn insert_bye(&mut self, run: RunId, bye: &ByeSlot) -> Result<()>;
    /// A tournament's byes, by round and slot.
    fn byes(&mut self, run: RunId) -> Result<Vec<ByeSlot>>;
    /// Notes the deciding game of an Armageddon match.
    fn set_armageddon_result(&mut self, run: RunId, pairing: u32, red_points: u32) -> Result<()>;

    // Workers.

    /// Replaces the description of the worker with this key digest and notes it was seen now;
    /// its id, or `None` when no worker has the key. Its engines stay as they are.
    fn update_worker_by_key(&mut self, info: &WorkerInfo, key_digest: &str, now_ms: u64) -> Result<Option<WorkerId>>;
    /// Adds a worker under a new id, with no engines.
    fn insert_worker(&mut self, info: &WorkerInfo, key_digest: Option<&str>, now_ms: u64) -> Result<WorkerId>;
    /// Notes that the worker was seen; returns its bench signature and speed.
    fn touch_worker(&mut self, id: WorkerId, now_ms: u64) -> Result<WorkerBench>;
    /// Notes that the worker was seen, as [`Tx::touch_worker`] does, when its bench is not
    /// needed (a write nobody waits for: no round trip of its own on PostgreSQL).
    fn note_worker_seen(&mut self, id: WorkerId, now_ms: u64) -> Result<()>;
    /// [`Tx::touch_worker`], and whether any lease is overdue at `now_ms` (what
    /// [`Tx::overdue_leases`] would list). Written here over those two; the SQL layer asks both in
    /// one statement, so that a lease, which expires overdue leases first, reads them only when
    /// there are some.
    fn touch_worker_overdue(&mut self, id: WorkerId, now_ms: u64) -> Result<(WorkerBench, bool)> {
        let overdue = !self.overdue_leases(now_ms)?.is_empty();
        Ok((self.touch_worker(id, now_ms)?, overdue))
    }
    /// Every registered worker, by id.
    fn workers(&mut self) -> Result<Vec<WorkerSummary>>;
    /// How many active leases each worker holds, by worker id; workers holding none are left out.
    fn active_leases_by_worker(&mut self) -> Result<Vec<(WorkerId, u32)>>;
    /// The pairs counted by each worker's submissions received at or after `since_ms`
    /// (the `accepted` of [`Tx::insert_submission`]), by worker id; workers with none are left
    /// out.
    fn accepted_pairs_since(&mut self, since_ms: u64) -> Result<Vec<(WorkerId, u64)>>;
}

/// Runs closures on a backend's transactions. A write transaction happens completely or not
/// at all: an error from the closure rolls back every primitive it called. A read transaction
/// sees one consistent state.
///
/// Closures are `Send + 'static` because a backend may run them on a thread of its own (SQLite's
/// single writer), and `Fn` because a backend may run one again from the start after rolling it
/// back (PostgreSQL, when a concurrent coordinator's transaction conflicted with it): a closure
/// must not consume what it captured.
pub trait Backend: Send + Sync {
    fn write<T, F>(&self, context: &'static str, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&mut dyn Tx) -> Result<T> + Send + 'static;

    fn read<T, F>(&self, context: &'static str, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&mut dyn Tx) -> Result<T> + Send + 'static;

    /// The backend's transaction times by context, if it measures them.
    fn timings(&self) -> Option<&crate::metrics::Timings> {
        None
    }

    /// Tells the other coordinators on this store about a change, soon and without waiting
    /// (nothing for a store no other coordinator can open).
    fn announce(&self, _change: Change) {}

    /// Delivers to `sink`, from a thread of the backend's, every change another coordinator
    /// announces, until the backend drops. `false`: no other coordinator can share this store.
    fn listen(&self, _sink: ChangeSink) -> Result<bool> {
        Ok(false)
    }

    /// Whether this coordinator is the store's exporter now: the only one that writes Parquet.
    /// Always for a store only one coordinator opens.
    fn exporter(&self) -> Result<bool> {
        Ok(true)
    }
}
