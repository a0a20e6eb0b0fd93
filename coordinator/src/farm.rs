//! The coordinator's behaviour, free of gRPC: leases and results, SPRT verdicts, the
//! Parquet export and live statistics, over a `Storage` and a `Clock`. The gRPC handlers in
//! `grpc.rs` only convert and call these methods.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::num::NonZeroU64;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use analysis::stats::{self, Hypothesis, Pentanomial, Wdl};
use proto::domain::{
    BatchAck, BatchResult, LeaseGrant, LeaseReply, LeaseRequest, LiveStats, OpeningSuiteSpec, OpeningSuiteSummary,
    PairingStats, Run, RunFilter, RunId, RunKind, RunSpec, RunState, RunStatus, SprtProgress, SubmitRequest, TablePin,
    Variant, VariantKind, VariantSpec, WorkerId, WorkerInfo,
};
use tokio::sync::watch;

use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::metrics::{self, FarmGauges, Metrics};
use crate::parquet::{self as pq, CompactionPolicy};
use crate::referee;
use crate::run_openings::RunOpenings;
use crate::storage::Storage;
use crate::storage::feed::Change;
use crate::tc_scale;

/// How long a worker with no work waits before asking again.
pub const NO_WORK_RETRY_MS: u64 = 1_000;
/// Games exported per Parquet segment at most.
const EXPORT_BATCH: usize = 5_000;
/// CreateRun request keys remembered (the oldest is forgotten first).
const REQUEST_KEYS_KEPT: usize = 4_096;
/// The longest CreateRun request key.
const REQUEST_KEY_MAX: usize = 128;

/// How many games of each run are in Parquet ("exported up to game N"), published by the
/// exporter. A run absent from the map has none.
pub type ExportProgress = BTreeMap<RunId, u64>;

pub struct Farm {
    storage: Arc<dyn Storage>,
    clock: Arc<dyn Clock>,
    data_dir: Option<PathBuf>,
    /// Bumped after every change a watcher may care about, here or (announced through the
    /// store) by another coordinator on the same database.
    changes: Arc<watch::Sender<u64>>,
    /// Exports of one run must not interleave (segment ranges, compaction).
    export_lock: Mutex<()>,
    /// Whether each run seen so far is an SPRT (a run's kind never changes).
    sprt_runs: Mutex<HashMap<RunId, bool>>,
    /// The `runs` table as last written, so an unchanged table is not rewritten every pass.
    runs_written: Mutex<Vec<pq::RunRow>>,
    /// Each SPSA run's history as last written: its number of points and when.
    spsa_written: Mutex<HashMap<RunId, (usize, u64)>>,
    /// Games of each run in Parquet; every export that adds some publishes the new counts.
    exported: Arc<watch::Sender<ExportProgress>>,
    /// Whether this coordinator held the exporter's role at its last export: only the store's
    /// exporter writes Parquet ([`Storage::exporter`]); one that takes the role over first
    /// adopts what the previous exporter left.
    exporting: AtomicBool,
    /// The runs CreateRun made for recent request keys, oldest first: a retried CreateRun
    /// gets the run its first attempt made. Held while a keyed run is created, so two
    /// attempts in flight at once cannot both create one.
    created: Mutex<VecDeque<(String, RunId)>>,
    /// The bench speed (nodes per second) the runs' time controls are meant for: a worker
    /// measured at another speed gets its move times and clocks scaled ([`crate::tc_scale`]).
    /// `None`: every worker plays the runs' time controls as they are.
    reference_nps: Option<NonZeroU64>,
    /// Endgame tables the referee checks `tablebase` endings against (`None`: such an ending
    /// is refused).
    tables: Option<Arc<engine::tablebase::Tablebases>>,
    /// What is counted as it happens (RPCs), for the metrics.
    metrics: Arc<Metrics>,
}

/// How often an active SPSA run's history file is rewritten at most.
pub const SPSA_EXPORT_EVERY_MS: u64 = 10_000;

impl std::fmt::Debug for Farm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Farm").field("data_dir", &self.data_dir).finish_non_exhaustive()
    }
}

