//! What coordinators sharing one PostgreSQL database tell each other, each on a connection of
//! its own (never a pooled one):
//! - the announcer sends changes as `NOTIFY` on [`CHANNEL`] from a thread, coalescing the changes
//!   that queue up within [`GATHER`] of the first and while it sends, so that recording results
//!   never waits for it and a busy farm sends a few notifications a second, not one per result;
//! - the listener `LISTEN`s on [`CHANNEL`] and hands every other coordinator's change to the
//!   farm; after losing its connection it reconnects and reports [`Change::Runs`], since it may
//!   have missed some;
//! - the exporter's role is a session advisory lock: held while its connection lives, so that a
//!   coordinator that dies (or loses the database) lets another take the role over.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, Config, NoTls};

use crate::error::{Error, Result};
use crate::storage::feed::{Change, ChangeSink};

/// The notification channel.
pub(super) const CHANNEL: &str = "xqfarm_changes";

/// The advisory lock whose holder exports Parquet.
const EXPORTER_LOCK: i64 = 0x7871_6661_726d_0002;

/// How long the listener waits for a notification before checking whether it should stop.
const LISTEN_POLL: Duration = Duration::from_millis(250);

/// How long the announcer gathers changes after the first before it sends them: other
/// coordinators learn of a change at most this much later. (With `xqfarm bench rpc`, 64
/// workers on PostgreSQL, one notification per result was a transaction of three round trips
/// per submission.)
const GATHER: Duration = Duration::from_millis(50);

/// How long a dead connection is left before connecting again.
const RECONNECT_AFTER: Duration = Duration::from_secs(1);

/// Sends announcements from a thread of its own.
pub(super) struct Announcer {
    queue: Option<Sender<Change>>,
    thread: Option<JoinHandle<()>>,
}

impl Announcer {
    pub(super) fn start(config: Config, origin: u64) -> Announcer {
        let (queue, changes) = channel();
        let thread = std::thread::Builder::new()
            .name("xqfarm-pg-announce".into())
            .spawn(move || announce_loop(&config, origin, &changes))
            .map_err(|e| tracing::warn!(error = %e, "cannot start the PostgreSQL announcer"))
            .ok();
        Announcer { queue: Some(queue), thread }
    }

    pub(super) fn announce(&self, change: Change) {
        if let Some(queue) = &self.queue {
            let _ = queue.send(change);
        }
    }
}

impl Drop for Announcer {
    fn drop(&mut self) {
        // Closing the queue ends the thread once it has sent what was queued.
        self.queue = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn announce_loop(config: &Config, origin: u64, changes: &Receiver<Change>) {
    let mut client: Option<Client> = None;
    while let Ok(first) = changes.recv() {
        // Everything queued within GATHER goes in one round trip: one "runs", the last count per
        // run. (A closed queue sends what it has, then ends the loop.)
        let until = Instant::now() + GATHER;
        let mut gathered = vec![first];
        while let Ok(change) = changes.recv_timeout(until.saturating_duration_since(Instant::now())) {
            gathered.push(change);
        }
        let mut runs = false;
        let mut exported = BTreeMap::new();
        for change in gathered {
            match change {
                Change::Runs => runs = true,
                Change::Exported { run, games } => {
                    let count = exported.entry(run).or_insert(0);
                    *count = games.max(*count);
                }
            }
        }
        let mut payloads: Vec<String> =
            exported.into_iter().map(|(run, games)| Change::Exported { run, games }.encode(origin)).collect();
        if runs {
            payloads.push(Change::Runs.encode(origin));
        }
        if client.as_ref().is_none_or(Client::is_closed) {
            client = config.connect(NoTls).map_err(|e| tracing::warn!(error = %e, "announcer cannot connect")).ok();
        }
        let Some(c) = client.as_mut() else { continue };
        let sent = c.transaction().and_then(|mut tx| {
            for payload in &payloads {
                tx.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, payload])?;
            }
            tx.commit()
        });
        if let Err(e) = sent {
            tracing::warn!(error = %e, "announcing a change to the other coordinators failed");
            client = None;
        }
    }
}

