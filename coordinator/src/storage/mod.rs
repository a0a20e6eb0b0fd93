//! The coordinator's state behind one narrow, domain-shaped trait, [`Storage`]. Backends (in
//! memory for tests; SQLite and PostgreSQL for service) offer only transactional row primitives
//! ([`tx::Tx`] inside a [`tx::Backend`] transaction); the workflow over them (leasing,
//! recording, expiry, run states, counting new pairs, registering workers) is written once, in
//! [`workflow`], which implements [`Storage`] for every backend. The two SQL backends share one
//! row layer, `sql/` (every primitive as SQL statements over a small connection trait); each
//! keeps only its connections, transactions and schema. `tests/it/storage_conformance.rs` holds
//! the three backends to the same primitives and the same behaviour.

use engine::nnue::NetworkId;
use proto::domain::{
    Adjudication, EngineInfo, GameOutcome, GameReport, Lease, LeaseId, OpeningSuite, OpeningSuiteSummary, PairReport,
    PairTask, Run, RunId, RunKind, RunSpec, RunState, SpsaValue, SuiteId, TablePin, Termination, TimeControl,
    TournamentDraw, Variant, VariantId, VariantSpec, WorkerId, WorkerInfo,
};

use crate::error::{Error, Result};
use crate::scheduler::EngineNeed;
use crate::tc_scale::ReferenceNps;

mod codec;
pub mod feed;
mod group_commit;
pub mod memory;
pub mod postgres;
pub mod prune;
pub mod reads;
mod sql;
pub mod sqlite;
pub mod tx;
pub mod workflow;

pub use memory::MemoryStorage;
pub use postgres::PgStorage;
pub use sqlite::SqliteStorage;
pub use tx::{Backend, Tx};

/// What a submission did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordOutcome {
    /// The run the lease belongs to.
    pub run: RunId,
    /// Pairs counted by this call: pairs already recorded (under any lease or sequence
    /// number) are acknowledged but not counted again.
    pub accepted: usize,
    /// The (lease, sequence number) was seen before: acknowledged, nothing changed.
    pub duplicate: bool,
}

/// What a lease was given to play, and by which rules: what the referee replays a submission
/// against.
#[derive(Clone, Debug, PartialEq)]
pub struct LeaseTerms {
    pub lease: LeaseId,
    pub run: RunId,
    /// The time control the lease was given: the run's, scaled to its worker's speed
    /// ([`crate::tc_scale`]) as it was when the lease was granted.
    pub tc: TimeControl,
    pub adjudication: Adjudication,
    pub sample_every: u32,
    /// Every pair the lease was given (whatever became of it since), with its opening line.
    pub tasks: Vec<PairTask>,
    /// The run's endgame tables, which the referee checks `tablebase` endings against.
    pub tablebases: Vec<TablePin>,
}

impl From<&Lease> for LeaseTerms {
    /// The terms a lease was granted with (all its tasks).
    fn from(lease: &Lease) -> LeaseTerms {
        LeaseTerms {
            lease: lease.id,
            run: lease.run,
            tc: lease.tc,
            adjudication: lease.adjudication,
            sample_every: lease.sample_every,
            tasks: lease.tasks.clone(),
            tablebases: lease.tablebases.clone(),
        }
    }
}

/// A recorded game, as the Parquet exporter reads it. Per-move scores and times and the
/// forfeit attempt are checked by the referee, not kept: `move_stats` is empty, `forfeit` none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// Unique over the whole store and increasing in recording order; never reused.
    pub game_id: u64,
    pub run: RunId,
    pub pair_index: u64,
    /// The pair's pairing (a tournament's match).
    pub pairing: u32,
    /// 0 for the pair's first game (the task's `variants[0]` as Red), 1 for the second.
    pub game_in_pair: u8,
    pub opening_index: u32,
    /// The name of the worker that played it.
    pub worker: String,
    pub report: GameReport,
}

/// A recorded game without its moves and positions: a row of a run's list of games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSummary {
    pub game_id: u64,
    pub run: RunId,
    pub pair_index: u64,
    /// 0 for the pair's first game (the task's `variants[0]` as Red), 1 for the second.
    pub game_in_pair: u8,
    pub red: VariantId,
    pub black: VariantId,
    pub outcome: GameOutcome,
    pub reason: Termination,
    /// Moves played (half moves).
    pub plies: u32,
    /// The name of the worker that played it (its current name).
    pub worker: String,
}

/// What a run's games add up to, for its page.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunAggregates {
    /// Games recorded.
    pub games: u64,
    /// Games per way of ending, most frequent first (ties in [`Termination::ALL`]'s order);
    /// terminations no game had are left out.
    pub terminations: Vec<(Termination, u64)>,
    /// Games per length in plies, shortest first; lengths no game had are left out.
    pub lengths: Vec<(u32, u64)>,
    /// Every worker that recorded a pair of the run, in worker id order.
    pub workers: Vec<WorkerRunStats>,
}

