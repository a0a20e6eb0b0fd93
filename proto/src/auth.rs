//! The farm token travels as gRPC metadata, `authorization: Bearer <token>`, on every call;
//! it is never part of a message, so it stays out of logs of messages and out of Parquet.
//!
//! ```
//! use proto::auth::{BearerToken, authorize};
//! use tonic::service::Interceptor;
//!
//! // Client: `FarmClient::with_interceptor(channel, BearerToken::new("s3cret")?)`.
//! let mut token = BearerToken::new("s3cret")?;
//! let request = token.call(tonic::Request::new(())).expect("the interceptor never fails");
//!
//! // Server: `FarmServer::with_interceptor(farm, move |r| { authorize(r.metadata(), &t)?; Ok(r) })`.
//! assert!(authorize(request.metadata(), "s3cret").is_ok());
//! let refused = authorize(request.metadata(), "other").unwrap_err();
//! assert_eq!(refused.code(), tonic::Code::Unauthenticated);
//! # Ok::<(), proto::Error>(())
//! ```

use std::fmt;

use tonic::metadata::{Ascii, MetadataMap, MetadataValue};
use tonic::service::Interceptor;
use tonic::{Request, Status};

use crate::error::{Error, Result};

/// The metadata key carrying the token.
pub const AUTHORIZATION: &str = "authorization";

const SCHEME: &str = "Bearer ";

/// Client-side interceptor adding `authorization: Bearer <token>` to every call.
#[derive(Clone)]
pub struct BearerToken {
    value: MetadataValue<Ascii>,
}

impl BearerToken {
    /// Fails when the token is empty or not visible ASCII (metadata cannot carry it).
    pub fn new(token: &str) -> Result<BearerToken> {
        if token.is_empty() || !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(Error::InvalidToken);
        }
        let value = format!("{SCHEME}{token}").parse().map_err(|_| Error::InvalidToken)?;
        Ok(BearerToken { value })
    }
}

/// Never shows the token.
impl fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BearerToken(..)")
    }
}

impl Interceptor for BearerToken {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        request.metadata_mut().insert(AUTHORIZATION, self.value.clone());
        Ok(request)
    }
}

/// The token a call presents, if it has a well-formed `authorization: Bearer` entry.
pub fn bearer_token(metadata: &MetadataMap) -> Option<&str> {
    metadata.get(AUTHORIZATION)?.to_str().ok()?.strip_prefix(SCHEME)
}

/// Server side: `Ok` when the call presents `expected`, UNAUTHENTICATED otherwise. The
/// comparison takes the same time wherever the tokens differ.
pub fn authorize(metadata: &MetadataMap, expected: &str) -> Result<(), Status> {
    let presented = bearer_token(metadata)
        .ok_or_else(|| Status::unauthenticated("missing `authorization: Bearer <token>` metadata"))?;
    let differs = presented.len() != expected.len()
        || presented.bytes().zip(expected.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) != 0;
    if differs { Err(Status::unauthenticated("wrong farm token")) } else { Ok(()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_metadata(value: &str) -> MetadataMap {
        let mut metadata = MetadataMap::new();
        metadata.insert(AUTHORIZATION, value.parse().expect("ascii"));
        metadata
    }

    #[test]
    fn the_interceptor_sets_the_bearer_entry() {
        let mut token = BearerToken::new("abc.123").expect("valid token");
        let request = token.call(Request::new(())).expect("never fails");
        assert_eq!(bearer_token(request.metadata()), Some("abc.123"));
        assert_eq!(request.metadata().get(AUTHORIZATION).map(|v| v.to_str().ok()), Some(Some("Bearer abc.123")));
        assert!(!format!("{token:?}").contains("abc"), "Debug must hide the token");
    }

    #[test]
    fn tokens_metadata_cannot_carry_are_refused() {
        for bad in ["", "with space", "tab\t", "naïve", "line\n"] {
            assert_eq!(BearerToken::new(bad).map(|_| ()), Err(Error::InvalidToken), "{bad:?}");
        }
    }

    #[test]
    fn authorize_accepts_only_the_expected_token() {
        assert!(authorize(&with_metadata("Bearer s3cret"), "s3cret").is_ok());
        for (metadata, what) in [
            (MetadataMap::new(), "no metadata"),
            (with_metadata("Bearer wrong!"), "wrong token"),
            (with_metadata("Bearer s3cre"), "prefix of the token"),
            (with_metadata("Bearer s3cretX"), "token plus a suffix"),
            (with_metadata("Basic s3cret"), "another scheme"),
            (with_metadata("s3cret"), "no scheme"),
        ] {
            let status = authorize(&metadata, "s3cret").expect_err(what);
            assert_eq!(status.code(), tonic::Code::Unauthenticated, "{what}");
        }
    }
}
