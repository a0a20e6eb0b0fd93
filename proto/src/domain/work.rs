//! What a worker and the coordinator exchange besides the lease itself: delivered results,
//! their acknowledgements, and the lease call that doubles as the heartbeat.

use super::{Lease, LeaseId, PairReport, WorkerId};

/// Finished pairs of one lease. `(lease, seq)` names the delivery: the coordinator counts it
/// once however often it arrives, so a worker resends until it sees the [`BatchAck`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchResult {
    pub lease: LeaseId,
    /// Numbered by the worker from 0 per lease.
    pub seq: u32,
    pub pairs: Vec<PairReport>,
    /// The worker is done with the lease: pairs it has not reported go back to the pool.
    pub is_final: bool,
}

/// The coordinator holds the batch: the worker may forget it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchAck {
    pub lease: LeaseId,
    pub seq: u32,
    /// Pairs newly counted by this delivery (0 for a resend).
    pub recorded_pairs: u32,
    /// `(lease, seq)` was delivered before; nothing was counted again.
    pub duplicate: bool,
    /// The lease is over (expired, run stopped): play no more of it.
    pub lease_closed: bool,
}

/// A worker asks for work; this is also its heartbeat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseRequest {
    pub worker: WorkerId,
    /// Game pairs the worker can start now (0: heartbeat and delivery only).
    pub free_slots: u32,
    /// Leases still being played: their deadlines are renewed.
    pub held: Vec<LeaseId>,
    /// Batches riding along, each handled as if sent by `Submit`.
    pub finished: Vec<BatchResult>,
}

/// New work, or when to ask again.
#[derive(Clone, Debug, PartialEq)]
pub enum LeaseGrant {
    Lease(Lease),
    NoWork { retry_after_ms: u64 },
}

/// The coordinator's answer to a [`LeaseRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct LeaseReply {
    /// One per delivered batch, in order.
    pub acks: Vec<BatchAck>,
    /// Those of the held leases that are over.
    pub closed: Vec<LeaseId>,
    pub grant: LeaseGrant,
}

/// Results of one lease sent on their own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubmitRequest {
    pub worker: WorkerId,
    pub batch: BatchResult,
}
