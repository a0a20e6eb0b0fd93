//! PostgreSQL as the SQL row layer's [`Conn`]: one transaction on one connection, its statements
//! prepared once per connection and **pipelined**.
//!
//! - Each SQL text is prepared once per connection (its `?N` placeholders read as `$N`) and
//!   reused by every later transaction on it: a statement then costs bind and execute, not a
//!   parse.
//! - A transaction's `BEGIN` (and the write lock) and its [`Conn::write`]s are held back and sent
//!   in one flush with the next statement whose rows the workflow waits for, or with the
//!   `COMMIT`: PostgreSQL runs them in the order sent, so the transaction is the same sequence of
//!   statements, in fewer round trips. A held write's failure, or its "changed no row" error,
//!   is returned by the call that flushed it, as that write's own error ([`Settled`]); a
//!   transaction with a write whose row count is checked flushes it before its `COMMIT`, so a
//!   failed check never commits.
//!
//! - A group of write calls in one transaction (`writer.rs`) runs each in a savepoint: its
//!   `SAVEPOINT`, and the `RELEASE` or `ROLLBACK TO` that ends it, go with the next flush too,
//!   so a call costs no round trip of its own beyond its statements and the flush of its writes.
//!
//! The connection is tokio-postgres's, driven on a current-thread runtime of its own (as the
//! synchronous `postgres` crate drives it), so that several requests are in flight at once.

use std::collections::HashMap;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::Poll;

use futures_util::future::{OptionFuture, join_all, join3};
use tokio_postgres::tls::NoTlsStream;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, Socket, Statement};

use crate::error::{Error, Result};
use crate::storage::sql::{Conn, Dialect, Param, Row, RowCache, Settled, SqlError, Value, numbered_placeholders};

/// One connection to the server: its client, and the connection task that the client's
/// requests are driven by, on a runtime of its own.
pub(super) struct Link {
    runtime: tokio::runtime::Runtime,
    client: Client,
    connection: tokio_postgres::Connection<Socket, NoTlsStream>,
    /// The connection ended (closed by the server, or failed): it is never polled again.
    ended: bool,
}

impl Link {
    /// Connects with `config`, driving the connection on `runtime` (a current-thread one).
    pub(super) fn connect(
        runtime: tokio::runtime::Runtime,
        config: &tokio_postgres::Config,
    ) -> std::result::Result<Link, tokio_postgres::Error> {
        let (client, connection) = runtime.block_on(config.connect(tokio_postgres::NoTls))?;
        Ok(Link { runtime, client, connection, ended: false })
    }

    pub(super) fn is_closed(&self) -> bool {
        self.ended || self.client.is_closed()
    }

    /// Runs a simple-protocol batch (`BEGIN`, `COMMIT`, `ROLLBACK`, DDL).
    pub(super) fn batch(&mut self, sql: &str) -> std::result::Result<(), tokio_postgres::Error> {
        let Link { runtime, client, connection, ended } = self;
        drive(runtime, connection, ended, client.batch_execute(sql))
    }
}

/// Runs `future` (requests of the link's client) to its end, driving the connection meanwhile.
/// Notices and notifications are dropped (a pooled connection never listens).
fn drive<T>(
    runtime: &tokio::runtime::Runtime,
    connection: &mut tokio_postgres::Connection<Socket, NoTlsStream>,
    ended: &mut bool,
    future: impl Future<Output = T>,
) -> T {
    let mut future = pin!(future);
    runtime.block_on(poll_fn(|cx| {
        while !*ended {
            match connection.poll_message(cx) {
                Poll::Ready(Some(Ok(_))) => {}
                // The client's requests then fail with the connection's end.
                Poll::Ready(Some(Err(e))) => {
                    tracing::warn!(error = %e, "PostgreSQL connection failed");
                    *ended = true;
                }
                Poll::Ready(None) => *ended = true,
                Poll::Pending => break,
            }
        }
        future.as_mut().poll(cx)
    }))
}

/// A connection's prepared statements by SQL text; they live as long as the connection (a
/// prepared statement outlives a rolled-back transaction on the server).
#[derive(Default)]
pub(super) struct Statements(HashMap<String, Statement>);

/// A parameter of a held write, owned until it is sent.
enum Owned {
    Int(Option<i64>),
    Real(Option<f64>),
    Text(Option<String>),
    Blob(Option<Vec<u8>>),
}

impl Owned {
    fn of(p: &Param<'_>) -> Owned {
        match *p {
            Param::Int(v) => Owned::Int(v),
            Param::Real(v) => Owned::Real(v),
            Param::Text(v) => Owned::Text(v.map(str::to_owned)),
            Param::Blob(v) => Owned::Blob(v.map(<[u8]>::to_vec)),
        }
    }

    fn sql(&self) -> &(dyn ToSql + Sync) {
        match self {
            Owned::Int(v) => v,
            Owned::Real(v) => v,
            Owned::Text(v) => v,
            Owned::Blob(v) => v,
        }
    }
}

