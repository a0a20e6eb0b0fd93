//! The SQLite backend: one connection behind a mutex, one `BEGIN IMMEDIATE` transaction per
//! change, WAL journal. Opening the same file again restores every run, lease and game.
mod catalog;
mod codec;
mod leasing;
mod results;
mod schema;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use proto::domain::{
    Lease, LeaseId, OpeningSuite, PairReport, Run, RunId, RunSpec, RunState, SuiteId, Variant, VariantSpec, WorkerId,
    WorkerInfo,
};
use rusqlite::{Connection, Transaction, TransactionBehavior};

use super::{RecordOutcome, Storage, StoredGame};
use crate::error::{Error, Result};
use crate::spec;

/// Adds what was being done to a SQLite error.
trait Ctx<T> {
    fn ctx(self, context: &str) -> Result<T>;
}

impl<T> Ctx<T> for rusqlite::Result<T> {
    fn ctx(self, context: &str) -> Result<T> {
        self.map_err(|e| Error::storage(context, e))
    }
}

#[derive(Debug)]
pub struct SqliteStorage {
    conn: Mutex<Connection>,
    path: Option<PathBuf>,
}

impl SqliteStorage {
    /// Opens or creates the database file, creating or checking its schema.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStorage> {
        let path = path.as_ref();
        let mut conn = Connection::open(path).ctx(&format!("opening {}", path.display()))?;
        schema::prepare(&mut conn)?;
        tracing::info!(path = %path.display(), "database opened");
        Ok(SqliteStorage { conn: Mutex::new(conn), path: Some(path.to_owned()) })
    }

    /// A private database that lives as long as this value.
    pub fn open_in_memory() -> Result<SqliteStorage> {
        let mut conn = Connection::open_in_memory().ctx("opening an in-memory database")?;
        schema::prepare(&mut conn)?;
        Ok(SqliteStorage { conn: Mutex::new(conn), path: None })
    }

    /// The database file, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn lock(&self) -> Result<MutexGuard<'_, Connection>> {
        self.conn.lock().map_err(|_| Error::storage("locking the database connection", "the lock is poisoned"))
    }

    /// Runs `f` in one immediate transaction, committed only if `f` succeeds.
    fn write<T>(&self, context: &str, f: impl FnOnce(&Transaction<'_>) -> Result<T>) -> Result<T> {
        let mut conn = self.lock()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).ctx(context)?;
        let out = f(&tx)?;
        tx.commit().ctx(context)?;
        Ok(out)
    }

    /// Runs `f` in one read transaction: a consistent snapshot.
    fn read<T>(&self, context: &str, f: impl FnOnce(&Transaction<'_>) -> Result<T>) -> Result<T> {
        let mut conn = self.lock()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Deferred).ctx(context)?;
        let out = f(&tx)?;
        tx.commit().ctx(context)?;
        Ok(out)
    }
}

impl Storage for SqliteStorage {
    fn add_variant(&self, variant: &VariantSpec) -> Result<Variant> {
        spec::validate_variant_spec(variant)?;
        self.write("adding a variant", |tx| catalog::insert_variant(tx, variant))
    }

    fn get_variant(&self, id: &str) -> Result<Variant> {
        self.read("reading a variant", |tx| catalog::load_variant(tx, id))
    }

    fn add_openings(&self, name: &str, lines: &[String]) -> Result<OpeningSuite> {
        spec::validate_suite(name, lines)?;
        self.write("adding openings", |tx| catalog::insert_suite(tx, name, lines))
    }

    fn get_suite(&self, id: SuiteId) -> Result<OpeningSuite> {
        self.read("reading a suite", |tx| catalog::load_suite(tx, id))
    }

    fn create_run(&self, run_spec: &RunSpec, now_ms: u64) -> Result<Run> {
        spec::validate_run_spec(run_spec)?;
        let run = self.write("creating a run", |tx| catalog::insert_run(tx, run_spec, now_ms))?;
        tracing::info!(run = run.id, name = %run.spec.name, "run created");
        Ok(run)
    }

    fn get_run(&self, id: RunId) -> Result<Run> {
        self.read("reading a run", |tx| catalog::load_run(tx, id))
    }

    fn list_runs(&self) -> Result<Vec<Run>> {
        self.read("listing runs", |tx| catalog::list_runs(tx))
    }

    fn set_run_state(&self, id: RunId, state: RunState) -> Result<Run> {
        let run = self.write("setting a run's state", |tx| catalog::set_run_state(tx, id, state))?;
        tracing::info!(run = id, state = ?run.state, "run state set");
        Ok(run)
    }

    fn register_worker(&self, info: &WorkerInfo, now_ms: u64) -> Result<WorkerId> {
        spec::validate_worker_info(info)?;
        let id = self.write("registering a worker", |tx| leasing::insert_worker(tx, info, now_ms))?;
        tracing::info!(worker = id, name = %info.name, "worker registered");
        Ok(id)
    }

    fn lease_batch(&self, worker: WorkerId, free_slots: u32, now_ms: u64) -> Result<Option<Lease>> {
        self.write("leasing a batch", |tx| leasing::lease_batch(tx, worker, free_slots, now_ms))
    }

    fn record_results(
        &self,
        worker: WorkerId,
        lease: LeaseId,
        seq: u64,
        pairs: &[PairReport],
        final_batch: bool,
        now_ms: u64,
    ) -> Result<RecordOutcome> {
        self.write("recording results", |tx| {
            results::record_results(tx, worker, lease, seq, pairs, final_batch, now_ms)
        })
    }

    fn heartbeat(&self, worker: WorkerId, lease: LeaseId, now_ms: u64) -> Result<u64> {
        self.write("extending a lease", |tx| leasing::heartbeat(tx, worker, lease, now_ms))
    }

    fn expire_leases(&self, now_ms: u64) -> Result<usize> {
        self.write("expiring leases", |tx| leasing::expire(tx, now_ms))
    }

    fn games_since(&self, run: RunId, after_game_id: u64, limit: usize) -> Result<Vec<StoredGame>> {
        self.read("reading games", |tx| results::games_since(tx, run, after_game_id, limit))
    }

    fn mark_exported(&self, run: RunId, up_to_game_id: u64) -> Result<()> {
        self.write("marking games exported", |tx| catalog::mark_exported(tx, run, up_to_game_id))
    }

    fn exported_up_to(&self, run: RunId) -> Result<u64> {
        self.read("reading the export mark", |tx| catalog::exported_up_to(tx, run))
    }
}
