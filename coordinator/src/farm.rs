//! The coordinator's behaviour, free of gRPC: leases and results, SPRT verdicts and live
//! statistics, over a `Storage` and a `Clock`, with the Parquet export as its own role
//! ([`crate::exporter`]). The gRPC handlers in `grpc.rs` only convert and call these methods.

use std::collections::HashMap;
use std::num::NonZeroU64;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use analysis::stats::{self, Hypothesis, Pentanomial, Wdl};
use engine::nnue::{NetworkId, SimdLevel};
use proto::domain::{
    BatchAck, BatchResult, LeaseGrant, LeaseReply, LeaseRequest, LiveStats, MAX_NETWORK_BYTES, OpeningSuiteSpec,
    OpeningSuiteSummary, PairingStats, Run, RunFilter, RunId, RunKind, RunKindName, RunSpec, RunState, RunStatus,
    SprtProgress, SubmitRequest, TablePin, Variant, VariantKind, VariantSpec, WorkerId, WorkerInfo,
};
use tokio::sync::watch;

use crate::changes::Changes;
use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::exporter::{self, Exporter, run_games};
pub use crate::exporter::{ExportProgress, SPSA_EXPORT_EVERY_MS};
use crate::granted::Granted;
use crate::metrics::{self, FarmGauges, Metrics};
use crate::referee;
use crate::request_keys::RequestKeys;
use crate::storage::feed::Change;
use crate::storage::{LeaseTerms, Storage};
use crate::tc_scale::{self, ReferenceNps, ScaledBy};

/// How long a worker with no work waits before asking again.
pub const NO_WORK_RETRY_MS: u64 = 1_000;
pub struct Farm {
    storage: Arc<dyn Storage>,
    clock: Arc<dyn Clock>,
    /// Bumped after every change a watcher may care about, here or (announced through the
    /// store) by another coordinator on the same database.
    changes: Changes,
    /// The Parquet export: this coordinator's writer, or its follower of another's progress.
    exporter: Arc<Exporter>,
    /// The kind of each run seen so far (a run's kind never changes).
    run_kinds: Mutex<HashMap<RunId, RunKindName>>,
    /// The terms of the leases granted here, which the referee checks submissions against.
    granted: Granted,
    /// The runs CreateRun made for recent request keys: a retried CreateRun gets the run its
    /// first attempt made.
    created: RequestKeys,
    /// The bench speeds (nodes per second, with the HCE and with a network) the runs' time
    /// controls are meant for: a worker measured at another speed gets its move times and
    /// clocks scaled ([`crate::tc_scale`]). `None`: every worker plays the runs' time controls
    /// (of runs that play a network, for the network's) as they are.
    references: ReferenceNps,
    /// Endgame tables the referee checks `tablebase` endings against (`None`: such an ending
    /// is refused).
    tables: Option<Arc<engine::tablebase::Tablebases>>,
    /// What is counted as it happens (RPCs), for the metrics.
    metrics: Arc<Metrics>,
}

impl std::fmt::Debug for Farm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Farm").field("data_dir", &self.exporter.data_dir()).finish_non_exhaustive()
    }
}

impl Farm {
    /// A farm over `storage`; with a data directory, Parquet parts left by a crash are
    /// repaired or adopted and anything recorded but not yet exported is exported now.
    pub fn new(storage: Arc<dyn Storage>, clock: Arc<dyn Clock>, data_dir: Option<PathBuf>) -> Result<Farm> {
        let changes = Changes::new(Arc::clone(&storage));
        let exporter = Arc::new(Exporter::new(Arc::clone(&storage), Arc::clone(&clock), data_dir, changes.clone()));
        let farm = Farm {
            storage,
            clock,
            changes,
            exporter,
            run_kinds: Mutex::new(HashMap::new()),
            granted: Granted::default(),
            created: RequestKeys::default(),
            references: ReferenceNps::default(),
            tables: None,
            metrics: Arc::new(Metrics::default()),
        };
        // Results recorded just before a crash may have settled an SPRT whose verdict was
        // not stored yet.
        for run in farm.storage.list_runs()? {
            farm.check_sprt(&run)?;
        }
        // Other coordinators on the same database: their changes wake this one's watchers, and
        // the exporter's counts are everyone's. (The listener holds no `Storage`: the store
        // keeps it.)
        let (wake, exported) = (farm.changes.waker(), Arc::clone(farm.exporter.progress()));
        farm.storage.listen(Arc::new(move |change| {
            if let Change::Exported { run, games } = change {
                exporter::adopt_announced(&exported, run, games);
            }
            wake();
        }))?;
        farm.exporter.start()?;
        Ok(farm)
    }

