//! The PostgreSQL backend (`--db postgres://...`): the storage primitives ([`Tx`]) as SQL
//! statements on a pool of connections, so that several coordinators can serve one farm from
//! one database.
//!
//! - Writes go through one writer thread per coordinator, which commits the calls waiting for
//!   it together, each in a savepoint (group commit, `writer.rs`). Its transactions run one at a
//!   time over all coordinators: each takes a transaction-level advisory lock first, then runs
//!   at `READ COMMITTED`, so that it sees every write committed before it (SQLite's single
//!   writer, across processes). A call that PostgreSQL still aborts (a deadlock, a
//!   serialization failure, a unique violation from an unforeseen race) is rolled back to its
//!   savepoint and run again (the closure is `Fn` for that reason), up to [`WRITE_ATTEMPTS`]
//!   times.
//! - Pooled pairs are claimed with `SELECT ... FOR UPDATE SKIP LOCKED`, which also keeps a
//!   lease from waiting on pairs another transaction holds should writes ever run side by side.
//! - A read transaction is `REPEATABLE READ READ ONLY`: one consistent snapshot.
//! - Coordinators on one database tell each other about changes (LISTEN/NOTIFY) and agree on
//!   which of them exports Parquet (an advisory lock): `feed.rs`.
//! - Errors that concern the server itself (unreachable, wrong password, a database holding
//!   another application's tables) are [`Error::Database`], naming the server and database but
//!   never the password; connecting gives up after [`CONNECT_TIMEOUT`].
mod conn;
mod feed;
mod schema;
mod writer;

use std::str::FromStr;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use postgres::error::SqlState;
use postgres::{Config, NoTls};

use self::conn::{Link, PgConn, Statements};
use self::writer::Writer;
use super::feed::{Change, ChangeSink};
use super::sql::{Ctx, RowCache, SqlTx};
use super::tx::{Backend, Tx};
use crate::error::{Error, Result};
use crate::metrics::Timings;

/// How long connecting may take before the server counts as unreachable.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The transaction-level advisory lock every write transaction takes first: writes of all
/// coordinators on one database happen one at a time, as SQLite's single writer makes them.
/// (Measured with `xqfarm bench rpc`, 64 workers on one run: `SERIALIZABLE` transactions
/// without it made 14 lease+submit RPCs a second, some leases failing after every retry; with
/// it, 32 and none failing; with the statement cache and the bounded pool, 165.)
const WRITE_LOCK: i64 = 0x7871_6661_726d_0003;

/// Tries of a write transaction that conflicts with another coordinator's.
const WRITE_ATTEMPTS: u32 = 16;

/// Connections a coordinator opens at most for reads (writes have the writer's own); a
/// transaction waits for one when all are busy. Opening a connection costs a password exchange
/// (scram) of several milliseconds, so they are kept open and reused.
const MAX_CONNECTIONS: usize = 16;

/// How long a transaction waits for a free connection before it fails, naming the database.
const POOL_WAIT: Duration = Duration::from_secs(60);

