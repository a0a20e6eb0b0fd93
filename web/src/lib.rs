//! The farm's web application, served by `xqfarm serve` on the gRPC port: the runs dashboard,
//! a run's page, the workers, the game viewer and the human-machine play page (seed 004: man vs
//! man, man vs engine, undo/redo, save/load), over one JSON API under `/api/` with server-sent
//! events for live numbers. The pages are hand-written ES modules embedded in the binary.
//!
//! Rules never live in JavaScript: legal moves, check and verdicts come from the engine crate.

pub mod api;
pub mod assets;
pub mod auth;
pub mod bench;
pub mod client;
pub mod embedded;
pub mod error;
pub mod events;
pub mod metrics;
pub mod pgn;
pub mod play;
pub mod state;

pub use error::{ApiError, Error, Result};
pub use state::{AppState, WebConfig};

/// The most a request body may be (a PGN, a run spec): larger bodies get 413.
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// Every route of the web application (pages, assets, `/api/`), with its state. Mounted by the
/// coordinator beside gRPC; it sets no fallback of its own (unknown paths get the server's).
pub fn router(state: AppState) -> axum::Router {
    axum::Router::new()
        .merge(assets::routes())
        .merge(api::routes())
        .merge(play::routes())
        .merge(metrics::routes())
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
}
