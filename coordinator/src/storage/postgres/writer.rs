//! The write path (group commit, as SQLite's writer does it): one thread per coordinator owns
//! a connection and runs the write calls that are waiting, up to [`MAX_BATCH`], in one
//! transaction under the write lock. Each call runs in a savepoint of its own, so that a
//! failing call is rolled back alone, and every caller is answered only after the `COMMIT`: an
//! acknowledged change is committed.
//!
//! Before, each call was a transaction of its own on one of 16 pooled connections, all queued on
//! the write lock: every call paid a `BEGIN`, the lock and a `COMMIT`, and each hand-over of the
//! lock woke another server process. Now one `BEGIN`, one lock and one `COMMIT` serve a batch,
//! the savepoints travel with the calls' own statements (`conn.rs`), and two coordinators on one
//! database still write one batch at a time.

use std::collections::VecDeque;
use std::sync::mpsc;

use super::conn::PgConn;
use super::{Pooled, WRITE_ATTEMPTS, WRITE_BEGIN, connect, is_conflict};
use crate::error::Result;
use crate::storage::group_commit::{WriterThread, gather, settle};
use crate::storage::sql::SqlTx;
use crate::storage::tx::Tx;

/// Most calls in one transaction. A call that writes gets a subtransaction id, and a server
/// process caches 64 of them: past that every other session's snapshots must look the rest up
/// (`pg_subtrans`), which slows the whole server down.
const MAX_BATCH: usize = 48;

/// A queued call.
trait Call: Send {
    /// Runs the call in a savepoint on the writer's transaction; false when it failed (its
    /// changes then are rolled back to the savepoint).
    fn run(&mut self, conn: &mut PgConn<'_>) -> bool;
    /// Answers the caller when the transaction is over: `Ok` if it committed, else why not.
    fn answer(self: Box<Self>, committed: std::result::Result<(), &str>);
}

struct Pending<T, F> {
    context: &'static str,
    work: F,
    result: Option<Result<T>>,
    reply: mpsc::SyncSender<Result<T>>,
}

impl<T: Send, F: Fn(&mut dyn Tx) -> Result<T> + Send> Call for Pending<T, F> {
    fn run(&mut self, conn: &mut PgConn<'_>) -> bool {
        let mut attempt = 1;
        loop {
            conn.open_call();
            let result = (self.work)(&mut SqlTx(&mut *conn)).and_then(|value| conn.close_call().map(|()| value));
            match result {
                Ok(value) => {
                    self.result = Some(Ok(value));
                    return true;
                }
                Err(e) => {
                    conn.abandon_call();
                    // Rows the call read into the cache may be rolled back now.
                    conn.forget_cached();
                    // Another coordinator's writes wait for the lock this batch holds, so a
                    // conflict is an unforeseen race: the call runs again at once.
                    if attempt < WRITE_ATTEMPTS && is_conflict(&e) && !conn.is_lost() {
                        tracing::debug!(context = self.context, attempt, "write call conflicted; running it again");
                        attempt += 1;
                        continue;
                    }
                    self.result = Some(Err(e));
                    return false;
                }
            }
        }
    }

    fn answer(self: Box<Self>, committed: std::result::Result<(), &str>) {
        // A caller that stopped waiting has nobody left to tell.
        let _ = self.reply.send(settle(self.context, self.result, committed));
    }
}

/// How the writer reaches the database.
pub(super) struct Target {
    pub(super) config: tokio_postgres::Config,
    pub(super) name: String,
}

/// The handle callers queue their calls through. Dropping it lets the queued calls finish,
/// then stops the thread and closes its connection.
pub(super) struct Writer(WriterThread<Box<dyn Call>>);

impl Writer {
    /// Starts the writer thread; it connects when the first call comes, and again after its
    /// connection ended.
    pub(super) fn start(target: Target) -> Result<Writer> {
        WriterThread::start("postgres-writer", move |calls| serve(&target, &calls)).map(Writer)
    }

    /// Runs `work` in the writer's transaction and returns its result once that transaction
    /// committed. `work` fails alone: its changes are rolled back and other calls go on.
    pub(super) fn call<T, F>(&self, context: &'static str, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&mut dyn Tx) -> Result<T> + Send + 'static,
    {
        let (reply, answer) = mpsc::sync_channel(1);
        let call: Box<dyn Call> = Box::new(Pending { context, work, result: None, reply });
        self.0.call(context, call, answer)
    }
}

fn serve(target: &Target, calls: &mpsc::Receiver<Box<dyn Call>>) {
    let mut conn: Option<Pooled> = None;
    let mut batch: VecDeque<Box<dyn Call>> = VecDeque::with_capacity(MAX_BATCH);
    while let Ok(first) = calls.recv() {
        gather(first, calls, MAX_BATCH, &mut batch);
        while !batch.is_empty() {
            if conn.as_ref().is_none_or(|c| c.link.is_closed() || c.broken) {
                conn = None;
                match connect(&target.config, &target.name) {
                    Ok(link) => conn = Some(Pooled::new(link)),
                    Err(e) => {
                        let why = e.to_string();
                        for call in batch.drain(..) {
                            call.answer(Err(&why));
                        }
                        break;
                    }
                }
            }
            if let Some(conn) = conn.as_mut() {
                transaction(conn, &mut batch);
            }
        }
    }
}

/// Runs queued calls in one transaction and answers them. Leaves the calls it did not reach
/// queued when the transaction was lost (a savepoint failed, the connection ended), so that
/// the next transaction runs them.
fn transaction(conn: &mut Pooled, calls: &mut VecDeque<Box<dyn Call>>) {
    let Pooled { link, statements, cache, broken } = conn;
    let mut pg = PgConn::new(link, statements, cache, WRITE_BEGIN.as_str());
    let mut ran: Vec<Box<dyn Call>> = Vec::with_capacity(calls.len());
    let mut abandoned: Option<String> = None;
    while let Some(mut call) = calls.pop_front() {
        let ok = call.run(&mut pg);
        ran.push(call);
        if !ok && pg.is_lost() {
            abandoned = Some("the transaction was lost (a savepoint failed or the connection ended)".into());
            break;
        }
    }
    let outcome = match abandoned {
        None => pg.commit("committing a batch of writes").map_err(|e| e.to_string()),
        Some(why) => Err(why),
    };
    if outcome.is_err() {
        pg.forget_cached();
        if let Err(e) = pg.rollback() {
            tracing::warn!(error = %e, "rolling back a failed batch of writes");
            *broken = true;
        }
    }
    for call in ran {
        call.answer(outcome.as_ref().map(|_| ()).map_err(String::as_str));
    }
}
