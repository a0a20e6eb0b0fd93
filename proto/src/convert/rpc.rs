//! Request and response envelopes. Converting a domain value into a request stamps
//! [`PROTOCOL_VERSION`] on it; converting a request back checks the version first.

use super::{each, required, same_version};
use crate::PROTOCOL_VERSION;
use crate::domain::{
    BatchAck, LeaseId, LeaseRequest, OpeningSuiteSpec, OpeningSuiteSummary, Run, RunFilter, RunId, RunSpec, RunStatus,
    SubmitRequest, Variant, VariantSpec, WorkerId, WorkerInfo,
};
use crate::error::{Error, Result};
use crate::pb;

/// A request whose payload is one required message field.
macro_rules! message_request {
    ($request:ident { $field:ident: $domain:ty }) => {
        impl From<$domain> for pb::$request {
            // Requests with optional fields besides the payload leave them at their default.
            #[allow(clippy::needless_update)]
            fn from(value: $domain) -> pb::$request {
                pb::$request { protocol_version: PROTOCOL_VERSION, $field: Some(value.into()), ..Default::default() }
            }
        }

        impl TryFrom<pb::$request> for $domain {
            type Error = Error;
            fn try_from(request: pb::$request) -> Result<$domain> {
                same_version(request.protocol_version)?;
                required(request.$field, stringify!($field))
            }
        }
    };
}

/// A request naming one run.
macro_rules! run_request {
    ($request:ident) => {
        impl From<RunId> for pb::$request {
            fn from(run: RunId) -> pb::$request {
                pb::$request { protocol_version: PROTOCOL_VERSION, run_id: run.get() }
            }
        }

        impl TryFrom<pb::$request> for RunId {
            type Error = Error;
            fn try_from(request: pb::$request) -> Result<RunId> {
                same_version(request.protocol_version)?;
                Ok(RunId::new(request.run_id))
            }
        }
    };
}

/// A response whose payload is one required message field.
macro_rules! message_response {
    ($response:ident { $field:ident: $domain:ty }) => {
        impl From<$domain> for pb::$response {
            fn from(value: $domain) -> pb::$response {
                pb::$response { $field: Some(value.into()) }
            }
        }

        impl TryFrom<pb::$response> for $domain {
            type Error = Error;
            fn try_from(response: pb::$response) -> Result<$domain> {
                required(response.$field, stringify!($field))
            }
        }
    };
}

message_request!(RegisterRequest { worker: WorkerInfo });
message_request!(CreateRunRequest { spec: RunSpec });
message_request!(AddVariantRequest { spec: VariantSpec });
run_request!(GetRunRequest);
run_request!(StopRunRequest);
run_request!(WatchRunRequest);
message_response!(SubmitResponse { ack: BatchAck });
message_response!(CreateRunResponse { run: Run });
message_response!(GetRunResponse { status: RunStatus });
message_response!(StopRunResponse { status: RunStatus });
message_response!(WatchRunResponse { status: RunStatus });
message_response!(AddVariantResponse { variant: Variant });
message_response!(AddOpeningsResponse { suite: OpeningSuiteSummary });

impl From<LeaseRequest> for pb::LeaseRequest {
    fn from(request: LeaseRequest) -> pb::LeaseRequest {
        pb::LeaseRequest {
            protocol_version: PROTOCOL_VERSION,
            worker_id: request.worker.get(),
            free_slots: request.free_slots,
            held_lease_ids: request.held.iter().map(|l| l.get()).collect(),
            finished: request.finished.into_iter().map(Into::into).collect(),
        }
    }
}

impl TryFrom<pb::LeaseRequest> for LeaseRequest {
    type Error = Error;
    fn try_from(request: pb::LeaseRequest) -> Result<LeaseRequest> {
        same_version(request.protocol_version)?;
        Ok(LeaseRequest {
            worker: WorkerId::new(request.worker_id),
            free_slots: request.free_slots,
            held: request.held_lease_ids.into_iter().map(LeaseId::new).collect(),
            finished: each(request.finished, "finished")?,
        })
    }
}

impl From<SubmitRequest> for pb::SubmitRequest {
    fn from(request: SubmitRequest) -> pb::SubmitRequest {
        pb::SubmitRequest {
            protocol_version: PROTOCOL_VERSION,
            worker_id: request.worker.get(),
            batch: Some(request.batch.into()),
        }
    }
}

impl TryFrom<pb::SubmitRequest> for SubmitRequest {
    type Error = Error;
    fn try_from(request: pb::SubmitRequest) -> Result<SubmitRequest> {
        same_version(request.protocol_version)?;
        Ok(SubmitRequest { worker: WorkerId::new(request.worker_id), batch: required(request.batch, "batch")? })
    }
}

impl From<RunFilter> for pb::ListRunsRequest {
    fn from(filter: RunFilter) -> pb::ListRunsRequest {
        pb::ListRunsRequest { protocol_version: PROTOCOL_VERSION, active_only: filter.active_only, limit: filter.limit }
    }
}

impl TryFrom<pb::ListRunsRequest> for RunFilter {
    type Error = Error;
    fn try_from(request: pb::ListRunsRequest) -> Result<RunFilter> {
        same_version(request.protocol_version)?;
        Ok(RunFilter { active_only: request.active_only, limit: request.limit })
    }
}

impl From<OpeningSuiteSpec> for pb::AddOpeningsRequest {
    fn from(suite: OpeningSuiteSpec) -> pb::AddOpeningsRequest {
        pb::AddOpeningsRequest { protocol_version: PROTOCOL_VERSION, name: suite.name, openings: suite.openings }
    }
}

impl TryFrom<pb::AddOpeningsRequest> for OpeningSuiteSpec {
    type Error = Error;
    fn try_from(request: pb::AddOpeningsRequest) -> Result<OpeningSuiteSpec> {
        same_version(request.protocol_version)?;
        let suite = OpeningSuiteSpec { name: request.name, openings: request.openings };
        suite.validate()?;
        Ok(suite)
    }
}

impl From<WorkerId> for pb::RegisterResponse {
    fn from(worker: WorkerId) -> pb::RegisterResponse {
        pb::RegisterResponse { worker_id: worker.get() }
    }
}

impl From<pb::RegisterResponse> for WorkerId {
    fn from(response: pb::RegisterResponse) -> WorkerId {
        WorkerId::new(response.worker_id)
    }
}

impl From<Vec<RunStatus>> for pb::ListRunsResponse {
    fn from(runs: Vec<RunStatus>) -> pb::ListRunsResponse {
        pb::ListRunsResponse { runs: runs.into_iter().map(Into::into).collect() }
    }
}

impl TryFrom<pb::ListRunsResponse> for Vec<RunStatus> {
    type Error = Error;
    fn try_from(response: pb::ListRunsResponse) -> Result<Vec<RunStatus>> {
        each(response.runs, "runs")
    }
}
