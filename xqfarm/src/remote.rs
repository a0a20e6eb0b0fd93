//! A user-side connection to a coordinator: the token from the flag or the environment, and
//! the typed farm client (`proto::client`) with a command's deadlines and retries.

use std::path::Path;

use anyhow::{Context, Result};
use proto::client::{ClientConfig, FarmClient};

/// The token from the flag or `XQFARM_TOKEN`.
pub fn token(flag: Option<String>) -> Result<String> {
    flag.or_else(|| std::env::var("XQFARM_TOKEN").ok())
        .filter(|t| !t.is_empty())
        .context("no token: pass --token or set XQFARM_TOKEN")
}

/// A command's connection to `url`: `https://` with the farm's CA certificate, or `http://`
/// without. A TLS mismatch fails at once with what to fix (see `proto::endpoint`); a
/// coordinator that is down is retried for a few seconds.
pub async fn connect(url: &str, token: &str, ca_cert: Option<&Path>) -> Result<FarmClient> {
    Ok(FarmClient::connect(url, ca_cert, token, ClientConfig::default()).await?)
}