    pub fn with_tablebases(mut self, tables: Option<Arc<engine::tablebase::Tablebases>>) -> Farm {
        self.tables = tables;
        self
    }

    /// The endgame tables of `serve --tablebases`, if any.
    pub fn tablebases(&self) -> Option<&Arc<engine::tablebase::Tablebases>> {
        self.tables.as_ref()
    }

    /// The farm with a reference speed: from now on, leases scale move times and clocks to each
    /// worker's bench speed (`None`: no scaling, the default). Leases granted before keep the
    /// scale they were granted with.
    pub fn with_reference_nps(mut self, reference_nps: Option<NonZeroU64>) -> Farm {
        self.references.hce = reference_nps;
        self
    }

    /// The farm with a reference speed for networks: from now on, leases of runs that play a
    /// network scale move times and clocks to each worker's speed with a network (`None`: such
    /// runs are not scaled, the default; [`crate::tc_scale::lease_scale`]).
    pub fn with_reference_nnue_nps(mut self, reference_nnue_nps: Option<NonZeroU64>) -> Farm {
        self.references.nnue = reference_nnue_nps;
        self
    }

    pub fn storage(&self) -> &Arc<dyn Storage> {
        &self.storage
    }

    /// The farm clock's time, ms since the Unix epoch.
    pub fn now_ms(&self) -> u64 {
        self.clock.now_ms()
    }

