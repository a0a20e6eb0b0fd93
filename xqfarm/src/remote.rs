//! A user-side connection to a coordinator (run, variant, openings commands and `sprt`).

use std::path::Path;

use anyhow::{Context, Result};
use proto::auth::BearerToken;
use proto::pb::farm_client::FarmClient;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

pub type Client = FarmClient<InterceptedService<Channel, BearerToken>>;

/// The token from the flag or `XQFARM_TOKEN`.
pub fn token(flag: Option<String>) -> Result<String> {
    flag.or_else(|| std::env::var("XQFARM_TOKEN").ok())
        .filter(|t| !t.is_empty())
        .context("no token: pass --token or set XQFARM_TOKEN")
}

/// A plaintext connection (the embedded coordinator on loopback).
pub async fn connect(url: &str, token: &str) -> Result<Client> {
    connect_with(url, token, None).await
}

/// A connection to `url`: `https://` with the farm's CA certificate, or `http://` without.
/// A TLS mismatch fails at once with what to fix (see `proto::endpoint`).
pub async fn connect_with(url: &str, token: &str, ca_cert: Option<&Path>) -> Result<Client> {
    let token = BearerToken::new(token).context("the token cannot be sent as gRPC metadata")?;
    let channel = proto::endpoint::endpoint(url, ca_cert)?.connect().await?;
    Ok(FarmClient::with_interceptor(channel, token))
}

/// A gRPC status as an error that says what failed.
pub fn status(what: &str) -> impl FnOnce(tonic::Status) -> anyhow::Error + '_ {
    move |s| anyhow::anyhow!("{what}: {:?}: {}", s.code(), s.message())
}
