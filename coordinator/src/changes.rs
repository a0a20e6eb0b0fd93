//! Waking watchers: a counter bumped after every change a watcher may care about, here or
//! (announced through the store) by another coordinator on the same database.

use std::sync::Arc;

use tokio::sync::watch;

use crate::storage::Storage;
use crate::storage::feed::Change;

/// The farm's change counter, shared by the request path and the exporter.
#[derive(Clone)]
pub(crate) struct Changes {
    counter: Arc<watch::Sender<u64>>,
    storage: Arc<dyn Storage>,
}

impl Changes {
    pub(crate) fn new(storage: Arc<dyn Storage>) -> Changes {
        Changes { counter: Arc::new(watch::channel(0).0), storage }
    }

    /// A change made here: watchers here wake, and other coordinators on the store hear of it.
    pub(crate) fn notify(&self) {
        self.bump();
        self.storage.announce(Change::Runs);
    }

    /// Wakes watchers here only.
    fn bump(&self) {
        self.counter.send_modify(|v| *v += 1);
    }

    /// [`Changes::bump`] for the store's listener (changes another coordinator announced): it
    /// holds the counter only, never the store that holds the listener.
    pub(crate) fn waker(&self) -> impl Fn() + Send + Sync + 'static {
        let counter = Arc::clone(&self.counter);
        move || counter.send_modify(|v| *v += 1)
    }

    /// A receiver that changes whenever runs or their results change.
    pub(crate) fn subscribe(&self) -> watch::Receiver<u64> {
        self.counter.subscribe()
    }
}