    /// A receiver that changes whenever runs or their results change.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    fn notify(&self) {
        self.changes.notify();
    }

    /// The Parquet exporter's role of this coordinator (the server runs its tick).
    pub fn exporter(&self) -> &Arc<Exporter> {
        &self.exporter
    }

    /// A receiver of the export progress: how many games of each run are in Parquet. It
    /// changes whenever an export adds games (WatchRun streams also wake on it, through
    /// [`Farm::subscribe`]).
    pub fn subscribe_exported(&self) -> watch::Receiver<ExportProgress> {
        self.exporter.subscribe()
    }

    /// What the coordinator counts as it runs: the RPC wrapper ([`crate::rpc_metrics`]) adds
    /// to it.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// The Prometheus text exposition of the farm's metrics: the counters, the storage's
    /// transaction times, and the load read now (leases, pending pairs, games, export lag).
    pub fn metrics_text(&self) -> Result<String> {
        let load = self.storage.farm_load()?;
        let export_lag_games = match self.exporter.has_data_dir() {
            true => load.games_by_run.iter().map(|&(run, g)| g.saturating_sub(self.exported_games(run))).sum(),
            // Nothing is exported without a data directory.
            false => 0,
        };
        let gauges = FarmGauges {
            active_leases: load.active_leases,
            pending_pairs: load.pending_pairs,
            open_ended_runs: load.open_ended_runs,
            games_total: load.games_by_run.iter().map(|(_, g)| g).sum(),
            export_lag_games,
        };
        Ok(metrics::render(&self.metrics, &self.storage.transaction_times(), &gauges))
    }

    /// Games of `run` in Parquet (0 without a data directory).
    pub fn exported_games(&self, run: RunId) -> u64 {
        self.exporter.exported_games(run)
    }

    /// Whether a watcher of this status has seen the last of the run: it is over, and (with a
    /// data directory) every recorded game is in Parquet.
    pub fn watch_is_over(&self, status: &RunStatus) -> bool {
        status.run.state != RunState::Active
            && (!self.exporter.has_data_dir() || status.exported_games >= run_games(&status.run))
    }

    /// The run's status with its live statistics and export progress.
    fn status_of(&self, run: Run) -> RunStatus {
        let exported = self.exported_games(run.id);
        let spsa = match &run.spec.kind {
            RunKind::Spsa(_) => self.storage.spsa_values(run.id).unwrap_or_else(|e| {
                tracing::warn!(run = %run.id, error = %e, "cannot read the SPSA values");
                Vec::new()
            }),
            _ => Vec::new(),
        };
        let tournament = match &run.spec.kind {
            RunKind::Tournament(_) => self.storage.tournament_draw(run.id).unwrap_or_else(|e| {
                tracing::warn!(run = %run.id, error = %e, "cannot read the tournament's draw");
                None
            }),
            _ => None,
        };
        RunStatus { exported_games: exported, spsa, tournament, ..status(run) }
    }

    /// Registers a worker (again: the same id for the same worker key). A worker that plays
    /// by other rules is refused here, so every batch it sends later is judged by its own rules.
    pub fn register(&self, info: &WorkerInfo) -> Result<WorkerId> {
        if info.rules_version != engine::RULES_VERSION {
            return Err(Error::RulesVersion { worker: info.rules_version, coordinator: engine::RULES_VERSION });
        }
        let id = self.storage.register_worker(info, self.clock.now_ms())?;
        let scale = |by| tc_scale::lease_scale(self.references, info.bench_nps, info.nnue_bench_nps, by);
        let (hce, nnue) = (scale(ScaledBy::Hce), scale(ScaledBy::Network));
        tracing::info!(
            worker = %id,
            name = %info.name,
            cores = info.cores,
            bench = info.bench_signature,
            nps = info.bench_nps,
            simd = info.simd.map_or("not said", SimdLevel::as_str),
            nnue_nps = info.nnue_bench_nps,
            tc_scale = %hce.scale,
            nnue_tc_scale = %nnue.scale,
            "worker registered"
        );
        if hce.clamped {
            tracing::warn!(
                worker = %id,
                name = %info.name,
                nps = info.bench_nps,
                reference_nps = self.references.hce.map_or(0, NonZeroU64::get),
                tc_scale = %hce.scale,
                "the worker's speed is beyond 1/4..4 times the reference: its time controls are scaled by the bound"
            );
        }
        if nnue.clamped {
            tracing::warn!(
                worker = %id,
                name = %info.name,
                nnue_nps = info.nnue_bench_nps,
                reference_nnue_nps = self.references.nnue.map_or(0, NonZeroU64::get),
                tc_scale = %nnue.scale,
                "the worker's speed with a network is beyond 1/4..4 times the reference: the time controls of runs \
                 that play a network are scaled by the bound"
            );
        }
        Ok(id)
    }

    /// Records the results riding on the request, renews held leases, and hands out work.
    pub fn lease(&self, req: &LeaseRequest) -> Result<LeaseReply> {
        let mut acks = Vec::with_capacity(req.finished.len());
        for batch in &req.finished {
            acks.push(self.record(req.worker, batch)?);
        }
        let now = self.clock.now_ms();
        let mut closed = Vec::new();
        for &lease in &req.held {
            if self.storage.heartbeat(req.worker, lease, now).is_err() {
                closed.push(lease);
            }
        }
        let grant = match self.storage.lease_batch_scaled(req.worker, req.free_slots, self.references, now)? {
            Some(lease) => {
                tracing::debug!(
                    worker = %req.worker,
                    lease = %lease.id,
                    run = %lease.run,
                    pairs = lease.tasks.len(),
                    tc = %lease.tc,
                    "leased"
                );
                self.granted.keep(LeaseTerms::from(&lease));
                LeaseGrant::Lease(lease)
            }
            None => LeaseGrant::NoWork { retry_after_ms: NO_WORK_RETRY_MS },
        };
        Ok(LeaseReply { acks, closed, grant })
    }

    pub fn submit(&self, req: &SubmitRequest) -> Result<BatchAck> {
        self.record(req.worker, &req.batch)
    }

    /// The one way results are counted: the referee replays every game against the lease's
    /// terms first, and a lie refuses the whole batch before anything is stored.
    fn record(&self, worker: WorkerId, batch: &BatchResult) -> Result<BatchAck> {
        let terms = match self.granted.get(batch.lease) {
            Some(terms) => terms,
            None => self.storage.lease_terms(batch.lease)?,
        };
        if let Err(e) = referee::check_batch(&terms, &batch.pairs, self.tables.as_deref()) {
            tracing::warn!(worker = %worker, lease = %batch.lease, seq = batch.seq, error = %e, "submission refused by the referee");
            return Err(e);
        }
        if self.run_kind(terms.run)? == RunKindName::Datagen
            && let Some((pair, game, variant)) = referee::unscored_game(&batch.pairs)
        {
            return Err(self.stop_unscored(terms.run, batch.lease, pair, game, variant));
        }
        let outcome = self.storage.record_results(
            worker,
            batch.lease,
            u64::from(batch.seq),
            &batch.pairs,
            batch.is_final,
            self.clock.now_ms(),
        )?;
        if batch.is_final {
            self.granted.forget(batch.lease);
        }
        if outcome.accepted > 0 {
            self.after_results(outcome.run)?;
        }
        Ok(BatchAck {
            lease: batch.lease,
            seq: batch.seq,
            recorded_pairs: outcome.accepted as u32,
            duplicate: outcome.duplicate,
            lease_closed: batch.is_final,
        })
    }

    /// New results for `run`: an SPRT run may stop. Only that run's statistics changed, so
    /// only it is looked at, and only if it is an SPRT. (Parquet export runs apart from the
    /// request path: see [`crate::exporter`].)
    fn after_results(&self, run: RunId) -> Result<()> {
        if self.is_sprt(run)? {
            self.check_sprt(&self.storage.get_run(run)?)?;
        }
        self.notify();
        Ok(())
    }

    /// Whether a run is an SPRT.
    fn is_sprt(&self, run: RunId) -> Result<bool> {
        Ok(self.run_kind(run)? == RunKindName::Sprt)
    }

    /// A run's kind; it never changes, so the answer is kept.
    fn run_kind(&self, run: RunId) -> Result<RunKindName> {
        let known = self
            .run_kinds
            .lock()
            .map_err(|_| Error::storage("reading run kinds", "the lock is poisoned"))?
            .get(&run)
            .copied();
        if let Some(kind) = known {
            return Ok(kind);
        }
        let kind = self.storage.get_run(run)?.spec.kind.name();
        if let Ok(mut kinds) = self.run_kinds.lock() {
            kinds.insert(run, kind);
        }
        Ok(kind)
    }

    /// A datagen run's engine reports no scores ([`referee::unscored_game`]): every game it
    /// plays would be refused, so the run is stopped (its pairs would otherwise go round the
    /// workers forever) and the refusal names the run, the variant and its engine.
    fn stop_unscored(
        &self,
        run: RunId,
        lease: proto::domain::LeaseId,
        pair: u64,
        game: u8,
        variant: &proto::domain::VariantId,
    ) -> Error {
        let engine = match self.storage.get_variant(variant) {
            Ok(v) => v.spec.kind.engine().map_or_else(|| format!("in-process `{}`", v.spec.name), |e| format!("`{e}`")),
            Err(e) => format!("unknown: {e}"),
        };
        let error = Error::Unscored { run, lease, pair, game, variant: variant.clone(), engine };
        tracing::error!(run = %run, error = %error, "datagen run stopped: its engine reports no scores");
        match self.storage.set_run_state(run, RunState::Stopped) {
            Ok(_) => self.notify(),
            // Stopped or finished already: nothing more to stop.
            Err(e) => tracing::warn!(run = %run, error = %e, "the datagen run without scores was not stopped"),
        }
        error
    }

    /// Records the verdict of an active SPRT run whose statistics reached a bound.
    fn check_sprt(&self, run: &Run) -> Result<()> {
        if let (RunState::Active, RunKind::Sprt(settings)) = (&run.state, &run.spec.kind) {
            let counts = run.stats.first().copied().unwrap_or_default();
            if let Some(progress) = sprt_progress(&counts, settings)
                && let Some(h) = progress.1
            {
                let h1 = h == Hypothesis::H1;
                self.storage.set_run_state(run.id, RunState::SprtDone { h1 })?;
                tracing::info!(run = %run.id, h1, llr = progress.0.llr, "SPRT finished");
            }
        }
        Ok(())
    }

    /// Exports every run's recorded games not yet in Parquet ([`Exporter::export_all`]).
    pub fn export_all(&self) -> Result<()> {
        self.exporter.export_all()
    }

    /// Writes the run's recorded but not yet exported games to Parquet ([`Exporter::export`]).
    pub fn export(&self, run: RunId) -> Result<()> {
        self.exporter.export(run)
    }

    pub fn expire_leases(&self) -> Result<usize> {
        let n = self.storage.expire_leases(self.clock.now_ms())?;
        if n > 0 {
            tracing::info!(expired = n, "leases expired; unfinished pairs back in the pool");
            self.notify();
        }
        Ok(n)
    }

    /// Beyond the structure, parameters must mean something to the engine, and a network they
    /// name must be stored (the storage checks that).
    pub fn add_variant(&self, spec: &VariantSpec) -> Result<Variant> {
        spec.validate().map_err(Error::from_spec)?;
        if let VariantKind::Params { toml } = &spec.kind {
            engine::ParamSet::from_toml_str(toml)
                .map_err(|e| Error::InvalidSpec { field: "params.toml".into(), reason: e.to_string() })?;
        }
        self.storage.add_variant(spec)
    }

    /// Stores a network file after the engine's reader accepted it; returns its id (the
    /// SHA-256 of the bytes) and whether it was new.
    pub fn add_network(&self, bytes: &[u8]) -> Result<NetworkId> {
        if bytes.len() > MAX_NETWORK_BYTES {
            return Err(Error::InvalidSpec {
                field: "network".into(),
                reason: format!("{} bytes; at most {MAX_NETWORK_BYTES} are accepted", bytes.len()),
            });
        }
        engine::nnue::Network::from_bytes(bytes)
            .map_err(|e| Error::InvalidSpec { field: "network".into(), reason: e.to_string() })?;
        let id = engine::nnue::NetworkId::of_file(bytes);
        self.storage.add_network(id, bytes, self.clock.now_ms())?;
        tracing::info!(network = %id, bytes = bytes.len(), "network stored");
        Ok(id)
    }

    pub fn get_network(&self, id: NetworkId) -> Result<Vec<u8>> {
        self.storage.get_network(id)
    }

    /// Stores a suite after checking every line with the engine's rules.
    pub fn add_openings(&self, spec: &OpeningSuiteSpec) -> Result<OpeningSuiteSummary> {
        spec.validate().map_err(Error::from_spec)?;
        for (i, line) in spec.openings.iter().enumerate() {
            check_opening(line).map_err(|reason| Error::InvalidSpec { field: format!("openings[{i}]"), reason })?;
        }
        let suite = self.storage.add_openings(&spec.name, &spec.openings)?;
        Ok(OpeningSuiteSummary { id: suite.id, name: suite.name, openings: suite.openings.len() as u32 })
    }

    /// Creates a run pinned to this coordinator's endgame tables, every set by its file's
    /// checksum (none without tables): its games are adjudicated by those files only.
    pub fn create_run(&self, spec: &RunSpec) -> Result<Run> {
        let pins = match &self.tables {
            Some(tables) => TablePin::of_manifest(&tables.manifest().map_err(|e| Error::Tablebase(e.to_string()))?),
            None => Vec::new(),
        };
        let run = self.storage.create_run_pinned(spec, &pins, self.clock.now_ms())?;
        tracing::info!(run = %run.id, name = %run.spec.name, tablebases = pins.len(), "run created");
        self.notify();
        Ok(run)
    }

    /// [`Farm::create_run`] once per `request_key` (empty: no key, always a new run): a key
    /// seen since this coordinator started answers with the run created for it
    /// ([`RequestKeys`]).
    pub fn create_run_once(&self, spec: &RunSpec, request_key: &str) -> Result<Run> {
        self.created.once(request_key, || self.create_run(spec), |id| self.storage.get_run(id))
    }

    pub fn stop_run(&self, id: RunId) -> Result<RunStatus> {
        let run = self.storage.get_run(id)?;
        let run = if run.state == RunState::Active { self.storage.set_run_state(id, RunState::Stopped)? } else { run };
        self.notify();
        Ok(self.status_of(run))
    }

    pub fn get_run(&self, id: RunId) -> Result<RunStatus> {
        let connected = self.connected_engines()?;
        self.waiting_status(self.status_of(self.storage.get_run(id)?), &connected)
    }

    /// The engines of the workers seen within [`scheduler::CONNECTED_WITHIN_MS`].
    fn connected_engines(&self) -> Result<Vec<Vec<proto::domain::EngineInfo>>> {
        let since = self.clock.now_ms().saturating_sub(crate::scheduler::CONNECTED_WITHIN_MS);
        self.storage.connected_engines(since)
    }

    /// An active run's status with the engines it waits for: those no connected worker has
    /// (with the binary the run pinned).
    fn waiting_status(&self, mut status: RunStatus, connected: &[Vec<proto::domain::EngineInfo>]) -> Result<RunStatus> {
        if status.run.state == RunState::Active {
            let needs = self.storage.run_engines(status.run.id)?;
            status.missing_engines = crate::scheduler::missing_engines(&needs, connected);
        }
        Ok(status)
    }

    pub fn list_runs(&self, filter: &RunFilter) -> Result<Vec<RunStatus>> {
        let mut runs: Vec<Run> = self.storage.list_runs()?;
        if filter.active_only {
            runs.retain(|r| r.state == RunState::Active);
        }
        runs.reverse();
        if filter.limit > 0 {
            runs.truncate(filter.limit as usize);
        }
        let connected = self.connected_engines()?;
        runs.into_iter().map(|run| self.waiting_status(self.status_of(run), &connected)).collect()
    }
}

