//! The single writer: one thread owns the connection that changes the database and runs the
//! calls that callers queue, all that are waiting, in one transaction (group commit). Each call
//! runs in its own savepoint, so a failing call rolls back alone, and every caller is answered
//! only after the COMMIT: an acknowledged change is committed. One commit, one append of the
//! changed pages to the WAL, then serves many calls, and the pages they share (a run's row and
//! statistics, the tails of the lease, pair and game tables) are written once per batch instead
//! of once per call.

use std::collections::VecDeque;
use std::sync::mpsc;

use super::db::Db;
use crate::error::{Error, Result};
use crate::storage::group_commit::{WriterThread, gather, settle};

/// Most calls in one transaction: bounds how long the first caller of a batch waits for the
/// last.
const MAX_BATCH: usize = 256;

/// A queued call.
trait Call: Send {
    /// Runs the call on the writer's connection; false when it failed.
    fn run(&mut self, db: &Db) -> bool;
    /// Answers the caller when the transaction is over: `Ok` if it committed, else why not.
    fn answer(self: Box<Self>, committed: std::result::Result<(), &str>);
}

struct Pending<T, F> {
    context: &'static str,
    work: Option<F>,
    result: Option<Result<T>>,
    reply: mpsc::SyncSender<Result<T>>,
}

impl<T: Send, F: FnOnce(&Db) -> Result<T> + Send> Call for Pending<T, F> {
    fn run(&mut self, db: &Db) -> bool {
        let result = match self.work.take() {
            Some(work) => work(db),
            None => Err(Error::storage(self.context, "the call was run twice")),
        };
        let ok = result.is_ok();
        self.result = Some(result);
        ok
    }

    fn answer(self: Box<Self>, committed: std::result::Result<(), &str>) {
        // A caller that stopped waiting has nobody left to tell.
        let _ = self.reply.send(settle(self.context, self.result, committed));
    }
}

/// The handle callers queue their calls through. Dropping it lets the queued calls finish,
/// then stops the thread and closes its connection.
#[derive(Debug)]
pub(super) struct Writer(WriterThread<Box<dyn Call>>);

impl Writer {
    /// Starts the writer thread on `db`; `after_commit` runs on it after every batch (the
    /// checkpoint policy).
    pub(super) fn start(db: Db, after_commit: impl FnMut(&Db) + Send + 'static) -> Result<Writer> {
        WriterThread::start("sqlite-writer", move |calls| serve(&db, &calls, after_commit)).map(Writer)
    }

    /// Runs `work` in the writer's transaction and returns its result once that transaction
    /// committed. `work` fails alone: its changes are rolled back and other calls go on.
    pub(super) fn call<T, F>(&self, context: &'static str, work: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Db) -> Result<T> + Send + 'static,
    {
        let (reply, answer) = mpsc::sync_channel(1);
        let call: Box<dyn Call> = Box::new(Pending { context, work: Some(work), result: None, reply });
        self.0.call(context, call, answer)
    }
}

fn serve(db: &Db, calls: &mpsc::Receiver<Box<dyn Call>>, mut after_commit: impl FnMut(&Db)) {
    let mut batch: VecDeque<Box<dyn Call>> = VecDeque::with_capacity(MAX_BATCH);
    while let Ok(first) = calls.recv() {
        gather(first, calls, MAX_BATCH, &mut batch);
        let size = batch.len();
        while !batch.is_empty() {
            transaction(db, &mut batch);
        }
        tracing::trace!(calls = size, "batch committed");
        after_commit(db);
    }
}

fn exec(db: &Db, sql: &str) -> rusqlite::Result<()> {
    db.prepare_cached(sql).and_then(|mut s| s.execute([])).map(|_| ())
}

/// Runs queued calls in one transaction and answers them. Leaves the calls it did not reach
/// queued when SQLite abandoned the transaction (an I/O error, a full disk), so that the next
/// transaction runs them.
fn transaction(db: &Db, calls: &mut VecDeque<Box<dyn Call>>) {
    if let Err(e) = db.execute_batch("BEGIN IMMEDIATE") {
        let why = format!("starting a transaction: {e}");
        for call in calls.drain(..) {
            call.answer(Err(&why));
        }
        return;
    }
    let mut ran: Vec<Box<dyn Call>> = Vec::with_capacity(calls.len());
    let mut abandoned: Option<String> = None;
    while let Some(mut call) = calls.pop_front() {
        if let Err(e) = exec(db, "SAVEPOINT call") {
            abandoned = Some(format!("opening a savepoint: {e}"));
            ran.push(call);
            break;
        }
        let ok = call.run(db);
        ran.push(call);
        let closed = if ok {
            exec(db, "RELEASE call")
        } else {
            // Rows the failed call read into the caches may be rolled back now.
            db.forget_all();
            if db.is_autocommit() {
                abandoned = Some("the transaction was rolled back by a failed call".into());
                break;
            }
            exec(db, "ROLLBACK TO call").and_then(|()| exec(db, "RELEASE call"))
        };
        if let Err(e) = closed {
            abandoned = Some(format!("closing a savepoint: {e}"));
            break;
        }
    }
    let outcome = match abandoned {
        None => db.execute_batch("COMMIT").map_err(|e| format!("committing: {e}")),
        Some(why) => Err(why),
    };
    if outcome.is_err() {
        db.forget_all();
        if !db.is_autocommit()
            && let Err(e) = db.execute_batch("ROLLBACK")
        {
            tracing::error!(error = %e, "rolling back a failed transaction");
        }
    }
    for call in ran {
        call.answer(outcome.as_ref().map(|_| ()).map_err(String::as_str));
    }
}
