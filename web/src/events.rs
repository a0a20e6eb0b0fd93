//! Live updates by server-sent events. One publisher task wakes on the farm's changes, at most
//! [`PUBLISH_EVERY`] apart, turns the active runs (and any run whose row just changed, such as
//! one that finished) into one JSON text with a sequence number, and broadcasts it: the cost of
//! an update is one storage read and one serialization however many pages are open, and each
//! stream only forwards a shared `Arc<str>`.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use coordinator::farm::Farm;
use proto::domain::RunFilter;
use tokio::sync::{broadcast, watch};
use tokio_stream::{Stream, StreamExt as _};

use crate::api::rows::{Names, RunRow, run_row};
use crate::auth::Reader;
use crate::state::AppState;

/// The shortest time between two updates (at most four a second).
pub const PUBLISH_EVERY: Duration = Duration::from_millis(250);
/// Updates a slow stream may fall behind before it skips to the latest.
const BACKLOG: usize = 64;

/// The publisher of live updates.
#[derive(Debug)]
pub struct Events {
    updates: broadcast::Sender<Arc<str>>,
    latest: watch::Receiver<Arc<str>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Events {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The `runs` event's data: the rows and the update's sequence number.
fn update_text(seq: u64, rows: &[RunRow]) -> Arc<str> {
    let text = serde_json::to_string(&serde_json::json!({ "seq": seq, "runs": rows }))
        .unwrap_or_else(|e| format!("{{\"seq\":{seq},\"error\":\"{e}\"}}"));
    Arc::from(text)
}

/// The rows to send: every active run, and every other run whose row differs from what was
/// last sent (its final numbers and state). `sent` becomes what is sent now.
fn changed_rows(sent: &mut HashMap<u64, RunRow>, rows: Vec<RunRow>) -> Vec<RunRow> {
    let mut out = Vec::new();
    for row in rows {
        let changed = sent.get(&row.id) != Some(&row);
        if row.state == "active" || changed {
            sent.insert(row.id, row.clone());
            out.push(row);
        }
    }
    out
}

/// The rows of every run (finished ones too: one may have just finished).
fn snapshot(farm: &Farm, names: &Mutex<Names>) -> Vec<RunRow> {
    let statuses = match farm.list_runs(&RunFilter { active_only: false, limit: 0 }) {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "live update: listing runs failed");
            return Vec::new();
        }
    };
    let storage = farm.storage();
    let mut names = names.lock().unwrap_or_else(|p| p.into_inner());
    statuses.iter().map(|s| run_row(s, |id| names.name(id, |id| storage.get_variant(id).ok()))).collect()
}

impl Events {
    /// Starts the publisher on the current Tokio runtime.
    pub fn start(farm: Arc<Farm>, names: Arc<Mutex<Names>>) -> Events {
        let (updates, _) = broadcast::channel(BACKLOG);
        let (latest_tx, latest) = watch::channel(update_text(0, &[]));
        let sender = updates.clone();
        let task = tokio::spawn(async move {
            let mut changes = farm.subscribe();
            let mut sent = HashMap::new();
            let mut seq = 0u64;
            loop {
                let (farm2, names2) = (Arc::clone(&farm), Arc::clone(&names));
                let rows = match tokio::task::spawn_blocking(move || snapshot(&farm2, &names2)).await {
                    Ok(rows) => rows,
                    Err(e) => {
                        tracing::warn!(error = %e, "live update task failed");
                        Vec::new()
                    }
                };
                let rows = if seq == 0 { rows.into_iter().filter(|r| r.state == "active").collect() } else { rows };
                let rows = changed_rows(&mut sent, rows);
                seq += 1;
                let text = update_text(seq, &rows);
                latest_tx.send_replace(Arc::clone(&text));
                let _ = sender.send(text);
                if changes.changed().await.is_err() {
                    break;
                }
                tokio::time::sleep(PUBLISH_EVERY).await;
                changes.borrow_and_update();
            }
        });
        Events { updates, latest, task }
    }

    /// The latest update, then every later one (a stream that falls [`BACKLOG`] behind skips to
    /// the newest: each update carries every active run, so nothing is lost but the steps). The
    /// stream ends when the client goes away (its forwarder then stops at the next update).
    pub fn subscribe(&self) -> impl Stream<Item = Arc<str>> + Send + use<> {
        let first = self.latest.borrow().clone();
        let mut rx = self.updates.subscribe();
        let (tx, out) = tokio::sync::mpsc::channel::<Arc<str>>(4);
        tokio::spawn(async move {
            if tx.send(first).await.is_err() {
                return;
            }
            loop {
                match rx.recv().await {
                    Ok(text) => {
                        if tx.send(text).await.is_err() {
                            return;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        });
        tokio_stream::wrappers::ReceiverStream::new(out)
    }
}

/// `GET /api/events`: the `runs` updates as server-sent events.
pub async fn stream(_: Reader, State(state): State<AppState>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let updates = state.events.subscribe().map(|text: Arc<str>| Ok(Event::default().event("runs").data(&*text)));
    Sse::new(updates).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u64, state: &'static str, games: u64) -> RunRow {
        RunRow {
            id,
            name: String::new(),
            kind: "sprt",
            variants: Vec::new(),
            tc: String::new(),
            games,
            pairs_total: None,
            wdl: [0; 3],
            pentanomial: [0; 5],
            elo: None,
            elo_ci: None,
            nelo: None,
            nelo_ci: None,
            los: None,
            llr: None,
            bounds: None,
            state,
            verdict: None,
            created_ms: 0,
            missing_engines: Vec::new(),
        }
    }

    #[test]
    fn active_runs_are_always_sent_and_finished_ones_once_when_they_change() {
        let mut sent = HashMap::new();
        let first = changed_rows(&mut sent, vec![row(1, "active", 2), row(2, "completed", 10)]);
        assert_eq!(first.iter().map(|r| r.id).collect::<Vec<_>>(), [1, 2]);
        let second = changed_rows(&mut sent, vec![row(1, "active", 2), row(2, "completed", 10)]);
        assert_eq!(second.iter().map(|r| r.id).collect::<Vec<_>>(), [1], "an unchanged finished run is not resent");
        let third = changed_rows(&mut sent, vec![row(1, "stopped", 4), row(2, "completed", 10)]);
        assert_eq!(third[0].state, "stopped", "the run that just stopped is sent with its final numbers");
        assert!(changed_rows(&mut sent, vec![row(1, "stopped", 4)]).is_empty());
    }
}