impl RunAggregates {
    /// The positions the run's games sampled, from their lengths: a game of `n` plies samples
    /// every `every`-th ply from ply 1 to ply `n - 1` (the worker's rule, which the referee
    /// holds it to), so `(n - 1) / every` positions; none when `every` is 0. For a datagen run
    /// (`every` = 1) this is every position recorded.
    pub fn sampled_positions(&self, every: u32) -> u64 {
        if every == 0 {
            return 0;
        }
        self.lengths.iter().map(|&(plies, games)| u64::from(plies.saturating_sub(1) / every) * games).sum()
    }
}

/// One worker's share of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerRunStats {
    pub worker: WorkerId,
    /// Its current name.
    pub name: String,
    /// Pairs it recorded, of every pairing.
    pub pairs: u64,
    /// Its pairs of pairing 0, from `variants[0]`'s side: index = half points over the pair.
    pub pentanomial: [u64; 5],
    /// When the worker was last seen (registering, leasing, heartbeating, submitting), by any run.
    pub last_seen_ms: u64,
}

/// A worker, for the workers page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerRow {
    pub id: WorkerId,
    pub name: String,
    pub host: String,
    pub cores: u32,
    /// Its bench speed in nodes per second, as it registered (0 = not measured).
    pub bench_nps: u64,
    /// The SIMD level its network evaluation runs with (`None`: not said, an older worker).
    pub simd: Option<engine::nnue::SimdLevel>,
    /// Its speed with a network, as it registered (0 = not measured).
    pub nnue_bench_nps: u64,
    /// The external engines it advertised, by name.
    pub engines: Vec<EngineInfo>,
    pub last_seen_ms: u64,
    /// Its active leases.
    pub leases_held: u32,
    /// Games it recorded in the last ten minutes: twice the pairs counted by its submissions
    /// received since then (a resent or already recorded pair counts nothing).
    pub games_last_10_min: u64,
}

/// The coordinator's state. Methods take `&self`, and each call is one transaction of its
/// backend: it happens completely or not at all. Implemented once, for every [`Backend`], in
/// [`workflow`].
///
/// Times are milliseconds since the Unix epoch, passed in by the caller (see
/// [`crate::clock::Clock`]), so that tests control expiry.
pub trait Storage: Send + Sync {
    /// Stores a variant under the hash of its canonical encoding; the same spec twice gives
    /// the same variant.
    /// A variant whose parameters name a network (`eval = "nnue:<sha256>"`) is refused unless
    /// the network is stored.
    fn add_variant(&self, spec: &VariantSpec) -> Result<Variant>;
    fn get_variant(&self, id: &VariantId) -> Result<Variant>;

    /// Stores a network file's bytes under `id`, their SHA-256 (the service checked both);
    /// the same network twice is stored once.
    fn add_network(&self, id: NetworkId, bytes: &[u8], now_ms: u64) -> Result<()>;
    /// A stored network's bytes, or [`crate::Error::NetworkNotFound`].
    fn get_network(&self, id: NetworkId) -> Result<Vec<u8>>;

    /// Stores a suite of opening lines (FEN or `startpos`/FEN with `moves ...`). Only
    /// emptiness and size are checked here; the service checks legality with the engine.
    fn add_openings(&self, name: &str, lines: &[String]) -> Result<OpeningSuite>;
    fn get_suite(&self, id: SuiteId) -> Result<OpeningSuite>;

    /// Creates an active run after checking the spec and that its variants and suite exist;
    /// it pins no endgame tables.
    fn create_run(&self, spec: &RunSpec, now_ms: u64) -> Result<Run> {
        self.create_run_pinned(spec, &[], now_ms)
    }
    /// [`Storage::create_run`], pinning the endgame tables its games are adjudicated by
    /// (distinct sets; see [`TablePin`]).
    fn create_run_pinned(&self, spec: &RunSpec, tablebases: &[TablePin], now_ms: u64) -> Result<Run>;
    fn get_run(&self, id: RunId) -> Result<Run>;
    /// Every run, oldest first.
    fn list_runs(&self) -> Result<Vec<Run>>;
    /// Stops, resumes or records an SPRT verdict. `Completed` is set by the storage itself
    /// when a bounded run's last pair is recorded.
    fn set_run_state(&self, id: RunId, state: RunState) -> Result<Run>;

    fn register_worker(&self, info: &WorkerInfo, now_ms: u64) -> Result<WorkerId>;

