//! The Parquet exporter's role: exactly one coordinator on a store writes the farm's games,
//! SPSA histories and `runs` table to Parquet ([`Storage::exporter`]), apart from the request
//! path (a background tick, and once at shutdown), so submissions never wait for file
//! writes. Every coordinator publishes how far each run is exported ([`ExportProgress`]).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use proto::domain::{PairingStats, Run, RunId, RunKind, RunState};
use tokio::sync::watch;

use crate::changes::Changes;
use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::run_openings::RunOpenings;
use crate::storage::Storage;
use crate::storage::feed::Change;
use farmdata::{self as pq, CompactionPolicy};

/// Games exported per Parquet segment at most.
const EXPORT_BATCH: usize = 5_000;
/// How often an active SPSA run's history file is rewritten at most.
pub const SPSA_EXPORT_EVERY_MS: u64 = 10_000;
/// How often the export tick runs.
const EXPORT_EVERY: Duration = Duration::from_secs(1);

/// How many games of each run are in Parquet ("exported up to game N"), published by the
/// exporter. A run absent from the map has none.
pub type ExportProgress = BTreeMap<RunId, u64>;

/// One coordinator's side of the export: the writer when it holds the store's exporter role,
/// a follower of the exporter's announced progress otherwise. Without a data directory it
/// exports nothing.
pub struct Exporter {
    storage: Arc<dyn Storage>,
    clock: Arc<dyn Clock>,
    data_dir: Option<PathBuf>,
    changes: Changes,
    /// Exports of one run must not interleave (segment ranges, compaction).
    export_lock: Mutex<()>,
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
}

impl std::fmt::Debug for Exporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exporter")
            .field("data_dir", &self.data_dir)
            .field("exporting", &self.exporting)
            .finish_non_exhaustive()
    }
}

impl Exporter {
    /// An exporter that has not started: [`Exporter::start`] takes the role or follows.
    pub(crate) fn new(
        storage: Arc<dyn Storage>,
        clock: Arc<dyn Clock>,
        data_dir: Option<PathBuf>,
        changes: Changes,
    ) -> Exporter {
        Exporter {
            storage,
            clock,
            data_dir,
            changes,
            export_lock: Mutex::new(()),
            runs_written: Mutex::new(Vec::new()),
            spsa_written: Mutex::new(HashMap::new()),
            exported: Arc::new(watch::channel(ExportProgress::new()).0),
            exporting: AtomicBool::new(false),
        }
    }

    /// With a data directory: the store's exporter takes the role (Parquet parts left by a
    /// crash are repaired or adopted and anything recorded but not yet exported is exported
    /// now); any other coordinator follows the exporter's progress.
    pub(crate) fn start(&self) -> Result<()> {
        if self.data_dir.is_none() {
            return Ok(());
        }
        if self.storage.exporter()? { self.take_role() } else { self.follow() }
    }

    /// Whether this coordinator has a data directory (without one nothing is exported).
    pub fn has_data_dir(&self) -> bool {
        self.data_dir.is_some()
    }

    /// The data directory Parquet is written to, if any.
    pub fn data_dir(&self) -> Option<&PathBuf> {
        self.data_dir.as_ref()
    }

    /// The progress publisher, for the store's listener: another coordinator's announced
    /// counts are adopted with [`adopt_announced`].
    pub(crate) fn progress(&self) -> &Arc<watch::Sender<ExportProgress>> {
        &self.exported
    }

    /// A receiver of the export progress: how many games of each run are in Parquet.
    pub fn subscribe(&self) -> watch::Receiver<ExportProgress> {
        self.exported.subscribe()
    }

    /// Games of `run` in Parquet (0 without a data directory).
    pub fn exported_games(&self, run: RunId) -> u64 {
        self.exported.borrow().get(&run).copied().unwrap_or(0)
    }

    /// Becomes the exporter: Parquet parts left by a crash (of this coordinator, or of the
    /// exporter before it) are repaired or adopted, and everything recorded is exported.
    fn take_role(&self) -> Result<()> {
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
            pq::migrate_positions(dir, run.id).map_err(|e| Error::Export(e.to_string()))?;
            let done = self.storage.exported_up_to(run.id)?;
            let recovered = pq::recover(dir, run.id, done).map_err(|e| Error::Export(e.to_string()))?;
            if recovered.exported_up_to > done {
                self.storage.mark_exported(run.id, recovered.exported_up_to)?;
            }
            // The count comes from the files: the run's recorded games may grow while this
            // exports, and what is recorded is not yet what is in Parquet.
            self.exported.send_modify(|progress| {
                progress.insert(run.id, recovered.games);
            });
            // Adds what it writes to the count, and announces it when it writes anything.
            self.export(run.id)?;
            self.storage.announce(Change::Exported { run: run.id, games: self.exported_games(run.id) });
        }
        // The `runs` table in today's vocabulary, even if an older version wrote it.
        self.export_runs(&self.storage.list_runs()?)
    }

    /// Another coordinator exports: the runs it has exported completely count as such until
    /// it announces more.
    fn follow(&self) -> Result<()> {
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

    /// Exports every run's recorded games not yet in Parquet. The export tick
    /// ([`spawn_export_tick`]) calls this about once a second, and the server at shutdown.
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
            return self.take_role();
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
                let opening = lines.of_pair(g.opening_index, g.pair_index, g.game_in_pair).map_err(|e| {
                    Error::Corrupt(format!("run {run} game {}: opening {}: {e}", g.game_id, g.opening_index))
                })?;
                rows.push(pq::rows_from_report(
                    run,
                    g.game_id,
                    g.pair_index,
                    (g.opening_index, &opening),
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
            self.changes.notify();
            if games.len() < EXPORT_BATCH {
                break;
            }
        }
        let done = self.storage.exported_up_to(run)?;
        pq::compact(dir, run, done, &CompactionPolicy::default()).map_err(|e| Error::Export(e.to_string()))?;
        Ok(())
    }
}

/// Another coordinator's announcement that `run` has `games` in Parquet: counts only grow.
pub(crate) fn adopt_announced(progress: &watch::Sender<ExportProgress>, run: RunId, games: u64) {
    progress.send_modify(|progress| {
        let count = progress.entry(run).or_insert(0);
        *count = games.max(*count);
    });
}

/// The export tick: [`Exporter::export_all`] about once a second on a blocking thread, a
/// failure logged and retried at the next tick. Abort the task to stop it.
pub fn spawn_export_tick(exporter: Arc<Exporter>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(EXPORT_EVERY);
        loop {
            tick.tick().await;
            let exporter = Arc::clone(&exporter);
            match tokio::task::spawn_blocking(move || exporter.export_all()).await {
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, "Parquet export failed; retried next tick")
                }
                Err(e) => tracing::warn!(error = %e, "Parquet export task failed"),
                Ok(Ok(())) => {}
            }
        }
    })
}

/// Games recorded for a run: two per recorded pair, over all its pairings.
pub(crate) fn run_games(run: &Run) -> u64 {
    run.stats.iter().map(PairingStats::games).sum()
}
