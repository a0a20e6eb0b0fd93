//! The SQLite backend. One writer thread owns the connection that changes the database and
//! commits the calls of many callers together (`writer.rs`); reads run on a small pool of
//! reader connections, each in its own snapshot; a checkpointer thread keeps the WAL short off
//! the request path (`checkpoint.rs`). Every call is still atomic: it happens completely or not
//! at all, and returns only once committed. Opening the same file again restores every run,
//! lease and game.
mod catalog;
mod checkpoint;
mod codec;
mod db;
mod engines;
mod leasing;
mod results;
mod schema;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use proto::domain::{
    EngineInfo, Lease, LeaseId, OpeningSuite, PairReport, Run, RunId, RunSpec, RunState, SuiteId, Variant, VariantId,
    VariantSpec, WorkerId, WorkerInfo,
};
use rusqlite::{Connection, Transaction, TransactionBehavior};

use self::checkpoint::Checkpointer;
use self::db::Db;
use self::writer::Writer;
use super::{LeaseTerms, RecordOutcome, Storage, StoredGame};
use crate::error::{Error, Result};
use crate::scheduler::EngineNeed;
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

/// Idle reader connections kept open; more are opened when more reads run at once.
const IDLE_READERS: usize = 4;

/// Reader connections to a database file.
#[derive(Debug)]
struct Readers {
    path: PathBuf,
    idle: Mutex<Vec<Db>>,
}

impl Readers {
    fn take(&self) -> Result<Db> {
        let idle = self.idle.lock().map_err(|_| Error::storage("taking a reader", "the lock is poisoned"))?.pop();
        match idle {
            Some(db) => Ok(db),
            None => {
                let conn = Connection::open(&self.path).ctx("opening a reader")?;
                schema::configure(&conn)?;
                conn.pragma_update(None, "query_only", "ON").ctx("making a reader read-only")?;
                Ok(Db::new(conn))
            }
        }
    }

    fn give_back(&self, db: Db) {
        if let Ok(mut idle) = self.idle.lock()
            && idle.len() < IDLE_READERS
        {
            idle.push(db);
        }
    }

    /// Runs `f` in one read transaction: a consistent snapshot of what was committed.
    fn read<T>(&self, context: &str, f: impl FnOnce(&Db) -> Result<T>) -> Result<T> {
        let db = self.take()?;
        let out = Transaction::new_unchecked(&db, TransactionBehavior::Deferred).ctx(context).and_then(|tx| {
            let out = f(&db)?;
            tx.commit().ctx(context)?;
            Ok(out)
        });
        self.give_back(db);
        out
    }
}

pub struct SqliteStorage {
    // Fields drop in order: the writer finishes its queued calls first.
    writer: Writer,
    /// `None` for an in-memory database, whose only connection is the writer's.
    readers: Option<Readers>,
    /// Kept for its `Drop`, which stops the thread.
    _checkpointer: Option<Checkpointer>,
    path: Option<PathBuf>,
}

impl std::fmt::Debug for SqliteStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStorage").field("path", &self.path).finish_non_exhaustive()
    }
}

