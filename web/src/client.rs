//! A client of the farm's JSON API (`/api/...`) for commands that need what gRPC does not
//! carry: a run's games one by one (`xqfarm sprt` counts each engine's failures from them) and
//! a run's PGN. HTTP/1.1 on the farm's port (the embedded farm's, or a remote one: `https://`
//! with the farm's CA, as every command's gRPC client), with the bearer token.

use std::path::Path;

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
    tls: Option<http::Tls>,
}

impl ApiClient {
    /// The API of the coordinator at `url`: `http://HOST:PORT`, or `https://HOST:PORT` with
    /// `ca_cert`, the farm's CA (the certificate must name HOST). A scheme and CA that do not
    /// go together are an error that says what to fix, as for the gRPC client.
    pub fn of(url: &str, token: &str, ca_cert: Option<&Path>) -> Result<ApiClient> {
        let bad = |reason: String| Error::Http { path: url.to_owned(), reason };
        let (addr, tls) = match (url.split_once("://"), ca_cert) {
            (Some(("http", addr)), None) => (addr, None),
            (Some(("https", addr)), Some(ca)) => {
                let addr = addr.trim_end_matches('/');
                let config = proto::tls::rustls_client(ca)?;
                (addr, Some(http::Tls::new(config, host_of(addr))?))
            }
            (Some(("https", _)), None) => return Err(bad("an https:// coordinator needs --ca-cert".into())),
            (Some(("http", _)), Some(ca)) => {
                return Err(bad(format!("--ca-cert {} is for an https:// coordinator", ca.display())));
            }
            _ => return Err(bad("not an http:// or https:// URL".into())),
        };
        Ok(ApiClient { addr: addr.trim_end_matches('/').to_owned(), token: token.to_owned(), tls })
    }

    /// `GET path`'s body; a status other than 2xx is an error with the body's words.
    pub async fn get(&self, path: &str) -> Result<String> {
        let (status, body) = http::get_with(&self.addr, path, &self.token, self.tls.as_ref()).await?;
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

/// The host of `HOST:PORT` (`[::1]:PORT` gives `::1`): the name the server's certificate is
/// checked against.
fn host_of(addr: &str) -> &str {
    if let Some(rest) = addr.strip_prefix('[') {
        return rest.split_once(']').map_or(rest, |(host, _)| host);
    }
    addr.rsplit_once(':').map_or(addr, |(host, _)| host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_is_the_address_without_its_port() {
        assert_eq!(host_of("farm.example:7878"), "farm.example");
        assert_eq!(host_of("127.0.0.1:7878"), "127.0.0.1");
        assert_eq!(host_of("[::1]:7878"), "::1");
        assert_eq!(host_of("farm"), "farm");
    }

    #[test]
    fn a_scheme_and_ca_that_do_not_go_together_are_refused_saying_what_to_fix() {
        let ca = Path::new("ca.pem");
        let says = |url: &str, ca: Option<&Path>| ApiClient::of(url, "t", ca).expect_err(url).to_string();
        assert!(says("https://farm:7878", None).contains("--ca-cert"));
        assert!(says("http://farm:7878", Some(ca)).contains("https://"));
        assert!(says("farm:7878", None).contains("http://"));
        // A CA file that cannot be read is named.
        assert!(says("https://farm:7878", Some(Path::new("/nonexistent/ca.pem"))).contains("/nonexistent/ca.pem"));
        let plain = ApiClient::of("http://127.0.0.1:7878/", "t", None).expect("plain http");
        assert_eq!((plain.addr.as_str(), plain.tls.is_none()), ("127.0.0.1:7878", true));
    }
}