/// A write held back until the next flush.
struct Held {
    statement: Statement,
    params: Vec<Owned>,
    context: &'static str,
    /// The error when it changes no row; `None`: any count will do.
    unchanged: Option<Error>,
}

/// A call's savepoint in a group transaction (`writer.rs`).
const SAVEPOINT: &str = "SAVEPOINT call";
const RELEASE: &str = "RELEASE SAVEPOINT call";
const ROLLBACK_TO: &str = "ROLLBACK TO SAVEPOINT call; RELEASE SAVEPOINT call";

/// A connection inside one transaction.
pub(super) struct PgConn<'a> {
    link: &'a mut Link,
    statements: &'a mut Statements,
    cache: &'a RowCache,
    /// Simple-protocol statements sent first with the next flush, in order: how the transaction
    /// begins, and a group's savepoints.
    preamble: Vec<&'static str>,
    /// Whether anything of the transaction went to the server yet.
    sent: bool,
    /// Whether anything of the current call (since [`PgConn::open_call`]) went to the server.
    call_sent: bool,
    /// A preamble failed, or the connection ended: the transaction cannot go on.
    lost: bool,
    held: Vec<Held>,
}

impl<'a> PgConn<'a> {
    /// A transaction that `begin` starts, sent with its first statement.
    pub(super) fn new(
        link: &'a mut Link,
        statements: &'a mut Statements,
        cache: &'a RowCache,
        begin: &'static str,
    ) -> Self {
        PgConn {
            link,
            statements,
            cache,
            preamble: vec![begin],
            sent: false,
            call_sent: false,
            lost: false,
            held: Vec::new(),
        }
    }

    /// Whether the transaction cannot go on: a `BEGIN` or savepoint statement failed, or the
    /// connection ended.
    pub(super) fn is_lost(&self) -> bool {
        self.lost || self.link.is_closed()
    }

    /// Drops every cached row: after a rollback, a row read inside it may not exist.
    pub(super) fn forget_cached(&self) {
        self.cache.forget_all();
    }

    /// Starts a call of a group in a savepoint of its own, opened with the call's first flush.
    pub(super) fn open_call(&mut self) {
        self.preamble.push(SAVEPOINT);
        self.call_sent = false;
    }

    /// Ends the current call, keeping what it did: its held writes are sent (and checked) now,
    /// so that a failing write, or one that changed no row where one must, is this call's error
    /// and can still be rolled back to the savepoint; the savepoint's release goes with the next
    /// flush. A call that sent nothing costs no round trip, one that held writes costs one.
    /// After an error, [`PgConn::abandon_call`].
    pub(super) fn close_call(&mut self) -> Result<()> {
        if !self.call_sent && self.held.is_empty() {
            // Nothing of it went out: it read only cached rows, and changed nothing.
            self.preamble.pop();
            return Ok(());
        }
        if !self.held.is_empty() {
            self.flush(|_| async { Ok::<(), tokio_postgres::Error>(()) })
                .map_err(|e| settled(e, "ending a call's savepoint"))?;
        }
        self.preamble.push(RELEASE);
        Ok(())
    }

    /// Undoes the current call (after its error): its held writes are dropped unsent, and what
    /// it sent is rolled back to its savepoint with the next flush.
    pub(super) fn abandon_call(&mut self) {
        self.held.clear();
        if self.call_sent {
            self.preamble.push(ROLLBACK_TO);
        } else {
            self.preamble.pop();
        }
    }

    fn statement(&mut self, sql: &str) -> std::result::Result<Statement, tokio_postgres::Error> {
        if let Some(statement) = self.statements.0.get(sql) {
            return Ok(statement.clone());
        }
        let text = numbered_placeholders(sql);
        let Link { runtime, client, connection, ended } = &mut *self.link;
        let statement = drive(runtime, connection, ended, client.prepare(&text))?;
        self.statements.0.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }

    /// Sends the held `BEGIN` and writes, then the request `last` makes of the client, in one
    /// flush, and waits for every answer. The first failure in the order sent is the error: a
    /// held one as its own error ([`Settled`]), `last`'s as it is.
    fn flush<'c, T, F>(&'c mut self, last: impl FnOnce(&'c Client) -> F) -> std::result::Result<T, SqlError>
    where
        F: Future<Output = std::result::Result<T, tokio_postgres::Error>> + 'c,
    {
        let preamble = (!self.preamble.is_empty()).then(|| std::mem::take(&mut self.preamble).join("; "));
        self.sent = true;
        self.call_sent = true;
        let held = std::mem::take(&mut self.held);
        let Link { runtime, client, connection, ended } = &mut *self.link;
        let client: &'c Client = client;
        let params: Vec<Vec<&(dyn ToSql + Sync)>> =
            held.iter().map(|h| h.params.iter().map(Owned::sql).collect()).collect();
        let writes = held.iter().zip(&params).map(|(h, p)| client.execute(&h.statement, p));
        let began = OptionFuture::from(preamble.as_deref().map(|sql| client.batch_execute(sql)));
        let (began, written, last) = drive(runtime, connection, ended, join3(began, join_all(writes), last(client)));
        if let Some(Err(e)) = began {
            self.lost = true;
            return Err(Box::new(Settled(Error::storage("beginning a transaction or a savepoint", e))));
        }
        drop(params);
        for (h, outcome) in held.into_iter().zip(written) {
            match (outcome, h.unchanged) {
                (Err(e), _) => return Err(Box::new(Settled(Error::storage(h.context, e)))),
                (Ok(0), Some(unchanged)) => return Err(Box::new(Settled(unchanged))),
                (Ok(_), _) => {}
            }
        }
        Ok(last?)
    }

    /// Commits what the transaction did; nothing to do if it sent nothing. Held writes go with
    /// the `COMMIT`, unless one's row count is checked: those are flushed (and checked) first.
    pub(super) fn commit(&mut self, context: &str) -> Result<()> {
        if !self.sent && self.held.is_empty() {
            return Ok(());
        }
        let settle = |e: SqlError| settled(e, context);
        if self.held.iter().any(|h| h.unchanged.is_some()) {
            self.flush(|_| async { Ok::<(), tokio_postgres::Error>(()) }).map_err(settle)?;
        }
        self.flush(|client| client.batch_execute("COMMIT")).map_err(settle)
    }

    /// Rolls back whatever the transaction sent (held writes are dropped unsent).
    pub(super) fn rollback(self) -> std::result::Result<(), tokio_postgres::Error> {
        if !self.sent {
            return Ok(());
        }
        // After a failed commit the transaction may have ended already: PostgreSQL then only
        // warns that none is in progress.
        self.link.batch("ROLLBACK")
    }
}

/// A flush's error as the storage error it is: a held write's own, or `context`'s.
fn settled(e: SqlError, context: &str) -> Error {
    match e.downcast::<Settled>() {
        Ok(settled) => settled.0,
        Err(e) => Error::storage(context, e),
    }
}

/// Column `i` of a row, by its type.
fn value(row: &tokio_postgres::Row, i: usize) -> std::result::Result<Value, tokio_postgres::Error> {
    let ty = row.columns()[i].type_();
    let int = |v: Option<i64>| v.map_or(Value::Null, Value::Int);
    Ok(if *ty == Type::INT8 {
        int(row.try_get(i)?)
    } else if *ty == Type::INT4 {
        int(row.try_get::<_, Option<i32>>(i)?.map(i64::from))
    } else if *ty == Type::INT2 {
        int(row.try_get::<_, Option<i16>>(i)?.map(i64::from))
    } else if *ty == Type::BOOL {
        int(row.try_get::<_, Option<bool>>(i)?.map(i64::from))
    } else if *ty == Type::FLOAT8 {
        row.try_get::<_, Option<f64>>(i)?.map_or(Value::Null, Value::Real)
    } else if *ty == Type::BYTEA {
        row.try_get::<_, Option<Vec<u8>>>(i)?.map_or(Value::Null, Value::Blob)
    } else {
        // Text, or an error naming the column's type.
        row.try_get::<_, Option<String>>(i)?.map_or(Value::Null, Value::Text)
    })
}

/// The parameters as the driver binds them: each typed, also when null.
fn bound<'p>(params: &'p [Param<'_>]) -> Vec<&'p (dyn ToSql + Sync)> {
    params
        .iter()
        .map(|p| -> &(dyn ToSql + Sync) {
            match p {
                Param::Int(v) => v,
                Param::Real(v) => v,
                Param::Text(v) => v,
                Param::Blob(v) => v,
            }
        })
        .collect()
}

impl Conn for PgConn<'_> {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn execute(&mut self, sql: &str, params: &[Param<'_>]) -> std::result::Result<u64, SqlError> {
        let statement = self.statement(sql)?;
        let bound = bound(params);
        self.flush(|client| async move { client.execute(&statement, &bound).await })
    }

    fn rows(&mut self, sql: &str, params: &[Param<'_>]) -> std::result::Result<Vec<Row>, SqlError> {
        let statement = self.statement(sql)?;
        let bound = bound(params);
        let rows = self.flush(|client| async move { client.query(&statement, &bound).await })?;
        Ok(rows
            .iter()
            .map(|r| (0..r.len()).map(|i| value(r, i)).collect::<std::result::Result<_, _>>().map(Row))
            .collect::<std::result::Result<_, _>>()?)
    }

    fn write(
        &mut self,
        sql: &str,
        params: &[Param<'_>],
        context: &'static str,
        unchanged: Option<Error>,
    ) -> Result<()> {
        let statement = self.statement(sql).map_err(|e| Error::storage(context, e))?;
        self.held.push(Held { statement, params: params.iter().map(Owned::of).collect(), context, unchanged });
        Ok(())
    }

    fn cache(&self) -> &RowCache {
        self.cache
    }
}