impl SqliteStorage {
    /// Opens or creates the database file, creating or checking its schema.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStorage> {
        let path = path.as_ref();
        let mut conn = Connection::open(path).ctx(&format!("opening {}", path.display()))?;
        schema::prepare(&mut conn)?;
        let mut db = Db::new(conn);
        let checkpoints = Connection::open(path).ctx("opening the checkpointer's connection")?;
        schema::configure(&checkpoints)?;
        let (checkpointer, policy) = Checkpointer::start(checkpoints, &mut db)?;
        let writer = Writer::start(db, policy)?;
        tracing::info!(path = %path.display(), "database opened");
        Ok(SqliteStorage {
            writer,
            readers: Some(Readers { path: path.to_owned(), idle: Mutex::new(Vec::new()) }),
            _checkpointer: Some(checkpointer),
            path: Some(path.to_owned()),
        })
    }

    /// A private database that lives as long as this value.
    pub fn open_in_memory() -> Result<SqliteStorage> {
        let mut conn = Connection::open_in_memory().ctx("opening an in-memory database")?;
        schema::prepare(&mut conn)?;
        let writer = Writer::start(Db::new(conn), |_: &Db| {})?;
        Ok(SqliteStorage { writer, readers: None, _checkpointer: None, path: None })
    }

    /// The database file, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Runs `f` in the writer's next transaction; returns once that transaction committed.
    fn write<T, F>(&self, context: &'static str, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Db) -> Result<T> + Send + 'static,
    {
        self.writer.call(context, f)
    }

    /// Runs `f` on a snapshot of what was committed (in memory: in the writer's transaction).
    fn read<T, F>(&self, context: &'static str, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Db) -> Result<T> + Send + 'static,
    {
        match &self.readers {
            Some(readers) => readers.read(context, f),
            None => self.writer.call(context, f),
        }
    }
}

impl Storage for SqliteStorage {
    fn add_variant(&self, variant: &VariantSpec) -> Result<Variant> {
        spec::validate_variant_spec(variant)?;
        let variant = variant.clone();
        self.write("adding a variant", move |db| catalog::insert_variant(db, &variant))
    }

    fn get_variant(&self, id: &VariantId) -> Result<Variant> {
        let id = id.clone();
        self.read("reading a variant", move |db| catalog::load_variant(db, &id))
    }

    fn add_openings(&self, name: &str, lines: &[String]) -> Result<OpeningSuite> {
        spec::validate_suite(name, lines)?;
        let (name, lines) = (name.to_owned(), lines.to_vec());
        self.write("adding openings", move |db| catalog::insert_suite(db, &name, &lines))
    }

    fn get_suite(&self, id: SuiteId) -> Result<OpeningSuite> {
        self.read("reading a suite", move |db| catalog::load_suite(db, id))
    }

    fn create_run(&self, run_spec: &RunSpec, now_ms: u64) -> Result<Run> {
        spec::validate_run_spec(run_spec)?;
        let run_spec = run_spec.clone();
        let run = self.write("creating a run", move |db| catalog::insert_run(db, &run_spec, now_ms))?;
        tracing::info!(run = %run.id, name = %run.spec.name, "run created");
        Ok(run)
    }

    fn get_run(&self, id: RunId) -> Result<Run> {
        self.read("reading a run", move |db| catalog::load_run(db, id))
    }

    fn list_runs(&self) -> Result<Vec<Run>> {
        self.read("listing runs", catalog::list_runs)
    }

    fn set_run_state(&self, id: RunId, state: RunState) -> Result<Run> {
        let run = self.write("setting a run's state", move |db| catalog::set_run_state(db, id, state))?;
        tracing::info!(run = %id, state = ?run.state, "run state set");
        Ok(run)
    }

    fn register_worker(&self, info: &WorkerInfo, now_ms: u64) -> Result<WorkerId> {
        spec::validate_worker_info(info)?;
        let owned = info.clone();
        let id = self.write("registering a worker", move |db| {
            let id = leasing::insert_worker(db, &owned, now_ms)?;
            engines::store_worker_engines(db, id, &owned.engines)?;
            Ok(id)
        })?;
        tracing::info!(worker = %id, name = %info.name, "worker registered");
        Ok(id)
    }

    fn lease_batch(&self, worker: WorkerId, free_slots: u32, now_ms: u64) -> Result<Option<Lease>> {
        self.write("leasing a batch", move |db| leasing::lease_batch(db, worker, free_slots, now_ms))
    }

    fn lease_terms(&self, lease: LeaseId) -> Result<LeaseTerms> {
        self.read("reading a lease's terms", move |db| results::lease_terms(db, lease))
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
        let pairs = pairs.to_vec();
        self.write("recording results", move |db| {
            results::record_results(db, worker, lease, seq, &pairs, final_batch, now_ms)
        })
    }

    fn heartbeat(&self, worker: WorkerId, lease: LeaseId, now_ms: u64) -> Result<u64> {
        self.write("extending a lease", move |db| leasing::heartbeat(db, worker, lease, now_ms))
    }

    fn expire_leases(&self, now_ms: u64) -> Result<usize> {
        self.write("expiring leases", move |db| leasing::expire(db, now_ms))
    }

    fn games_since(&self, run: RunId, after_game_id: u64, limit: usize) -> Result<Vec<StoredGame>> {
        self.read("reading games", move |db| results::games_since(db, run, after_game_id, limit))
    }

    fn mark_exported(&self, run: RunId, up_to_game_id: u64) -> Result<()> {
        self.write("marking games exported", move |db| catalog::mark_exported(db, run, up_to_game_id))
    }

    fn exported_up_to(&self, run: RunId) -> Result<u64> {
        self.read("reading the export mark", move |db| catalog::exported_up_to(db, run))
    }

    fn run_engines(&self, run: RunId) -> Result<Vec<EngineNeed>> {
        self.read("reading a run's engines", move |db| engines::run_engines(db, run))
    }

    fn connected_engines(&self, since_ms: u64) -> Result<Vec<Vec<EngineInfo>>> {
        self.read("reading the connected workers' engines", move |db| engines::connected_engines(db, since_ms))
    }
}
