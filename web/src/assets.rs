//! The pages' files, embedded in the binary: the one HTML shell every page path answers with,
//! and the stylesheet and ES modules under `/assets/`.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::state::AppState;

/// The page paths: each answers with the shell, whose modules route by `location.pathname`.
pub const PAGES: [&str; 6] = ["/", "/runs/{id}", "/workers", "/games/{id}", "/play", "/create"];
// `/login` is routed by `auth` (it also takes the signed-in URL) and answers with the shell.

const INDEX: &str = include_str!("../assets/index.html");

/// Every embedded asset: its path under `/assets/`, its content type and its bytes.
const ASSETS: &[(&str, &str, &[u8])] = &[];

pub fn routes() -> axum::Router<AppState> {
    let mut router = axum::Router::new();
    for page in PAGES {
        router = router.route(page, get(shell));
    }
    router.route("/assets/{*path}", get(asset))
}

pub async fn shell() -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8"), (header::CACHE_CONTROL, "no-cache")], INDEX).into_response()
}

async fn asset(Path(path): Path<String>) -> Response {
    match ASSETS.iter().find(|(p, _, _)| *p == path) {
        Some((_, kind, bytes)) => {
            ([(header::CONTENT_TYPE, *kind), (header::CACHE_CONTROL, "no-cache")], *bytes).into_response()
        }
        None => (StatusCode::NOT_FOUND, format!("no asset {path}")).into_response(),
    }
}