    /// Expires overdue leases, then hands the worker a batch of pairs from one active run it
    /// may play (a run with a bench signature only goes to workers registered with the same
    /// signature, a run naming external engines only to workers that advertised each, with the
    /// binary the run pinned: see `scheduler::can_play`), pooled pairs first. `None` when there
    /// is no work or no free slot. Time controls are not scaled: this is
    /// [`Storage::lease_batch_scaled`] for a coordinator without a reference speed.
    fn lease_batch(&self, worker: WorkerId, free_slots: u32, now_ms: u64) -> Result<Option<Lease>> {
        self.lease_batch_scaled(worker, free_slots, ReferenceNps::default(), now_ms)
    }

    /// [`Storage::lease_batch`] on a coordinator whose reference speeds are `references`: the
    /// lease's move time or clock is the run's scaled to the worker's registered bench speed,
    /// or to its speed with a network for a run that plays one ([`crate::tc_scale::lease_scale`];
    /// unscaled without the reference or for an unmeasured worker), and the scale is stored
    /// with the lease, so that [`Storage::lease_terms`] gives back the same time control
    /// whatever the coordinator's references are later.
    fn lease_batch_scaled(
        &self,
        worker: WorkerId,
        free_slots: u32,
        references: ReferenceNps,
        now_ms: u64,
    ) -> Result<Option<Lease>>;

    /// The lease's run rules and every task it was given, whatever the lease's state (a late
    /// submission is refereed like any other). Reads only.
    fn lease_terms(&self, lease: LeaseId) -> Result<LeaseTerms>;

    /// Records finished pairs of a lease. Idempotent by `(lease, seq)`; a pair already
    /// recorded is never counted again. A pair that was never part of this lease rejects the
    /// whole submission. The reports' content is the referee's business
    /// ([`crate::referee`]), checked before this is called. Results arriving
    /// after the lease expired are still recorded if nobody recorded the pair meanwhile.
    /// `final_batch` closes the lease: its unreported pairs go back to the pool. A lease whose
    /// pairs are all recorded closes by itself. Extends an active lease like a heartbeat.
    fn record_results(
        &self,
        worker: WorkerId,
        lease: LeaseId,
        seq: u64,
        pairs: &[PairReport],
        final_batch: bool,
        now_ms: u64,
    ) -> Result<RecordOutcome>;

    /// Extends an active lease's deadline to at least `now_ms` plus its original duration and
    /// returns the new deadline.
    fn heartbeat(&self, worker: WorkerId, lease: LeaseId, now_ms: u64) -> Result<u64>;

    /// Expires every active lease past its deadline: its unfinished pairs go back to the pool,
    /// recorded ones stay. Returns how many leases expired.
    fn expire_leases(&self, now_ms: u64) -> Result<usize>;

    /// Up to `limit` games of a run with ids above `after_game_id`, in id order.
    fn games_since(&self, run: RunId, after_game_id: u64, limit: usize) -> Result<Vec<StoredGame>>;
    /// Notes that the run's games up to this id are exported; never moves backwards.
    fn mark_exported(&self, run: RunId, up_to_game_id: u64) -> Result<()>;
    /// The highest game id noted as exported for the run (0 = none).
    fn exported_up_to(&self, run: RunId) -> Result<u64>;
    /// Deletes the sampled positions of the run's games with ids above `after_game_id` and at
    /// most `up_to_game_id`, never beyond the run's export mark ([`Storage::exported_up_to`]):
    /// a game not yet in Parquet keeps its positions. The games stay. Returns how many
    /// positions it deleted. [`prune::prune_exported_positions`] prunes a whole run this way,
    /// a slice of its games per transaction.
    fn prune_exported_positions(&self, run: RunId, after_game_id: u64, up_to_game_id: u64) -> Result<u64>;

    /// The external engines the run's variants name, with the binary the run pinned for each
    /// (that of the first worker it was leased to; `lease_batch` pins and filters by them).
    fn run_engines(&self, run: RunId) -> Result<Vec<EngineNeed>>;
    /// The engines of every worker seen (registered, leasing or heartbeating) at or after
    /// `since_ms`, one list per worker.
    fn connected_engines(&self, since_ms: u64) -> Result<Vec<Vec<EngineInfo>>>;

    // Reads for the web pages ([`reads`]). Each is one read transaction: one consistent state.