/// Listens on a thread of its own until dropped.
pub(super) struct Listener {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Listener {
    /// Connects and listens before returning, so that no change announced after this returns
    /// is missed.
    pub(super) fn start(config: Config, origin: u64, sink: ChangeSink) -> Result<Listener> {
        let first = listen_on(&config).map_err(|e| Error::storage("listening for other coordinators", e))?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("xqfarm-pg-listen".into())
            .spawn(move || listen_loop(&config, origin, &sink, &flag, first))
            .map_err(|e| Error::storage("starting the listener thread", e))?;
        Ok(Listener { stop, thread: Some(thread) })
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn listen_on(config: &Config) -> std::result::Result<Client, postgres::Error> {
    let mut client = config.connect(NoTls)?;
    client.batch_execute(&format!("LISTEN {CHANNEL}"))?;
    Ok(client)
}

fn listen_loop(config: &Config, origin: u64, sink: &ChangeSink, stop: &AtomicBool, first: Client) {
    let mut client = Some(first);
    while !stop.load(Ordering::SeqCst) {
        let Some(c) = client.as_mut() else {
            std::thread::sleep(RECONNECT_AFTER);
            match listen_on(config) {
                Ok(c) => {
                    tracing::info!("listening to the other coordinators again");
                    client = Some(c);
                    // Whatever was announced while the connection was down is unknown.
                    sink(Change::Runs);
                }
                Err(e) => tracing::warn!(error = %e, "cannot listen to the other coordinators"),
            }
            continue;
        };
        let lost = {
            let mut notifications = c.notifications();
            let mut waiting = notifications.timeout_iter(LISTEN_POLL);
            loop {
                match waiting.next() {
                    Ok(Some(n)) => match Change::decode(n.payload()) {
                        Some((from, change)) if from != origin => sink(change),
                        Some(_) => {}
                        None => tracing::debug!(payload = n.payload(), "ignoring an unknown notification"),
                    },
                    Ok(None) => break false,
                    Err(e) => {
                        tracing::warn!(error = %e, "lost the connection that listens to the other coordinators");
                        break true;
                    }
                }
            }
        };
        if lost {
            client = None;
        }
    }
}

/// The exporter's role: an advisory lock held by a connection of its own. A coordinator without
/// the role keeps its connection too, and asks for the lock again on it at each check.
pub(super) struct ExporterRole {
    config: Config,
    /// The connection, and whether it holds the lock.
    conn: Mutex<Option<(Client, bool)>>,
}

impl ExporterRole {
    pub(super) fn new(config: Config) -> ExporterRole {
        ExporterRole { config, conn: Mutex::new(None) }
    }

    /// Gives the role up with its connection (to be dropped where blocking is allowed).
    pub(super) fn release(&mut self) -> Option<Client> {
        self.conn.get_mut().ok().and_then(Option::take).map(|(client, _)| client)
    }

    /// Whether this coordinator holds the role, taking it if nobody does. A holder whose
    /// connection died has lost it (the server released the lock), and tries to take it again.
    pub(super) fn check(&self) -> Result<bool> {
        let mut slot = self.conn.lock().map_err(|_| Error::storage("checking the exporter role", "lock poisoned"))?;
        if let Some((client, holds)) = slot.as_mut() {
            if client.is_valid(Duration::from_secs(5)).is_ok() {
                if *holds {
                    return Ok(true);
                }
            } else {
                if *holds {
                    tracing::warn!("lost the exporter role with its database connection");
                }
                *slot = None;
            }
        }
        let (client, holds) = match slot.as_mut() {
            Some(conn) => conn,
            None => {
                let client = self.config.connect(NoTls).map_err(|e| Error::storage("taking the exporter role", e))?;
                slot.insert((client, false))
            }
        };
        let taken: bool = client
            .query_one("SELECT pg_try_advisory_lock($1)", &[&EXPORTER_LOCK])
            .and_then(|row| row.try_get(0))
            .map_err(|e| Error::storage("taking the exporter role", e))?;
        if taken {
            tracing::info!("this coordinator exports Parquet (it holds the exporter role)");
            *holds = true;
        }
        Ok(taken)
    }
}
