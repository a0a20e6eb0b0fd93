//! The farm's JSON API under `/api/` (the README lists every route). Every read needs the
//! read-only role ([`crate::auth::Reader`]), every write the user role and the CSRF checks
//! ([`crate::auth::Writer`]). Storage calls are blocking (SQLite): they run on Tokio's blocking
//! pool, never on the threads that serve gRPC.

pub mod games;
pub mod histogram;
pub mod rows;
pub mod runs;
pub mod tournament;
pub mod workers;

use serde::Deserialize;

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// The most items one page of a list may hold.
pub const MAX_PAGE: u64 = 500;

pub fn routes() -> axum::Router<AppState> {
    axum::Router::new()
        .merge(crate::auth::routes())
        .merge(runs::routes())
        .merge(games::routes())
        .merge(workers::routes())
        .route("/api/events", axum::routing::get(crate::events::stream))
}

/// Runs `f` (storage reads or writes) on the blocking pool.
pub async fn blocking<T: Send + 'static>(f: impl FnOnce() -> ApiResult<T> + Send + 'static) -> ApiResult<T> {
    tokio::task::spawn_blocking(f).await.map_err(|e| ApiError::internal(format!("storage task failed: {e}")))?
}

/// `?offset=&limit=` of a paged list.
#[derive(Debug, Deserialize)]
pub struct Paging {
    #[serde(default)]
    pub offset: u64,
    #[serde(default = "default_limit")]
    pub limit: u64,
}

fn default_limit() -> u64 {
    50
}

impl Paging {
    /// The page, with `limit` in 1..=[`MAX_PAGE`] (else 400 naming it).
    pub fn checked(&self) -> ApiResult<(u64, usize)> {
        if self.limit == 0 || self.limit > MAX_PAGE {
            return Err(ApiError::bad_request(format!("limit={} must be 1..={MAX_PAGE}", self.limit)));
        }
        Ok((self.offset, self.limit as usize))
    }
}

/// `?notation=` of a PGN download.
#[derive(Debug, Deserialize)]
pub struct NotationQuery {
    pub notation: Option<String>,
}

impl NotationQuery {
    /// WXF, Chinese or ICCS (default WXF); anything else is 400 naming it.
    pub fn checked(&self) -> ApiResult<engine::notation::Notation> {
        use engine::notation::Notation;
        match self.notation.as_deref().unwrap_or("wxf") {
            "wxf" => Ok(Notation::Wxf),
            "chinese" => Ok(Notation::Chinese),
            "iccs" => Ok(Notation::Iccs),
            other => Err(ApiError::bad_request(format!("notation={other}: use wxf, chinese or iccs"))),
        }
    }
}

/// A path id that must parse as a number (else 400 naming it).
pub fn parse_id<T: std::str::FromStr>(what: &str, text: &str) -> ApiResult<T> {
    text.parse().map_err(|_| ApiError::bad_request(format!("{what} id `{text}` is not a number")))
}
