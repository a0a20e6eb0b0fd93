//! What the SQLite and PostgreSQL writers share (group commit, `sqlite/writer.rs` and
//! `postgres/writer.rs`): a thread that owns the connection that writes, the queue callers send
//! their calls through, the batches it takes from that queue, and how a call is answered once
//! its batch's transaction is over. How a batch runs (savepoints, connecting again) is each
//! writer's own.

use std::collections::VecDeque;
use std::sync::mpsc;
use std::thread::JoinHandle;

use crate::error::{Error, Result};

/// The writer thread and its queue of calls `M`. Dropping it lets the queued calls finish, then
/// stops the thread (which closes its connection).
pub(super) struct WriterThread<M> {
    queue: Option<mpsc::Sender<M>>,
    thread: Option<JoinHandle<()>>,
}

impl<M> std::fmt::Debug for WriterThread<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriterThread").finish_non_exhaustive()
    }
}

impl<M: Send + 'static> WriterThread<M> {
    /// Starts the thread `name`, which serves the queue until every sender is gone.
    pub(super) fn start(name: &str, serve: impl FnOnce(mpsc::Receiver<M>) + Send + 'static) -> Result<Self> {
        let (queue, calls) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || serve(calls))
            .map_err(|e| Error::storage("starting the database writer", e))?;
        Ok(WriterThread { queue: Some(queue), thread: Some(thread) })
    }

    /// Queues `call` and waits for what it answers on `answer`.
    pub(super) fn call<T>(&self, context: &'static str, call: M, answer: mpsc::Receiver<Result<T>>) -> Result<T> {
        let stopped = || Error::storage(context, "the database writer has stopped");
        self.queue.as_ref().ok_or_else(stopped)?.send(call).map_err(|_| stopped())?;
        answer.recv().map_err(|_| stopped())?
    }
}

impl<M> Drop for WriterThread<M> {
    fn drop(&mut self) {
        drop(self.queue.take());
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("the database writer panicked");
        }
    }
}

/// Fills `batch` with `first` and the calls already waiting, up to `max` calls: what one
/// transaction runs.
pub(super) fn gather<M>(first: M, calls: &mpsc::Receiver<M>, max: usize, batch: &mut VecDeque<M>) {
    batch.push_back(first);
    while batch.len() < max {
        match calls.try_recv() {
            Ok(call) => batch.push_back(call),
            Err(_) => break,
        }
    }
}

/// A call's answer once its transaction is over: its own error if it failed (it was rolled
/// back to its savepoint, whatever became of the others), its value if the transaction
/// committed, else why it did not.
pub(super) fn settle<T>(
    context: &'static str,
    result: Option<Result<T>>,
    committed: std::result::Result<(), &str>,
) -> Result<T> {
    match (result, committed) {
        (Some(Err(e)), _) => Err(e),
        (Some(Ok(value)), Ok(())) => Ok(value),
        (_, Err(why)) => Err(Error::storage(context, why.to_owned())),
        (None, Ok(())) => Err(Error::storage(context, "the call never ran")),
    }
}
