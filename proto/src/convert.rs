//! The one place where domain values meet the wire.
//!
//! Every domain type `T` has `From<T> for pb::T` (sending cannot fail) and
//! `TryFrom<pb::T> for T` (receiving checks everything: a missing required field, an unknown or
//! unspecified enum, a zero where a positive number is needed, a malformed list is an [`Error`]
//! naming the field path, never a panic).
//!
//! Requests convert from the domain value they carry, which stamps [`PROTOCOL_VERSION`] on
//! them, and back to it after checking the version; a handler therefore needs one line:
//!
//! ```
//! use proto::{domain::RunSpec, pb};
//!
//! fn create_run(request: pb::CreateRunRequest) -> Result<RunSpec, tonic::Status> {
//!     Ok(RunSpec::try_from(request)?) // FAILED_PRECONDITION or INVALID_ARGUMENT
//! }
//! # let unset = pb::CreateRunRequest::default();
//! # assert_eq!(create_run(unset).unwrap_err().code(), tonic::Code::FailedPrecondition);
//! ```
//!
//! | RPC | request carries | response carries |
//! |---|---|---|
//! | Register | [`WorkerInfo`](crate::domain::WorkerInfo) | [`WorkerId`](crate::domain::WorkerId) |
//! | Lease | [`LeaseRequest`](crate::domain::LeaseRequest) | [`LeaseReply`](crate::domain::LeaseReply) |
//! | Submit | [`SubmitRequest`](crate::domain::SubmitRequest) | [`BatchAck`](crate::domain::BatchAck) |
//! | CreateRun | [`RunSpec`](crate::domain::RunSpec) | [`Run`](crate::domain::Run) |
//! | ListRuns | [`RunFilter`](crate::domain::RunFilter) | `Vec<`[`RunStatus`](crate::domain::RunStatus)`>` |
//! | GetRun, StopRun, WatchRun | [`RunId`](crate::domain::RunId) | [`RunStatus`](crate::domain::RunStatus) (streamed by WatchRun) |
//! | AddVariant | [`VariantSpec`](crate::domain::VariantSpec) | [`Variant`](crate::domain::Variant) |
//! | AddOpenings | [`OpeningSuiteSpec`](crate::domain::OpeningSuiteSpec) | [`OpeningSuiteSummary`](crate::domain::OpeningSuiteSummary) |
//! | AddNetwork, FetchNetwork | a network file's bytes, in chunks ([`network_chunks`], [`NetworkAssembly`]) | its SHA-256; the bytes |

mod network;
mod rpc;

pub use network::{NetworkAssembly, network_chunks};
mod run;
mod spsa;
mod variant;
mod work;

#[cfg(test)]
mod tests;

use crate::PROTOCOL_VERSION;
use crate::error::{Error, Result};

/// `Ok` when a request's `protocol_version` is ours; FAILED_PRECONDITION naming both versions
/// otherwise (0 means the client did not set it).
pub fn check_version(version: u32) -> Result<(), tonic::Status> {
    same_version(version).map_err(tonic::Status::from)
}

fn same_version(version: u32) -> Result<()> {
    if version == PROTOCOL_VERSION {
        Ok(())
    } else {
        Err(Error::VersionMismatch { theirs: version, ours: PROTOCOL_VERSION })
    }
}

/// A required sub-message, converted, its errors placed under `field`.
fn required<W, D>(value: Option<W>, field: &str) -> Result<D>
where
    D: TryFrom<W, Error = Error>,
{
    let value = value.ok_or_else(|| Error::missing(field))?;
    D::try_from(value).map_err(|e| e.within(field))
}

/// Each element converted, errors placed under `field[i]`.
fn each<W, D>(values: Vec<W>, field: &str) -> Result<Vec<D>>
where
    D: TryFrom<W, Error = Error>,
{
    values
        .into_iter()
        .enumerate()
        .map(|(i, value)| D::try_from(value).map_err(|e| e.within(&format!("{field}[{i}]"))))
        .collect()
}

/// An enum field: an unknown number is invalid; the domain conversion rejects `UNSPECIFIED`.
fn enumeration<W, D>(raw: i32, field: &str) -> Result<D>
where
    W: TryFrom<i32>,
    D: TryFrom<W, Error = Error>,
{
    let value = W::try_from(raw).map_err(|_| Error::invalid(field, format!("unknown enum value {raw}")))?;
    D::try_from(value).map_err(|e| e.within(field))
}

fn non_empty(value: String, field: &str) -> Result<String> {
    if value.is_empty() { Err(Error::invalid(field, "must not be empty")) } else { Ok(value) }
}

/// Exactly five pentanomial counts.
fn pentanomial(counts: Vec<u64>, field: &str) -> Result<[u64; 5]> {
    let n = counts.len();
    <[u64; 5]>::try_from(counts).map_err(|_| Error::invalid(field, format!("needs exactly 5 counts, got {n}")))
}
