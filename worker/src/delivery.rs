//! The delivery task: sends what the spool holds, oldest lease and sequence number first, and
//! deletes each file only once the coordinator acknowledged it. It runs apart from play, so a
//! coordinator that hangs or is gone delays delivery and nothing else.

use std::sync::Arc;

use proto::domain::WorkerId;
use tokio::sync::{Notify, watch};
use tonic::Code;

use crate::client::{Connection, backoff};
use crate::error::Result;
use crate::spool::Spool;

/// How one pass over the spool ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pass {
    /// Every file the pass saw was delivered (or refused for good and set aside).
    Done,
    /// The coordinator could not take a submission now: try again later, in order.
    Retry,
}

/// Whether a submission the coordinator did not take stays in the spool for a later try.
/// Besides network trouble, a version mismatch (one side being upgraded) or a bad token (being
/// fixed) are not the results' fault: honest results are never discarded for them. Only an
/// answer about the submission itself (not this worker's lease, unknown lease, a report the
/// referee refuses) sets it aside.
fn retry_later(error: &proto::Error) -> bool {
    match error.code() {
        Some(code) => {
            error.is_transient()
                || matches!(
                    code,
                    Code::FailedPrecondition | Code::Unauthenticated | Code::ResourceExhausted | Code::Unimplemented
                )
        }
        // Not an answer about the submission at all.
        None => true,
    }
}

pub(crate) struct Delivery {
    pub(crate) conn: Connection,
    pub(crate) spool: Arc<Spool>,
    pub(crate) worker: WorkerId,
    /// Notified whenever a file is spooled.
    pub(crate) wake: Arc<Notify>,
}

impl Delivery {
    /// Delivers until `finish` is set and the spool is empty.
    pub(crate) async fn run(self, mut finish: watch::Receiver<bool>) -> Result<()> {
        let mut failures = 0;
        let mut finishing = false;
        loop {
            match self.pass().await? {
                Pass::Done => {
                    failures = 0;
                    if !self.spool.is_empty()? {
                        continue;
                    }
                    finishing |= *finish.borrow_and_update();
                    if finishing {
                        return Ok(());
                    }
                    tokio::select! {
                        () = self.wake.notified() => {}
                        changed = finish.changed() => finishing |= changed.is_err() || *finish.borrow_and_update(),
                    }
                }
                Pass::Retry => {
                    failures += 1;
                    tokio::time::sleep(backoff(failures)).await;
                }
            }
        }
    }

    async fn pass(&self) -> Result<Pass> {
        let client = self.conn.once();
        for mut req in self.spool.pending()? {
            let (lease, seq) = req.batch.as_ref().map_or((0, 0), |b| (b.lease_id, b.seq));
            // Spooled by an earlier run of this worker, maybe before its id was known; the key
            // makes it the same worker.
            req.worker_id = self.worker.get();
            match client.submit_wire(req).await {
                Ok(ack) => {
                    self.spool.remove(lease, seq)?;
                    tracing::info!(lease = %lease, seq, recorded = ack.recorded_pairs, duplicate = ack.duplicate, "delivered");
                }
                // The coordinator took it; only its answer is unreadable.
                Err(error @ proto::Error::BadResponse { .. }) => {
                    self.spool.remove(lease, seq)?;
                    tracing::warn!(lease = %lease, seq, %error, "delivered; the acknowledgement is malformed");
                }
                Err(error) if retry_later(&error) => {
                    tracing::warn!(lease = %lease, seq, %error, "delivery failed; the spool keeps it for a retry");
                    return Ok(Pass::Retry);
                }
                Err(error) => {
                    let reason = self.conn.fatal(&error).to_string();
                    tracing::error!(lease = %lease, seq, %reason, "submission refused by the coordinator; set aside in the spool's refused/");
                    self.spool.set_aside(lease, seq, &reason)?;
                }
            }
        }
        Ok(Pass::Done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_answers_about_the_submission_itself_set_it_aside() {
        let kept = [
            Code::Unavailable,
            Code::DeadlineExceeded,
            Code::Cancelled,
            Code::Internal,
            // One side is being upgraded (protocol or rules version), or the token fixed.
            Code::FailedPrecondition,
            Code::Unauthenticated,
        ];
        let rpc = |code| proto::Error::Rpc { call: "Submit", code, message: "x".into() };
        for code in kept {
            assert!(retry_later(&rpc(code)), "{code:?} keeps the results for a retry");
        }
        for code in [Code::InvalidArgument, Code::PermissionDenied, Code::NotFound] {
            assert!(!retry_later(&rpc(code)), "{code:?} sets the submission aside");
        }
    }
}
