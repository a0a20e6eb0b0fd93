//! Counts every gRPC call in front of the whole service (role guard included, so refused calls
//! are counted too): its method, its status code and the time until its response headers.
//! A unary call's status is in those headers when it failed (gRPC's trailers-only response)
//! and absent when it succeeded; a stream (WatchRun) is counted when it opens.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use tonic::body::Body;
use tonic::codegen::http::{Request, Response};
use tonic::codegen::{BoxFuture, Service};
use tonic::server::NamedService;

use crate::metrics::Metrics;

/// Wraps a gRPC service so each call is counted in `metrics`.
#[derive(Clone, Debug)]
pub struct Observed<S> {
    inner: S,
    metrics: Arc<Metrics>,
}

impl<S> Observed<S> {
    pub fn new(inner: S, metrics: Arc<Metrics>) -> Observed<S> {
        Observed { inner, metrics }
    }
}

impl<S: NamedService> NamedService for Observed<S> {
    const NAME: &'static str = S::NAME;
}

impl<S, B> Service<Request<B>> for Observed<S>
where
    S: Service<Request<B>, Response = Response<Body>, Error = Infallible>,
    S::Future: Send + 'static,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Response<Body>, Infallible>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let method = method_name(request.uri().path()).to_owned();
        let metrics = Arc::clone(&self.metrics);
        let start = Instant::now();
        let call = self.inner.call(request);
        Box::pin(async move {
            let response = call.await?;
            let code = response.headers().get("grpc-status").and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok());
            metrics.rpc.observe(&method, code_name(code.unwrap_or(0)), start.elapsed());
            Ok(response)
        })
    }
}

/// The method of a gRPC path (`/xqfarm.v1.Farm/Lease` -> `Lease`).
pub fn method_name(path: &str) -> &str {
    path.rsplit('/').next().filter(|m| !m.is_empty()).unwrap_or("unknown")
}

/// gRPC's name of a status code, as other servers label them (`OK`, `NotFound`, ...).
pub fn code_name(code: i32) -> &'static str {
    match code {
        0 => "OK",
        1 => "Canceled",
        2 => "Unknown",
        3 => "InvalidArgument",
        4 => "DeadlineExceeded",
        5 => "NotFound",
        6 => "AlreadyExists",
        7 => "PermissionDenied",
        8 => "ResourceExhausted",
        9 => "FailedPrecondition",
        10 => "Aborted",
        11 => "OutOfRange",
        12 => "Unimplemented",
        13 => "Internal",
        14 => "Unavailable",
        15 => "DataLoss",
        16 => "Unauthenticated",
        _ => "Unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_and_codes_are_named_as_grpc_names_them() {
        assert_eq!(method_name("/xqfarm.v1.Farm/Lease"), "Lease");
        assert_eq!(method_name("/"), "unknown");
        for code in
            [tonic::Code::Ok, tonic::Code::NotFound, tonic::Code::Unauthenticated, tonic::Code::FailedPrecondition]
        {
            let name = code_name(code as i32);
            let expected = match code {
                tonic::Code::Ok => "OK".to_owned(),
                other => format!("{other:?}"),
            };
            assert_eq!(name, expected);
        }
        assert_eq!(code_name(99), "Unknown");
    }
}
