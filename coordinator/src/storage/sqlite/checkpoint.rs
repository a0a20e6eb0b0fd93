//! Checkpoints off the request path. SQLite's automatic checkpoint runs inside the commit
//! that crosses its threshold: the writer then copies the WAL into the database and waits for
//! two `fsync`s (a few milliseconds each here) while every caller waits behind it. Instead, the
//! writer only counts the WAL's frames (its WAL hook) and wakes a checkpointer thread with a
//! connection of its own, whose passive checkpoints copy and sync while the writer goes on
//! appending.
//!
//! A passive checkpoint never blocks the writer, but under steady load the writer has always
//! appended a little more by the time it ends, so the WAL would never start over from its
//! beginning and would grow without bound. Past [`WAL_LIMIT_FRAMES`] the writer therefore
//! checkpoints itself between two batches: little is left to copy by then, and its next commit
//! restarts the WAL.
//!
//! Durability is SQLite's WAL with `synchronous=NORMAL` either way: commits are appended to the
//! WAL without `fsync`, and the WAL is synced before each checkpoint copies it.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use rusqlite::Connection;

use super::db::Db;
use crate::error::{Error, Result};

/// WAL frames (pages) appended between two background checkpoints: SQLite's own default.
const CHECKPOINT_FRAMES: i32 = 1_000;
/// WAL frames beyond which the writer checkpoints itself so that the WAL restarts (~40 MB).
const WAL_LIMIT_FRAMES: i32 = 10_000;

#[derive(Debug, Default)]
struct Signal {
    requested: bool,
    stop: bool,
}

#[derive(Debug, Default)]
struct Shared {
    signal: Mutex<Signal>,
    wake: Condvar,
}

impl Shared {
    fn set(&self, change: impl FnOnce(&mut Signal)) {
        match self.signal.lock() {
            Ok(mut signal) => change(&mut signal),
            Err(poisoned) => change(&mut poisoned.into_inner()),
        }
        self.wake.notify_one();
    }
}

/// The background checkpointer; dropping it stops its thread.
#[derive(Debug)]
pub(super) struct Checkpointer {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts the checkpointer on its own connection to the database, and returns it with the
    /// policy the writer runs after each batch. Installs the WAL hook on `writer`, which
    /// replaces SQLite's automatic checkpoint.
    pub(super) fn start(conn: Connection, writer: &mut Db) -> Result<(Checkpointer, impl FnMut(&Db) + Send + 'static)> {
        let frames = Arc::new(AtomicI32::new(0));
        let seen = Arc::clone(&frames);
        writer
            .connection_mut()
            .wal_hook(Some(move |_: &mut rusqlite::hooks::Wal, pages: std::ffi::c_int| {
                seen.store(pages, Ordering::Relaxed);
                Ok(())
            }))
            .map_err(|e| Error::storage("installing the WAL hook", e))?;
        let shared = Arc::new(Shared::default());
        let worker = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || checkpoint_loop(&conn, &worker))
            .map_err(|e| Error::storage("starting the checkpointer", e))?;
        let mut policy = Policy {
            frames,
            next_request: CHECKPOINT_FRAMES,
            next_forced: WAL_LIMIT_FRAMES,
            shared: Arc::clone(&shared),
        };
        Ok((Checkpointer { shared, thread: Some(thread) }, move |db: &Db| policy.after_commit(db)))
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.shared.set(|s| s.stop = true);
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("the checkpointer panicked");
        }
    }
}

/// The writer's side: when to wake the checkpointer and when to checkpoint itself.
struct Policy {
    /// Frames in the WAL after the last commit, as the WAL hook saw them.
    frames: Arc<AtomicI32>,
    /// Frames at which to wake the checkpointer next.
    next_request: i32,
    /// Frames at which the writer checkpoints itself next.
    next_forced: i32,
    shared: Arc<Shared>,
}

impl Policy {
    fn after_commit(&mut self, db: &Db) {
        let frames = self.frames.load(Ordering::Relaxed);
        if frames < self.next_request - CHECKPOINT_FRAMES {
            // The WAL started over from its beginning.
            self.next_request = CHECKPOINT_FRAMES;
            self.next_forced = WAL_LIMIT_FRAMES;
        }
        if frames >= self.next_forced {
            // At most once per CHECKPOINT_FRAMES: a reader's snapshot may hold it back.
            self.next_forced = frames + CHECKPOINT_FRAMES;
            match passive_checkpoint(db) {
                Ok((busy, log, done)) => tracing::debug!(busy, log, done, "writer checkpoint"),
                Err(e) => tracing::warn!(error = %e, "writer checkpoint failed"),
            }
        } else if frames >= self.next_request {
            self.next_request = frames + CHECKPOINT_FRAMES;
            self.shared.set(|s| s.requested = true);
        }
    }
}

/// `(busy, frames in the WAL, frames checkpointed)`, as `PRAGMA wal_checkpoint` reports them.
fn passive_checkpoint(conn: &Connection) -> rusqlite::Result<(i64, i64, i64)> {
    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
}

fn checkpoint_loop(conn: &Connection, shared: &Shared) {
    loop {
        {
            let Ok(mut signal) = shared.signal.lock() else {
                return;
            };
            while !signal.requested && !signal.stop {
                signal = match shared.wake.wait(signal) {
                    Ok(s) => s,
                    Err(_) => return,
                };
            }
            if signal.stop {
                return;
            }
            signal.requested = false;
        }
        match passive_checkpoint(conn) {
            Ok((busy, log, done)) => tracing::trace!(busy, log, done, "checkpoint"),
            Err(e) => tracing::warn!(error = %e, "checkpoint failed; retried after more commits"),
        }
    }
}
