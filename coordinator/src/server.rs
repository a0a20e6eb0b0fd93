//! Serving the farm: a bound listener in, a future that ends at shutdown out. Background
//! tasks expire overdue leases and export new games to Parquet ([`crate::exporter`]).

use std::sync::Arc;
use std::time::Duration;

use proto::auth::{Access, RoleGuard};
use tokio::net::{TcpListener, TcpStream};
use tokio_stream::StreamExt as _;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::transport::ServerTlsConfig;

use crate::farm::Farm;
use crate::grpc::FarmService;
use crate::rpc_metrics::Observed;

/// Who may call, and over what: the tokens with their roles, and TLS (`None`: plaintext).
#[derive(Debug)]
pub struct Security {
    pub access: Access,
    pub tls: Option<ServerTlsConfig>,
}

impl Security {
    /// One token holding every role, plaintext: today's `--token` and the embedded farm.
    pub fn single_token(token: &str) -> Security {
        Security { access: Access::single_token(token), tls: None }
    }
}

/// Serves `farm` on `listener` until `shutdown` completes, admitting the one `token` with
/// every role over plaintext (see [`serve_with`] for roles and TLS). Tests bind
/// `127.0.0.1:0` first and pass the listener, so the port is never raced.
pub async fn serve(
    listener: TcpListener,
    farm: Arc<Farm>,
    token: &str,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    serve_with(listener, farm, Security::single_token(token), shutdown).await
}

/// Serves `farm` on `listener` until `shutdown` completes. Every call passes the role guard
/// first ([`proto::auth::RoleGuard`]: the one place roles are enforced); with `tls`, every
/// connection is TLS.
pub async fn serve_with(
    listener: TcpListener,
    farm: Arc<Farm>,
    security: Security,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    serve_routes(listener, farm, security, axum::Router::new(), shutdown).await
}

/// [`serve_with`], with `web` (the web application's routes, which do their own access checks)
/// served on the same port as gRPC: HTTP/1.1 is accepted for browsers, and gRPC paths go to the
/// role-guarded service. A path neither knows gets 404 (gRPC callers: UNIMPLEMENTED).
pub async fn serve_routes(
    listener: TcpListener,
    farm: Arc<Farm>,
    security: Security,
    web: axum::Router,
    shutdown: impl std::future::Future<Output = ()> + Send,
) -> Result<(), tonic::transport::Error> {
    let mut builder = tonic::transport::Server::builder().accept_http1(true);
    if let Some(tls) = security.tls {
        builder = builder.tls_config(tls)?;
    }
    let expiry_farm = Arc::clone(&farm);
    let expiry = tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(2));
        loop {
            tick.tick().await;
            let farm = Arc::clone(&expiry_farm);
            match tokio::task::spawn_blocking(move || farm.expire_leases()).await {
                Ok(Err(e)) => tracing::warn!(error = %e, "lease expiry failed"),
                Err(e) => tracing::warn!(error = %e, "lease expiry task failed"),
                Ok(Ok(_)) => {}
            }
        }
    });
    let exporter = crate::exporter::spawn_export_tick(Arc::clone(farm.exporter()));
    let guarded = RoleGuard::new(FarmService::new(Arc::clone(&farm)).into_server(), Arc::new(security.access));
    let service = Observed::new(guarded, Arc::clone(farm.metrics()));
    let routes = tonic::service::Routes::from(web.fallback(unknown_path)).add_service(service);
    let result = builder
        .add_routes(routes)
        .serve_with_incoming_shutdown(TcpListenerStream::new(listener).map(no_delay), shutdown)
        .await;
    expiry.abort();
    exporter.abort();
    // Whatever was recorded reaches Parquet before the server is gone.
    if let Err(e) = tokio::task::spawn_blocking(move || farm.export_all())
        .await
        .map_err(|e| e.to_string())
        .and_then(|r| r.map_err(|e| e.to_string()))
    {
        tracing::warn!(error = %e, "final Parquet export failed");
    }
    result
}

/// A path no route knows: 404 for browsers and scripts, UNIMPLEMENTED for gRPC callers.
async fn unknown_path(request: axum::extract::Request) -> axum::response::Response {
    use axum::response::IntoResponse as _;
    let grpc = request
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/grpc"));
    if grpc {
        let (parts, ()) =
            tonic::Status::unimplemented(format!("no method {}", request.uri().path())).into_http::<()>().into_parts();
        axum::response::Response::from_parts(parts, axum::body::Body::empty())
    } else {
        (axum::http::StatusCode::NOT_FOUND, format!("no page or API route {}", request.uri().path())).into_response()
    }
}

/// Turns Nagle's algorithm off on an accepted connection, as tonic does for listeners it binds
/// itself (it leaves given connections alone): a small gRPC reply is sent at once instead of
/// waiting for the client's delayed ACK (tens of milliseconds per call).
fn no_delay(conn: std::io::Result<TcpStream>) -> std::io::Result<TcpStream> {
    if let Ok(stream) = &conn
        && let Err(e) = stream.set_nodelay(true)
    {
        tracing::warn!(error = %e, "could not turn off Nagle's algorithm");
    }
    conn
}
