//! The one place a server enforces roles: a service in front of the generated
//! `FarmServer` that reads the method from the request path, checks the caller's token
//! against [`Access`], and answers a refusal itself, before any handler runs.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use tonic::body::Body;
use tonic::codegen::http::{Request, Response};
use tonic::codegen::{BoxFuture, Service};
use tonic::server::NamedService;

use super::Access;

/// Wraps a gRPC service so each call is checked against `access` first; a call let through
/// carries a [`super::Caller`] in its extensions.
#[derive(Clone, Debug)]
pub struct RoleGuard<S> {
    inner: S,
    access: Arc<Access>,
}

impl<S> RoleGuard<S> {
    pub fn new(inner: S, access: Arc<Access>) -> RoleGuard<S> {
        RoleGuard { inner, access }
    }
}

impl<S: NamedService> NamedService for RoleGuard<S> {
    const NAME: &'static str = S::NAME;
}

impl<S, B> Service<Request<B>> for RoleGuard<S>
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

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        match self.access.check(request.headers(), request.uri().path()) {
            Ok(caller) => {
                request.extensions_mut().insert(caller);
                Box::pin(self.inner.call(request))
            }
            Err(status) => {
                tracing::debug!(path = request.uri().path(), code = ?status.code(), reason = status.message(), "call refused");
                Box::pin(async move { Ok(status.into_http()) })
            }
        }
    }
}
