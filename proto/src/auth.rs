//! Who is calling, and may they: the farm token travels as gRPC metadata,
//! `authorization: Bearer <token>`, on every call; it is never part of a message, so it stays
//! out of logs of messages and out of Parquet.
//!
//! Each token has a [`Role`]; [`required_role`] is the one table of the role each RPC needs,
//! and [`RoleGuard`] enforces it in front of the whole service. The server keeps only the
//! tokens' SHA-256 ([`token_file`]) and compares digests in constant time.
//!
//! ```
//! use proto::auth::{Access, BearerToken, Role, token_file};
//! use tonic::service::Interceptor;
//!
//! // A farm with a worker token and a read-only token (as a token file would list them).
//! let worker = token_file::mint(Role::Worker, "box-1")?;
//! let reader = token_file::mint(Role::ReadOnly, "")?;
//! let access = Access::from_entries(vec![worker.entry.clone(), reader.entry.clone()]);
//!
//! // Client: `FarmClient::with_interceptor(channel, BearerToken::new(&token)?)`.
//! let call = BearerToken::new(&worker.token)?.call(tonic::Request::new(())).expect("never fails");
//! let headers = call.metadata().clone().into_headers();
//!
//! // Server: the guard asks the access list for the method's role.
//! assert!(access.check(&headers, "/xqfarm.v1.Farm/Lease").is_ok());
//! let refused = access.check(&headers, "/xqfarm.v1.Farm/CreateRun").unwrap_err();
//! assert_eq!(refused.code(), tonic::Code::PermissionDenied);
//! assert!(refused.message().contains("needs a user token"));
//! let stranger = Access::single_token("other").check(&headers, "/xqfarm.v1.Farm/Lease").unwrap_err();
//! assert_eq!(stranger.code(), tonic::Code::Unauthenticated);
//! # Ok::<(), proto::Error>(())
//! ```

mod guard;
mod roles;
pub mod token_file;

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use subtle::ConstantTimeEq as _;
use tonic::codegen::http::HeaderMap;
use tonic::metadata::{Ascii, MetadataMap, MetadataValue};
use tonic::service::Interceptor;
use tonic::{Request, Status};

pub use guard::RoleGuard;
pub use roles::{Grants, Role, SERVICE_PATH, required_role};
pub use token_file::TokenEntry;

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

fn bearer_header(headers: &HeaderMap) -> Option<&str> {
    headers.get(AUTHORIZATION)?.to_str().ok()?.strip_prefix(SCHEME)
}

/// Who made a call, once the guard let it through; handlers find it in the request's
/// extensions.
#[derive(Clone, Debug)]
pub struct Caller {
    pub grants: Grants,
    /// The token's label from the token file (`--token` for the single shared token).
    pub label: Arc<str>,
}

#[derive(Clone)]
struct Credential {
    digest: [u8; 32],
    grants: Grants,
    label: Arc<str>,
}

/// The tokens a server admits, each with its role; only their SHA-256 digests are held.
#[derive(Clone)]
pub struct Access {
    credentials: Vec<Credential>,
}

/// Never shows the digests.
impl fmt::Debug for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Access").field("tokens", &self.credentials.len()).finish_non_exhaustive()
    }
}

impl Access {
    /// One shared token holding every role: today's single `--token` and the embedded farm.
    pub fn single_token(token: &str) -> Access {
        Access {
            credentials: vec![Credential {
                digest: token_file::digest(token),
                grants: Grants::ALL,
                label: Arc::from("--token"),
            }],
        }
    }

    /// The tokens of a parsed token file.
    pub fn from_entries(entries: Vec<TokenEntry>) -> Access {
        let credentials = entries
            .into_iter()
            .map(|e| Credential { digest: e.digest, grants: e.role.grants(), label: Arc::from(e.label) })
            .collect();
        Access { credentials }
    }

    /// Reads a token file; a malformed one is refused naming the file and the line.
    pub fn from_token_file(path: &Path) -> Result<Access> {
        Ok(Access::from_entries(token_file::read(path)?))
    }

    /// How many tokens are admitted.
    pub fn len(&self) -> usize {
        self.credentials.len()
    }

    /// Whether no token is admitted (every call is then refused).
    pub fn is_empty(&self) -> bool {
        self.credentials.is_empty()
    }