impl Farm {
    /// A farm over `storage`; with a data directory, Parquet parts left by a crash are
    /// repaired or adopted and anything recorded but not yet exported is exported now.
    pub fn new(storage: Arc<dyn Storage>, clock: Arc<dyn Clock>, data_dir: Option<PathBuf>) -> Result<Farm> {
        let changes = Arc::new(watch::channel(0).0);
        let exported = Arc::new(watch::channel(ExportProgress::new()).0);
        let farm = Farm {
            storage,
            clock,
            data_dir,
            changes,
            export_lock: Mutex::new(()),
            sprt_runs: Mutex::new(HashMap::new()),
            runs_written: Mutex::new(Vec::new()),
            spsa_written: Mutex::new(HashMap::new()),
            exported,
            exporting: AtomicBool::new(false),
            created: Mutex::new(VecDeque::new()),
            reference_nps: None,
            tables: None,
            metrics: Arc::new(Metrics::default()),
        };
        // Results recorded just before a crash may have settled an SPRT whose verdict was
        // not stored yet.
        for run in farm.storage.list_runs()? {
            farm.check_sprt(&run)?;
        }
        // Other coordinators on the same database: their changes wake this one's watchers, and
        // the exporter's counts are everyone's.
        let (changes, exported) = (Arc::clone(&farm.changes), Arc::clone(&farm.exported));
        farm.storage.listen(Arc::new(move |change| {
            if let Change::Exported { run, games } = change {
                exported.send_modify(|progress| {
                    let count = progress.entry(run).or_insert(0);
                    *count = games.max(*count);
                });
            }
            changes.send_modify(|v| *v += 1);
        }))?;
        if farm.data_dir.is_some() {
            if farm.storage.exporter()? {
                farm.take_export_role()?;
            } else {
                farm.follow_exports()?;
            }
        }
        Ok(farm)
    }

    /// Becomes the exporter: Parquet parts left by a crash (of this coordinator, or of the
    /// exporter before it) are repaired or adopted, and everything recorded is exported.
    fn take_export_role(&self) -> Result<()> {
        let Some(dir) = &self.data_dir else {
            return Ok(());
        };
        self.exporting.store(true, Ordering::SeqCst);
        std::fs::create_dir_all(dir).map_err(|e| Error::Export(format!("creating {}: {e}", dir.display())))?;
        for run in self.storage.list_runs()? {
            // Files an older version wrote, upgraded before `recover` judges them.
            let mut lines = RunOpenings::of_run(self.storage.as_ref(), &run)?;
            pq::migrate_games(dir, run.id, |index| lines.get(index).cloned())
                .map_err(|e| Error::Export(e.to_string()))?;
            let done = self.storage.exported_up_to(run.id)?;
            let adopted = pq::recover(dir, run.id, done).map_err(|e| Error::Export(e.to_string()))?;
            if adopted > done {
                self.storage.mark_exported(run.id, adopted)?;
            }
            self.export(run.id)?;
            // Everything recorded is exported now: the run's Parquet holds all its games.
            let games = run_games(&self.storage.get_run(run.id)?);
            self.exported.send_modify(|progress| {
                progress.insert(run.id, games);
            });
            self.storage.announce(Change::Exported { run: run.id, games });
        }
        // The `runs` table in today's vocabulary, even if an older version wrote it.
        self.export_runs(&self.storage.list_runs()?)
    }

    /// Another coordinator exports: the runs it has exported completely count as such until
    /// it announces more.
    fn follow_exports(&self) -> Result<()> {
        for run in self.storage.list_runs()? {
            let done = self.storage.exported_up_to(run.id)?;
            if self.storage.games_since(run.id, done, 1)?.is_empty() {
                let games = run_games(&run);
                self.exported.send_modify(|progress| {
                    progress.insert(run.id, games);
                });
            }
        }
        Ok(())
    }

    /// The farm with a reference speed: from now on, leases scale move times and clocks to each
    /// worker's bench speed (`None`: no scaling, the default). Leases granted before keep the
    /// scale they were granted with.
    pub fn with_tablebases(mut self, tables: Option<Arc<engine::tablebase::Tablebases>>) -> Farm {
        self.tables = tables;
        self
    }

    /// The endgame tables of `serve --tablebases`, if any.
    pub fn tablebases(&self) -> Option<&Arc<engine::tablebase::Tablebases>> {
        self.tables.as_ref()
    }

    pub fn with_reference_nps(mut self, reference_nps: Option<NonZeroU64>) -> Farm {
        self.reference_nps = reference_nps;
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
        self.changes.send_modify(|v| *v += 1);
        self.storage.announce(Change::Runs);
    }