/// Whether `url` names a PostgreSQL database (`postgres://` or `postgresql://`) rather than a
/// SQLite file.
pub fn is_postgres_url(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// The server and database a configuration names, without the password: what errors show.
fn describe(config: &Config) -> String {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .zip(config.get_ports().iter().chain(std::iter::repeat(&5432)))
        .map(|(host, port)| match host {
            postgres::config::Host::Tcp(h) => format!("{h}:{port}"),
            postgres::config::Host::Unix(path) => format!("{}:{port}", path.display()),
        })
        .collect();
    format!(
        "postgres://{}@{}/{}",
        config.get_user().unwrap_or("?"),
        if hosts.is_empty() { "localhost".to_owned() } else { hosts.join(",") },
        config.get_dbname().or(config.get_user()).unwrap_or("?")
    )
}

/// A connection failure, named: the server refused the password, the database does not exist,
/// or the server could not be reached.
fn connect_error(target: &str, e: &postgres::Error) -> Error {
    let reason = match e.code() {
        Some(code) if *code == SqlState::INVALID_PASSWORD => {
            format!("the server refused the password ({e})")
        }
        Some(code) if *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION => {
            format!("the server refused the login ({e})")
        }
        Some(code) if *code == SqlState::INVALID_CATALOG_NAME => format!("no such database ({e})"),
        Some(_) => format!("the server refused the connection ({e})"),
        None => format!("cannot reach the server within {} s ({e})", CONNECT_TIMEOUT.as_secs()),
    };
    Error::Database { target: target.to_owned(), reason }
}

/// Whether a failed transaction may succeed when run again: PostgreSQL aborted it because it
/// conflicted with a concurrent one. A unique violation counts too: it can be the trace of a
/// concurrent insert of the same key, and the workflow checks for existing rows before it
/// inserts, so that a real duplicate only fails after the retries.
fn is_conflict(e: &Error) -> bool {
    let Error::Storage { source, .. } = e else { return false };
    source.downcast_ref::<postgres::Error>().and_then(postgres::Error::code).is_some_and(|code| {
        *code == SqlState::T_R_SERIALIZATION_FAILURE
            || *code == SqlState::T_R_DEADLOCK_DETECTED
            || *code == SqlState::UNIQUE_VIOLATION
    })
}

/// Runs `f` where the synchronous client may block. It blocks on a runtime of its own, which
/// tokio refuses on a thread that drives async tasks; called from such a thread (the
/// coordinator's async code calls the storage directly in places, as it may with SQLite), `f`
/// runs on a short-lived thread of its own. Connecting, every transaction and dropping a
/// connection go through here.
fn off_runtime<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    if tokio::runtime::Handle::try_current().is_err() {
        return f();
    }
    std::thread::scope(|scope| match scope.spawn(f).join() {
        Ok(out) => out,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

fn poisoned() -> Error {
    Error::storage("taking a connection", "the lock is poisoned")
}

/// A pooled connection, the statements prepared on it and its cache of rows that never change.
struct Pooled {
    link: Link,
    statements: Statements,
    cache: RowCache,
    /// A transaction on it could not be rolled back: it is closed instead of reused.
    broken: bool,
}

impl Pooled {
    fn new(link: Link) -> Pooled {
        Pooled { link, statements: Statements::default(), cache: RowCache::default(), broken: false }
    }
}

/// A connection whose statements are pipelined (`conn.rs`), on a runtime of its own.
fn connect(config: &tokio_postgres::Config, target: &str) -> Result<Link> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| Error::Database {
        target: target.to_owned(),
        reason: format!("cannot start a connection's runtime ({e})"),
    })?;
    Link::connect(runtime, config).map_err(|e| connect_error(target, &e))
}

/// Connections to one database: at most [`MAX_CONNECTIONS`], each kept open once made.
struct Pool {
    /// For the pooled connections, which pipeline their statements (`conn.rs`).
    pipelined: tokio_postgres::Config,
    /// For the connections of their own that the schema check, the announcer, the listener and
    /// the exporter's role keep.
    config: Config,
    target: String,
    state: Mutex<PoolState>,
    freed: Condvar,
}

#[derive(Default)]
struct PoolState {
    idle: Vec<Pooled>,
    /// Connections open now, idle or taken.
    open: usize,
}

impl Pool {
    fn new(pipelined: tokio_postgres::Config, target: String) -> Pool {
        let config = Config::from(pipelined.clone());
        Pool { pipelined, config, target, state: Mutex::new(PoolState::default()), freed: Condvar::new() }
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, PoolState>> {
        self.state.lock().map_err(|_| poisoned())
    }

    /// An idle connection, a new one while fewer than [`MAX_CONNECTIONS`] are open, or the
    /// first one given back.
    fn take(&self) -> Result<Pooled> {
        let deadline = Instant::now() + POOL_WAIT;
        let mut state = self.lock()?;
        loop {
            while let Some(conn) = state.idle.pop() {
                if !conn.link.is_closed() {
                    return Ok(conn);
                }
                state.open -= 1;
            }
            if state.open < MAX_CONNECTIONS {
                state.open += 1;
                drop(state);
                return match connect(&self.pipelined, &self.target) {
                    Ok(link) => Ok(Pooled::new(link)),
                    Err(e) => {
                        self.forget();
                        Err(e)
                    }
                };
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Error::Database {
                    target: self.target.clone(),
                    reason: format!("all {MAX_CONNECTIONS} connections stayed busy for {} s", POOL_WAIT.as_secs()),
                });
            }
            state = self.freed.wait_timeout(state, left).map_err(|_| poisoned())?.0;
        }
    }

    /// Returns a connection taken with [`Pool::take`]; a closed one frees its place.
    fn give_back(&self, conn: Pooled) {
        if conn.link.is_closed() || conn.broken {
            self.forget();
            return;
        }
        if let Ok(mut state) = self.state.lock() {
            state.idle.push(conn);
        }
        self.freed.notify_one();
    }

    /// A taken connection that will not come back (closed, or never made).
    fn forget(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.open = state.open.saturating_sub(1);
        }
        self.freed.notify_one();
    }
}