    /// Whether the call to `path` (`/xqfarm.v1.Farm/<Method>`) with these headers may go on:
    /// UNAUTHENTICATED without a known token, PERMISSION_DENIED naming the role needed when
    /// the token's role does not cover the method.
    pub fn check(&self, headers: &HeaderMap, path: &str) -> Result<Caller, Status> {
        let presented = bearer_header(headers)
            .ok_or_else(|| Status::unauthenticated("missing `authorization: Bearer <token>` metadata"))?;
        let caller = self.identify(presented).ok_or_else(|| Status::unauthenticated("unknown farm token"))?;
        let method = path.strip_prefix(SERVICE_PATH).unwrap_or(path);
        let Some(role) = required_role(method) else {
            return Err(Status::permission_denied(format!("`{path}` has no declared role, so nobody may call it")));
        };
        if caller.grants.allows(role) {
            Ok(caller)
        } else {
            Err(Status::permission_denied(format!(
                "{method} needs a {role} token; the token `{}` does not hold that role",
                caller.label
            )))
        }
    }

    /// The credential whose digest matches. Every stored digest is compared, each in
    /// constant time, so timing tells neither which token nor how much of it matched.
    pub fn identify(&self, presented: &str) -> Option<Caller> {
        let digest = token_file::digest(presented);
        let mut found = None;
        for credential in &self.credentials {
            if bool::from(credential.digest[..].ct_eq(&digest[..])) {
                found = Some(Caller { grants: credential.grants, label: Arc::clone(&credential.label) });
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(value: &str) -> HeaderMap {
        let mut metadata = MetadataMap::new();
        metadata.insert(AUTHORIZATION, value.parse().expect("ascii"));
        metadata.into_headers()
    }

    fn path(method: &str) -> String {
        format!("{SERVICE_PATH}{method}")
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
    fn a_single_token_admits_only_itself_and_holds_every_role() {
        let access = Access::single_token("s3cret");
        for method in ["Register", "Lease", "Submit", "CreateRun", "AddVariant", "ListRuns", "WatchRun"] {
            assert!(access.check(&headers("Bearer s3cret"), &path(method)).is_ok(), "{method}");
        }
        for (headers, what) in [
            (HeaderMap::new(), "no metadata"),
            (headers("Bearer wrong!"), "wrong token"),
            (headers("Bearer s3cre"), "prefix of the token"),
            (headers("Bearer s3cretX"), "token plus a suffix"),
            (headers("Basic s3cret"), "another scheme"),
            (headers("s3cret"), "no scheme"),
        ] {
            let status = access.check(&headers, &path("ListRuns")).expect_err(what);
            assert_eq!(status.code(), tonic::Code::Unauthenticated, "{what}");
        }
    }

    #[test]
    fn each_role_reaches_its_methods_and_is_refused_the_others_naming_the_role() {
        let entry =
            |role, token: &str| TokenEntry { role, digest: token_file::digest(token), label: format!("{role}-1") };
        let access =
            Access::from_entries(vec![entry(Role::Worker, "w"), entry(Role::User, "u"), entry(Role::ReadOnly, "r")]);
        let table = [
            ("w", "Lease", None),
            ("w", "Submit", None),
            ("w", "CreateRun", Some("user")),
            ("w", "GetRun", Some("read-only")),
            ("u", "CreateRun", None),
            ("u", "AddOpenings", None),
            ("u", "ListRuns", None),
            ("u", "Register", Some("worker")),
            ("u", "Submit", Some("worker")),
            ("r", "WatchRun", None),
            ("r", "StopRun", Some("user")),
            ("r", "Lease", Some("worker")),
        ];
        for (token, method, refused) in table {
            let result = access.check(&headers(&format!("Bearer {token}")), &path(method));
            match refused {
                None => assert!(result.is_ok(), "{token} {method}: {result:?}"),
                Some(role) => {
                    let status = result.expect_err(method);
                    assert_eq!(status.code(), tonic::Code::PermissionDenied, "{token} {method}");
                    assert!(status.message().contains(&format!("needs a {role} token")), "{}", status.message());
                }
            }
        }
        let unknown = access.check(&headers("Bearer u"), "/xqfarm.v1.Farm/Shutdown").expect_err("undeclared");
        assert_eq!(unknown.code(), tonic::Code::PermissionDenied);
        assert!(!format!("{access:?}").contains("digest"), "Debug hides the digests");
    }
}
