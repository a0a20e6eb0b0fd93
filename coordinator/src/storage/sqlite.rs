//! The SQLite backend: the storage primitives ([`Tx`]) as SQL statements (`tx.rs`). One writer
//! thread owns the connection that changes the database and commits the calls of many callers
//! together (`writer.rs`); reads run on a small pool of reader connections, each in its own
//! snapshot; a checkpointer thread keeps the WAL short off the request path (`checkpoint.rs`).
//! Every write transaction is still atomic: it happens completely or not at all, and returns
//! only once committed. Opening the same file again restores every run, lease and game.
mod checkpoint;
mod conn;
mod db;
pub mod maintenance;
mod schema;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use rusqlite::{Connection, Transaction, TransactionBehavior};

use self::checkpoint::Checkpointer;
use self::db::Db;
use self::writer::Writer;
use super::sql::{Ctx, SqlTx};
use super::tx::{Backend, Tx};
use crate::error::{Error, Result};
use crate::metrics::Timings;

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
    /// Every transaction's time, by its context (the metrics' storage transaction time).
    timings: Timings,
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
            timings: Timings::default(),
        })
    }

    /// A private database that lives as long as this value.
    pub fn open_in_memory() -> Result<SqliteStorage> {
        let mut conn = Connection::open_in_memory().ctx("opening an in-memory database")?;
        schema::prepare(&mut conn)?;
        let writer = Writer::start(Db::new(conn), |_: &Db| {})?;
        Ok(SqliteStorage { writer, readers: None, _checkpointer: None, path: None, timings: Timings::default() })
    }

    /// The database file, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}

impl Backend for SqliteStorage {
    fn write<T, F>(&self, context: &'static str, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&mut dyn Tx) -> Result<T> + Send + 'static,
    {
        let start = Instant::now();
        let out = self.writer.call(context, move |db| f(&mut SqlTx(&mut db.sql())));
        self.timings.observe(context, start.elapsed());
        out
    }

    fn read<T, F>(&self, context: &'static str, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&mut dyn Tx) -> Result<T> + Send + 'static,
    {
        match &self.readers {
            Some(readers) => {
                let start = Instant::now();
                let out = readers.read(context, move |db| f(&mut SqlTx(&mut db.sql())));
                self.timings.observe(context, start.elapsed());
                out
            }
            // An in-memory database has one connection: the writer's.
            None => self.write(context, f),
        }
    }

    fn timings(&self) -> Option<&Timings> {
        Some(&self.timings)
    }
}
