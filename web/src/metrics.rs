//! `/metrics`: the coordinator's Prometheus metrics ([`coordinator::metrics`]), read from the
//! farm at each scrape. On the farm's port the route needs a token holding the read-only role
//! (every role reads; `serve --public` opens it like the pages); `serve --metrics-listen ADDR`
//! also serves it alone, without a token, on an address of its own, for a scraper on a network
//! the operator trusts.

use std::sync::Arc;

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use coordinator::farm::Farm;

use crate::api::blocking;
use crate::auth::Reader;
use crate::error::ApiResult;
use crate::state::AppState;

/// The exposition format's content type.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// `/metrics` on the farm's port, behind the read-only role.
pub fn routes() -> axum::Router<AppState> {
    axum::Router::new().route("/metrics", get(guarded))
}

/// `/metrics` alone, open, for `serve --metrics-listen`.
pub fn open_router(farm: Arc<Farm>) -> axum::Router {
    axum::Router::new().route("/metrics", get(open)).with_state(farm)
}

async fn guarded(_: Reader, State(state): State<AppState>) -> ApiResult<Response> {
    exposition(Arc::clone(&state.farm)).await
}

async fn open(State(farm): State<Arc<Farm>>) -> ApiResult<Response> {
    exposition(farm).await
}

async fn exposition(farm: Arc<Farm>) -> ApiResult<Response> {
    let text = blocking(move || Ok(farm.metrics_text()?)).await?;
    Ok(([(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response())
}

/// Serves [`open_router`] on `listener` until `shutdown` completes.
pub async fn serve_open(
    listener: tokio::net::TcpListener,
    farm: Arc<Farm>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, open_router(farm)).with_graceful_shutdown(shutdown).await
}