pub struct PgStorage {
    /// The write path: one thread, one connection, calls committed together.
    writer: Writer,
    /// Connections for reads.
    pool: Pool,
    timings: Timings,
    /// This coordinator's id in its announcements, so that it ignores its own.
    origin: u64,
    announcer: feed::Announcer,
    /// The listener, once the farm listens (dropped with the storage).
    listener: Mutex<Option<feed::Listener>>,
    exporter: feed::ExporterRole,
}

impl std::fmt::Debug for PgStorage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStorage").field("target", &self.pool.target).finish_non_exhaustive()
    }
}

impl Drop for PgStorage {
    fn drop(&mut self) {
        // Closing a connection blocks: off any async thread.
        let idle = self.pool.state.get_mut().map(|s| std::mem::take(&mut s.idle)).unwrap_or_default();
        let exporter = self.exporter.release();
        off_runtime(move || drop((idle, exporter)));
    }
}

impl PgStorage {
    /// Connects to the database `url` names (`postgres://user:password@host:port/dbname`) and
    /// creates or checks its schema.
    pub fn open(url: &str) -> Result<PgStorage> {
        off_runtime(|| PgStorage::open_here(url))
    }

    fn open_here(url: &str) -> Result<PgStorage> {
        let mut config = tokio_postgres::Config::from_str(url).map_err(|e| Error::Database {
            target: redact(url),
            reason: format!("not a PostgreSQL connection URL ({e})"),
        })?;
        config.connect_timeout(CONNECT_TIMEOUT);
        config.application_name("xqfarm");
        let target = describe(&Config::from(config.clone()));
        let writer = Writer::start(writer::Target { config: config.clone(), name: target.clone() })?;
        let pool = Pool::new(config, target);
        let mut client = pool.config.connect(NoTls).map_err(|e| connect_error(&pool.target, &e))?;
        let mut tx = client.transaction().ctx("starting the schema check")?;
        schema::prepare(&mut tx, &pool.target)?;
        tx.commit().ctx("committing the schema")?;
        drop(client);
        tracing::info!(database = %pool.target, "database opened");
        let origin = random_origin();
        let announcer = feed::Announcer::start(pool.config.clone(), origin);
        let exporter = feed::ExporterRole::new(pool.config.clone());
        Ok(PgStorage {
            writer,
            pool,
            timings: Timings::default(),
            origin,
            announcer,
            listener: Mutex::new(None),
            exporter,
        })
    }

    /// The server and database, without the password.
    pub fn target(&self) -> &str {
        &self.pool.target
    }

    /// Runs `f` in one read transaction on a pooled connection.
    fn read_here<T>(&self, context: &str, f: &dyn Fn(&mut dyn Tx) -> Result<T>) -> Result<T> {
        let mut taken = Taken { pool: &self.pool, conn: Some(self.pool.take()?) };
        let conn = taken.conn.as_mut().expect("taken above");
        let out = read_transaction(conn, context, f);
        if out.is_err() {
            // Rows the transaction read into the cache may be rolled back now.
            conn.cache.forget_all();
        }
        out
    }
}

/// A connection taken from the pool, given back when this drops (also when a transaction's
/// closure panics).
struct Taken<'p> {
    pool: &'p Pool,
    conn: Option<Pooled>,
}