    /// Every variant, by id.
    fn list_variants(&self) -> Result<Vec<Variant>>;
    /// Every opening suite without its lines, oldest first.
    fn list_suites(&self) -> Result<Vec<OpeningSuiteSummary>>;
    /// A game with its sampled positions; [`Error::GameNotFound`] for an unknown id.
    fn get_game(&self, game_id: u64) -> Result<StoredGame>;
    /// Up to `limit` games of a run from the `offset`-th (0 = the first), in id order.
    fn run_games_page(&self, run: RunId, offset: u64, limit: usize) -> Result<Vec<GameSummary>>;
    /// A run's terminations, game lengths and workers, from an index of its games (never
    /// their moves).
    fn run_aggregates(&self, run: RunId) -> Result<RunAggregates>;
    /// Every recorded pair of a run in recording order: its pairing and its pentanomial index
    /// (half points of the pair's `variants[0]` over both games, as
    /// [`PairReport::first_half_points`]).
    fn run_pair_sequence(&self, run: RunId) -> Result<Vec<(u32, u8)>>;
    /// Every registered worker, in id order, with what it holds and did lately.
    fn list_workers(&self, now_ms: u64) -> Result<Vec<WorkerRow>>;

    /// An SPSA run's current values (empty for a run of another kind).
    fn spsa_values(&self, run: RunId) -> Result<Vec<SpsaValue>>;
    /// An SPSA run's values after each recorded submission, from the start values at
    /// iteration 0 (empty for a run of another kind).
    fn spsa_history(&self, run: RunId) -> Result<Vec<crate::spsa::HistoryPoint>>;

    /// A tournament's draw so far (`None` for a run of another kind).
    fn tournament_draw(&self, run: RunId) -> Result<Option<TournamentDraw>>;

    /// Leases, pending pairs and games recorded, for the metrics.
    fn farm_load(&self) -> Result<reads::FarmLoad>;
    /// How long this backend's transactions took, by their name, queueing included (empty for
    /// a backend that does not measure them).
    fn transaction_times(&self) -> Vec<(String, crate::metrics::Histogram)>;

    // Other coordinators on the same store ([`feed`]).

    /// Tells the other coordinators on this store about a change, without waiting.
    fn announce(&self, change: feed::Change);
    /// Delivers the changes other coordinators announce to `sink`; `false` when no other
    /// coordinator can share this store.
    fn listen(&self, sink: feed::ChangeSink) -> Result<bool>;
    /// Whether this coordinator is the one that writes Parquet now.
    fn exporter(&self) -> Result<bool>;
}

/// The state changes a user or the SPRT may make: an active run stops or gets its SPRT
/// verdict; a stopped run resumes; setting the current state again changes nothing.
pub(crate) fn check_state_change(run: &Run, to: &RunState) -> Result<()> {
    let allowed = match (&run.state, to) {
        (from, to) if from == to => true,
        (RunState::Active, RunState::Stopped) | (RunState::Stopped, RunState::Active) => true,
        (RunState::Active, RunState::SprtDone { .. }) => matches!(run.spec.kind, RunKind::Sprt(_)),
        _ => false,
    };
    if allowed {
        Ok(())
    } else {
        Err(Error::InvalidStateChange { run: run.id, from: run.state.as_str().into(), to: to.as_str().into() })
    }
}

/// The task for a pair of a run; `opening` is line `opening_index` of the run's suite (and
/// `second_opening` its second game's, when that differs).
pub(crate) fn make_task(
    spec: &RunSpec,
    pairings: &[crate::scheduler::Pairing],
    pair_index: u64,
    pairing: u32,
    opening_index: u32,
    (opening, second_opening): (String, Option<String>),
) -> Result<PairTask> {
    let players = pairings
        .get(pairing as usize)
        .and_then(|p| Some([spec.variants.get(p.a)?.clone(), spec.variants.get(p.b)?.clone()]))
        .ok_or_else(|| Error::Corrupt(format!("pair {pair_index} names pairing {pairing}, which its run lacks")))?;
    Ok(PairTask { pair_index, pairing, opening_index, opening, second_opening, variants: players })
}

/// The distinct variant ids named by a lease's tasks, in first-use order.
pub(crate) fn task_variant_ids(tasks: &[PairTask]) -> Vec<VariantId> {
    let mut ids: Vec<VariantId> = Vec::new();
    for id in tasks.iter().flat_map(|t| t.variants.iter()) {
        if !ids.contains(id) {
            ids.push(id.clone());
        }
    }
    ids
}

/// Opens the store `db` names: a PostgreSQL database for a `postgres://` (or `postgresql://`)
/// URL, else a SQLite file (created if missing).
pub fn open(db: &str) -> Result<std::sync::Arc<dyn Storage>> {
    Ok(if postgres::is_postgres_url(db) {
        std::sync::Arc::new(PgStorage::open(db)?)
    } else {
        std::sync::Arc::new(SqliteStorage::open(db)?)
    })
}

/// `db` as [`open`] reads it, for logs and messages: a PostgreSQL URL without its password.
pub fn describe(db: &str) -> String {
    if postgres::is_postgres_url(db) { postgres::redact(db) } else { db.to_owned() }
}
