//! A user-side connection to a coordinator (run, variant, openings commands and `sprt`).

use anyhow::{Context, Result};
use proto::auth::BearerToken;
use proto::pb::farm_client::FarmClient;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Channel, Endpoint};

pub type Client = FarmClient<InterceptedService<Channel, BearerToken>>;

/// The token from the flag or `XQFARM_TOKEN`.
pub fn token(flag: Option<String>) -> Result<String> {
    flag.or_else(|| std::env::var("XQFARM_TOKEN").ok())
        .filter(|t| !t.is_empty())
        .context("no token: pass --token or set XQFARM_TOKEN")
}

pub async fn connect(url: &str, token: &str) -> Result<Client> {
    let channel = Endpoint::from_shared(url.to_owned())
        .with_context(|| format!("bad coordinator address `{url}`"))?
        .connect()
        .await
        .with_context(|| format!("cannot reach the coordinator at {url}"))?;
    let token = BearerToken::new(token).context("the token cannot be sent as gRPC metadata")?;
    Ok(FarmClient::with_interceptor(channel, token))
}

/// A gRPC status as an error that says what failed.
pub fn status(what: &str) -> impl FnOnce(tonic::Status) -> anyhow::Error + '_ {
    move |s| anyhow::anyhow!("{what}: {:?}: {}", s.code(), s.message())
}