impl Drop for Taken<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            if std::thread::panicking() {
                // A closure panicked inside a transaction, which is still open: closing the
                // connection aborts it.
                self.pool.forget();
                off_runtime(move || drop(conn));
            } else {
                self.pool.give_back(conn);
            }
        }
    }
}

/// How a write transaction begins, sent with its first statement: `READ COMMITTED`, so that each
/// statement sees what committed before it and, once the write lock is held, every earlier write
/// transaction; then the write lock ([`WRITE_LOCK`]).
static WRITE_BEGIN: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!("START TRANSACTION ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock({WRITE_LOCK})")
});

/// How a read transaction begins: one consistent snapshot.
const READ_BEGIN: &str = "START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY";

/// One transaction: `f` on a connection whose `BEGIN` goes with its first statement, then the
/// commit, or a rollback after an error (of `f`, or of the commit).
fn read_transaction<T>(conn: &mut Pooled, context: &str, f: &dyn Fn(&mut dyn Tx) -> Result<T>) -> Result<T> {
    let mut pg = PgConn::new(&mut conn.link, &mut conn.statements, &conn.cache, READ_BEGIN);
    let out = f(&mut SqlTx(&mut pg)).and_then(|out| pg.commit(context).map(|()| out));
    if out.is_err() {
        // A connection that cannot roll back leaves the pool, closed.
        if let Err(rollback) = pg.rollback() {
            tracing::warn!(context, error = %rollback, "rolling back a failed transaction");
            conn.broken = true;
        }
    }
    out
}

/// An id for this coordinator's announcements: distinct between processes and between stores
/// of one process.
fn random_origin() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static OPENED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u64(OPENED.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    h.finish()
}

/// `url` without its password, for an error about the URL itself.
pub(crate) fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{}{user}@{}", &url[..scheme + 3], &url[at + 1..])
        }
        _ => url.to_owned(),
    }
}

impl Backend for PgStorage {
    fn write<T, F>(&self, context: &'static str, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&mut dyn Tx) -> Result<T> + Send + 'static,
    {
        let start = Instant::now();
        let out = self.writer.call(context, f);
        self.timings.observe(context, start.elapsed());
        out
    }

    fn read<T, F>(&self, context: &'static str, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&mut dyn Tx) -> Result<T> + Send + 'static,
    {
        let start = Instant::now();
        let out = off_runtime(move || self.read_here(context, &f));
        self.timings.observe(context, start.elapsed());
        out
    }

    fn timings(&self) -> Option<&Timings> {
        Some(&self.timings)
    }

    fn announce(&self, change: Change) {
        self.announcer.announce(change);
    }

    fn listen(&self, sink: ChangeSink) -> Result<bool> {
        let listener = off_runtime(|| feed::Listener::start(self.pool.config.clone(), self.origin, sink))?;
        let mut slot = self.listener.lock().map_err(|_| Error::storage("listening", "lock poisoned"))?;
        *slot = Some(listener);
        Ok(true)
    }

    fn exporter(&self) -> Result<bool> {
        off_runtime(|| self.exporter.check())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_recognised_and_redacted() {
        assert!(is_postgres_url("postgres://u@h/db"));
        assert!(is_postgres_url("postgresql://u@h/db"));
        assert!(!is_postgres_url("farm.db"));
        assert_eq!(redact("postgres://farm:s3cret@db.lan:5433/xq"), "postgres://farm@db.lan:5433/xq");
        assert_eq!(redact("postgres://farm@db.lan/xq"), "postgres://farm@db.lan/xq");
    }

    #[test]
    fn descriptions_never_show_the_password() {
        let config = Config::from_str("postgres://farm:s3cret@db.lan:5433/xq").expect("parses");
        assert_eq!(describe(&config), "postgres://farm@db.lan:5433/xq");
    }

    #[test]
    fn a_malformed_url_is_named_without_its_password() {
        let e = PgStorage::open("postgres://farm:s3cret@db.lan:notaport/xq").expect_err("refused");
        let text = e.to_string();
        assert!(text.contains("not a PostgreSQL connection URL"), "{text}");
        assert!(!text.contains("s3cret"), "{text}");
    }
}