    /// A receiver of the export progress: how many games of each run are in Parquet. It
    /// changes whenever an export adds games (WatchRun streams also wake on it, through
    /// [`Farm::subscribe`]).
    pub fn subscribe_exported(&self) -> watch::Receiver<ExportProgress> {
        self.exported.subscribe()
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
        let export_lag_games = match self.data_dir {
            Some(_) => load.games_by_run.iter().map(|&(run, g)| g.saturating_sub(self.exported_games(run))).sum(),
            // Nothing is exported without a data directory.
            None => 0,
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
        self.exported.borrow().get(&run).copied().unwrap_or(0)
    }

    /// Whether a watcher of this status has seen the last of the run: it is over, and (with a
    /// data directory) every recorded game is in Parquet.
    pub fn watch_is_over(&self, status: &RunStatus) -> bool {
        status.run.state != RunState::Active
            && (self.data_dir.is_none() || status.exported_games >= run_games(&status.run))
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
        let scale = tc_scale::worker_scale(self.reference_nps, info.bench_nps);
        tracing::info!(
            worker = %id,
            name = %info.name,
            cores = info.cores,
            bench = info.bench_signature,
            nps = info.bench_nps,
            tc_scale = %scale.scale,
            "worker registered"
        );
        if scale.clamped {
            tracing::warn!(
                worker = %id,
                name = %info.name,
                nps = info.bench_nps,
                reference_nps = self.reference_nps.map_or(0, NonZeroU64::get),
                tc_scale = %scale.scale,
                "the worker's speed is beyond 1/4..4 times the reference: its time controls are scaled by the bound"
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
        let grant = match self.storage.lease_batch_scaled(req.worker, req.free_slots, self.reference_nps, now)? {
            Some(lease) => {
                tracing::debug!(
                    worker = %req.worker,
                    lease = %lease.id,
                    run = %lease.run,
                    pairs = lease.tasks.len(),
                    tc = %lease.tc,
                    "leased"
                );
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
        let terms = self.storage.lease_terms(batch.lease)?;
        if let Err(e) = referee::check_batch(&terms, &batch.pairs, self.tables.as_deref()) {
            tracing::warn!(worker = %worker, lease = %batch.lease, seq = batch.seq, error = %e, "submission refused by the referee");
            return Err(e);
        }
        let outcome = self.storage.record_results(
            worker,
            batch.lease,
            u64::from(batch.seq),
            &batch.pairs,
            batch.is_final,
            self.clock.now_ms(),
        )?;
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
    /// request path: see `export_all`.)
    fn after_results(&self, run: RunId) -> Result<()> {
        if self.is_sprt(run)? {
            self.check_sprt(&self.storage.get_run(run)?)?;
        }
        self.notify();
        Ok(())
    }

    /// Whether a run is an SPRT; a run's kind never changes, so the answer is kept.
    fn is_sprt(&self, run: RunId) -> Result<bool> {
        let known = self
            .sprt_runs
            .lock()
            .map_err(|_| Error::storage("reading run kinds", "the lock is poisoned"))?
            .get(&run)
            .copied();
        if let Some(sprt) = known {
            return Ok(sprt);
        }
        let sprt = matches!(self.storage.get_run(run)?.spec.kind, RunKind::Sprt(_));
        if let Ok(mut kinds) = self.sprt_runs.lock() {
            kinds.insert(run, sprt);
        }
        Ok(sprt)
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

    /// Exports every run's recorded games not yet in Parquet. The server calls this about
    /// once a second and at shutdown, so submissions never wait for file writes.
    pub fn export_all(&self) -> Result<()> {
        if self.data_dir.is_none() {
            return Ok(());
        }
        if !self.storage.exporter()? {
            self.exporting.store(false, Ordering::SeqCst);
            return Ok(());
        }
        if !self.exporting.load(Ordering::SeqCst) {
            tracing::info!("taking over the export of Parquet");
            return self.take_export_role();
        }
        let runs = self.storage.list_runs()?;
        for run in &runs {
            self.export(run.id)?;
            self.export_spsa(run)?;
        }
        self.export_runs(&runs)
    }

    /// Rewrites an SPSA run's history file when it grew: at most every
    /// [`SPSA_EXPORT_EVERY_MS`] while the run is active, at once when it is over.
    fn export_spsa(&self, run: &Run) -> Result<()> {
        let (Some(dir), RunKind::Spsa(settings)) = (&self.data_dir, &run.spec.kind) else {
            return Ok(());
        };
        let now = self.clock.now_ms();
        let mut written = self.spsa_written.lock().map_err(|_| Error::Export("SPSA export lock poisoned".into()))?;
        let (points, at) = written.get(&run.id).copied().unwrap_or((0, 0));
        if run.state == RunState::Active && now < at.saturating_add(SPSA_EXPORT_EVERY_MS) && points > 0 {
            return Ok(());
        }
        let history = self.storage.spsa_history(run.id)?;
        if history.len() != points {
            pq::write_spsa(dir, run.id, &settings.params, &history).map_err(|e| Error::Export(e.to_string()))?;
            written.insert(run.id, (history.len(), now));
        }
        Ok(())
    }

    /// Rewrites the `runs` table when a run was added or changed state.
    fn export_runs(&self, runs: &[Run]) -> Result<()> {
        let Some(dir) = &self.data_dir else {
            return Ok(());
        };
        let mut rows = Vec::with_capacity(runs.len());
        for run in runs {
            let variants =
                run.spec.variants.iter().map(|id| self.storage.get_variant(id)).collect::<Result<Vec<_>>>()?;
            rows.push(pq::RunRow::new(run, &variants));
        }
        let mut written = self.runs_written.lock().map_err(|_| Error::Export("runs table lock poisoned".into()))?;
        if *written != rows {
            pq::write_runs(dir, &rows).map_err(|e| Error::Export(e.to_string()))?;
            *written = rows;
        }
        Ok(())
    }

    /// Writes the run's recorded but not yet exported games to Parquet (one segment per
    /// call batch), then compacts small parts. A no-op without a data directory.
    pub fn export(&self, run: RunId) -> Result<()> {
        let Some(dir) = &self.data_dir else {
            return Ok(());
        };
        let _guard = self.export_lock.lock().map_err(|_| Error::Export("export lock poisoned".into()))?;
        let mut lines: Option<RunOpenings> = None;
        loop {
            // Checked before every part: a coordinator that lost the role (its database
            // connection died, and another took it) writes nothing more.
            if !self.storage.exporter()? {
                self.exporting.store(false, Ordering::SeqCst);
                tracing::warn!(run = %run, "lost the exporter role; another coordinator exports");
                return Ok(());
            }
            let done = self.storage.exported_up_to(run)?;
            let games = self.storage.games_since(run, done, EXPORT_BATCH)?;
            let Some(last) = games.last().map(|g| g.game_id) else {
                break;
            };
            let lines = match &mut lines {
                Some(lines) => lines,
                None => lines.insert(RunOpenings::of_run(self.storage.as_ref(), &self.storage.get_run(run)?)?),
            };
            let mut rows = Vec::with_capacity(games.len());
            for g in &games {
                let opening = lines.get(g.opening_index).map_err(|e| {
                    Error::Corrupt(format!("run {run} game {}: opening {}: {e}", g.game_id, g.opening_index))
                })?;
                rows.push(pq::rows_from_report(
                    run,
                    g.game_id,
                    g.pair_index,
                    (g.opening_index, opening),
                    &g.worker,
                    &g.report,
                ));
            }
            pq::export_segment(dir, run, &rows).map_err(|e| Error::Export(e.to_string()))?;
            self.storage.mark_exported(run, last)?;
            let added = games.len() as u64;
            let mut games_now = 0;
            self.exported.send_modify(|progress| {
                let count = progress.entry(run).or_insert(0);
                *count += added;
                games_now = *count;
            });
            self.storage.announce(Change::Exported { run, games: games_now });
            self.notify();
            if games.len() < EXPORT_BATCH {
                break;
            }
        }
        let done = self.storage.exported_up_to(run)?;
        pq::compact(dir, run, done, &CompactionPolicy::default()).map_err(|e| Error::Export(e.to_string()))?;
        Ok(())
    }

    pub fn expire_leases(&self) -> Result<usize> {
        let n = self.storage.expire_leases(self.clock.now_ms())?;
        if n > 0 {
            tracing::info!(expired = n, "leases expired; unfinished pairs back in the pool");
            self.notify();
        }
        Ok(n)
    }

    pub fn add_variant(&self, spec: &VariantSpec) -> Result<Variant> {
        spec.validate().map_err(Error::from_spec)?;
        // Beyond the structure, parameters must mean something to the engine.
        if let VariantKind::Params { toml } = &spec.kind {
            engine::ParamSet::from_toml_str(toml)
                .map_err(|e| Error::InvalidSpec { field: "params.toml".into(), reason: e.to_string() })?;
        }
        self.storage.add_variant(spec)
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
    /// seen since this coordinator started answers with the run created for it. Keys live in
    /// memory only (the last [`REQUEST_KEYS_KEPT`]); see `proto::client` for what that leaves.
    pub fn create_run_once(&self, spec: &RunSpec, request_key: &str) -> Result<Run> {
        if request_key.is_empty() {
            return self.create_run(spec);
        }
        if request_key.len() > REQUEST_KEY_MAX || !request_key.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(Error::InvalidSpec {
                field: "request_key".into(),
                reason: format!("at most {REQUEST_KEY_MAX} printable ASCII characters, got {:?}", request_key),
            });
        }
        let mut created =
            self.created.lock().map_err(|_| Error::storage("reading request keys", "the lock is poisoned"))?;
        if let Some(&(_, id)) = created.iter().find(|(key, _)| key == request_key) {
            tracing::info!(run = %id, "CreateRun sent again with the same request key: the run made the first time");
            return self.storage.get_run(id);
        }
        let run = self.create_run(spec)?;
        if created.len() >= REQUEST_KEYS_KEPT {
            created.pop_front();
        }
        created.push_back((request_key.to_owned(), run.id));
        Ok(run)
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

/// Games recorded for a run: two per recorded pair, over all its pairings.
fn run_games(run: &Run) -> u64 {
    run.stats.iter().map(PairingStats::games).sum()
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
