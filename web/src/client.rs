//! A client of the farm's JSON API (`/api/...`) for commands that need what gRPC does not
//! carry: a run's games one by one (`xqfarm sprt` counts each engine's failures from them) and
//! a run's PGN. Plain HTTP on the farm's port (the embedded farm's, or a remote `http://` one),
//! with the bearer token.

use engine::notation::Notation;
use proto::domain::{GameOutcome, RunId, Termination};
use serde_json::Value;

use crate::bench::http;
use crate::{Error, Result};

/// The most games a page of `/api/runs/{id}/games` holds.
pub const GAMES_PAGE: u64 = crate::api::MAX_PAGE;

/// A game of a run as the games page lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunGame {
    pub id: u64,
    /// The players' variant names.
    pub red: String,
    pub black: String,
    pub outcome: GameOutcome,
    pub reason: Termination,
    pub plies: u32,
}

/// The JSON API of one coordinator.
#[derive(Clone, Debug)]
pub struct ApiClient {
    addr: String,
    token: String,
}

impl ApiClient {
    /// The API of the coordinator at `url`; `None` for an `https://` one (this client speaks
    /// plain HTTP only).
    pub fn of(url: &str, token: &str) -> Option<ApiClient> {
        let addr = url.strip_prefix("http://")?.trim_end_matches('/');
        Some(ApiClient { addr: addr.to_owned(), token: token.to_owned() })
    }

    /// `GET path`'s body; a status other than 2xx is an error with the body's words.
    pub async fn get(&self, path: &str) -> Result<String> {
        let (status, body) = http::get(&self.addr, path, &self.token).await?;
        let text = String::from_utf8_lossy(&body).into_owned();
        if !status.is_success() {
            return Err(Error::Http { path: path.to_owned(), reason: format!("{status}: {text}") });
        }
        Ok(text)
    }

    /// The run's games from the `offset`-th on (in recording order), at most [`GAMES_PAGE`].
    pub async fn run_games(&self, run: RunId, offset: u64) -> Result<Vec<RunGame>> {
        let path = format!("/api/runs/{run}/games?offset={offset}&limit={GAMES_PAGE}");
        let text = self.get(&path).await?;
        let bad = |reason: String| Error::Http { path: path.clone(), reason };
        let page: Value = serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
        let games = page["games"].as_array().ok_or_else(|| bad("no `games` list".into()))?;
        games
            .iter()
            .map(|g| {
                let text = |key: &str| g[key].as_str().ok_or_else(|| bad(format!("a game without `{key}`")));
                let number = |key: &str| g[key].as_u64().ok_or_else(|| bad(format!("a game without `{key}`")));
                Ok(RunGame {
                    id: number("id")?,
                    red: text("red")?.to_owned(),
                    black: text("black")?.to_owned(),
                    outcome: text("result")?.parse().map_err(|e: proto::Error| bad(e.to_string()))?,
                    reason: text("reason")?.parse().map_err(|e: proto::Error| bad(e.to_string()))?,
                    plies: u32::try_from(number("plies")?).map_err(|e| bad(e.to_string()))?,
                })
            })
            .collect()
    }

    /// The run's games as PGN in `notation` (WXF, Chinese or ICCS).
    pub async fn run_pgn(&self, run: RunId, notation: Notation) -> Result<String> {
        self.get(&format!("/api/runs/{run}/pgn?notation={}", notation.name())).await
    }
}
