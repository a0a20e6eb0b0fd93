//! The xqfarm protocol (`xqfarm.v1`): domain types shared by coordinator and worker, the
//! generated gRPC code, and the conversions between them.
//!
//! ```
//! use proto::domain::{RunFilter, RunStatus};
//! use proto::pb;
//!
//! // Client side: a domain value becomes a request stamped with PROTOCOL_VERSION ...
//! let request = pb::ListRunsRequest::from(RunFilter { active_only: true, limit: 10 });
//! assert_eq!(request.protocol_version, proto::PROTOCOL_VERSION);
//!
//! // ... server side: the request becomes the domain value again, version and fields checked.
//! let filter = RunFilter::try_from(request)?;
//! assert!(filter.active_only);
//!
//! // Responses convert the same way; a malformed one is an error naming the field.
//! let runs: Vec<RunStatus> = pb::ListRunsResponse::from(Vec::new()).try_into()?;
//! assert!(runs.is_empty());
//! # Ok::<(), proto::Error>(())
//! ```
//!
//! The gRPC client is [`pb::farm_client::FarmClient`], the server trait
//! [`pb::farm_server::Farm`] wrapped by [`pb::farm_server::FarmServer`]; the farm token
//! travels as metadata (see [`auth`], which also holds the roles); clients dial through
//! [`endpoint`], with TLS files loaded by [`tls`]. Programs do not use the generated client
//! directly: [`client::FarmClient`] is the typed client (domain types in and out, a deadline
//! on every call, retries with backoff) that the worker and every command use. [`columns`]
//! names the Parquet export's tables and columns for its writer (the coordinator) and its
//! readers (analysis).

pub mod auth;
pub mod client;
pub mod columns;
pub mod convert;
pub mod domain;
pub mod endpoint;
mod error;
pub mod tls;

pub use convert::check_version;
pub use error::{Error, Result};

/// The protocol version this build speaks; every request carries it in `protocol_version`.
/// Bump it on any change an older peer would misread. Version 2: game reports carry per-move
/// scores and times and the forfeiting attempt, which the coordinator's referee requires.
pub const PROTOCOL_VERSION: u32 = 2;

/// The generated protobuf messages and the tonic client and server of `xqfarm.v1`.
#[allow(clippy::all, clippy::pedantic, missing_docs, missing_debug_implementations)]
pub mod pb {
    tonic::include_proto!("xqfarm.v1");
}
