//! CreateRun's idempotency: a retried CreateRun with the same request key gets the run its
//! first attempt made. Keys live in memory only (the last [`REQUEST_KEYS_KEPT`]); see
//! `proto::client` for what that leaves.

use std::collections::VecDeque;
use std::sync::Mutex;

use proto::domain::{Run, RunId};

use crate::error::{Error, Result};

/// CreateRun request keys remembered (the oldest is forgotten first).
pub const REQUEST_KEYS_KEPT: usize = 4_096;
/// The longest CreateRun request key.
pub const REQUEST_KEY_MAX: usize = 128;

/// The runs CreateRun made for recent request keys, oldest first.
#[derive(Debug, Default)]
pub struct RequestKeys {
    /// Held while a keyed run is created, so two attempts in flight at once cannot both
    /// create one.
    created: Mutex<VecDeque<(String, RunId)>>,
}

impl RequestKeys {
    /// `create` once per `request_key` (empty: no key, always `create`): a key seen before
    /// answers with `get` of the run created for it. A key that is too long or not printable
    /// ASCII is refused, naming the field `request_key`.
    pub fn once(
        &self,
        request_key: &str,
        create: impl FnOnce() -> Result<Run>,
        get: impl FnOnce(RunId) -> Result<Run>,
    ) -> Result<Run> {
        if request_key.is_empty() {
            return create();
        }
        if request_key.len() > REQUEST_KEY_MAX || !request_key.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(Error::InvalidSpec {
                field: "request_key".into(),
                reason: format!("at most {REQUEST_KEY_MAX} printable ASCII characters, got {:?}", request_key),
            });
        }
        let mut created =
            self.created.lock().map_err(|_| Error::storage("reading request keys", "the lock is poisoned"))?;
        if let Some(&(_, id)) = created.iter().find(|(key, _)| key == request_key) {
            tracing::info!(run = %id, "CreateRun sent again with the same request key: the run made the first time");
            return get(id);
        }
        let run = create()?;
        if created.len() >= REQUEST_KEYS_KEPT {
            created.pop_front();
        }
        created.push_back((request_key.to_owned(), run.id));
        Ok(run)
    }
}