/// Checks an opening line with the engine's parser: a valid FEN or `startpos`, legal moves,
/// a position with a legal move.
pub fn check_opening(line: &str) -> std::result::Result<(), String> {
    engine::OpeningLine::parse(line).map(drop).map_err(|e| e.to_string())
}

fn sprt_progress(
    counts: &PairingStats,
    settings: &proto::domain::SprtSettings,
) -> Option<(SprtProgress, Option<Hypothesis>)> {
    let p = Pentanomial { counts: counts.pentanomial };
    let r = stats::sprt(&p, settings).ok()?;
    Some((SprtProgress { llr: r.llr, lower_bound: r.lower, upper_bound: r.upper }, r.verdict))
}

/// The live statistics of a run's pairings (no export progress: see `Farm::get_run`).
pub fn status(run: Run) -> RunStatus {
    let live = run
        .stats
        .iter()
        .map(|c| {
            let p = Pentanomial { counts: c.pentanomial };
            let wdl = Wdl { wins: c.wins, draws: c.draws, losses: c.losses };
            let elo = stats::elo_estimate(&p);
            let nelo = stats::nelo_estimate(&p);
            let sprt = match &run.spec.kind {
                RunKind::Sprt(s) => sprt_progress(c, s).map(|(p, _)| p).or_else(|| {
                    let (lower_bound, upper_bound) = s.bounds();
                    Some(SprtProgress { llr: 0.0, lower_bound, upper_bound })
                }),
                _ => None,
            };
            // Self-play for data rates nothing: no Elo, no LOS (NaN, which every reader shows as
            // none).
            if let RunKind::Datagen(_) = run.spec.kind {
                let none = f64::NAN;
                return LiveStats {
                    counts: *c,
                    elo: none,
                    elo_lower: none,
                    elo_upper: none,
                    nelo: none,
                    nelo_lower: none,
                    nelo_upper: none,
                    los: none,
                    sprt: None,
                };
            }
            LiveStats {
                counts: *c,
                elo: elo.elo,
                elo_lower: elo.lower,
                elo_upper: elo.upper,
                nelo: nelo.nelo,
                nelo_lower: nelo.lower,
                nelo_upper: nelo.upper,
                los: stats::los(&wdl),
                sprt,
            }
        })
        .collect();
    RunStatus { run, live, missing_engines: Vec::new(), exported_games: 0, spsa: Vec::new(), tournament: None }
}
