//! The farm's JSON API under `/api/` (see the README for the list of routes).

use crate::state::AppState;

pub fn routes() -> axum::Router<AppState> {
    axum::Router::new().merge(crate::auth::routes())
}
