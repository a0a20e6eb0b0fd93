//! Why a wire message could not become a domain value.

use std::fmt;

/// A conversion failure. `field` is the path of the offending field from the converted
/// message, in the schema's field names: `spec.tc.nodes`, `batch.pairs[2].first_game.outcome`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A required message field or oneof is absent, or an enum is 0 (`*_UNSPECIFIED`).
    #[error("missing field `{field}`")]
    MissingField { field: String },
    /// A field is present but its value is not allowed.
    #[error("invalid field `{field}`: {reason}")]
    InvalidField { field: String, reason: String },
    /// The request was written for another protocol version.
    #[error(
        "protocol version mismatch: the request speaks {}, this side speaks xqfarm.v1 protocol {ours}",
        Version(*.theirs)
    )]
    VersionMismatch { theirs: u32, ours: u32 },
    /// A text that names no value of a closed set (run state, Elo model, ...).
    #[error("unknown {what} `{given}` (expected {expected})")]
    UnknownName { what: &'static str, given: String, expected: String },
    /// A text that is not an id (`run id`, `lease id`, ...).
    #[error("invalid {what} `{given}` ({})", if *.what == "variant id" { "expected text without spaces" } else { "expected a non-negative whole number" })]
    InvalidId { what: &'static str, given: String },
    /// A farm token must be non-empty visible ASCII to travel as gRPC metadata.
    #[error("the farm token must be non-empty visible ASCII (no spaces or control characters)")]
    InvalidToken,
    /// A role name that is not `worker`, `user` or `read-only`.
    #[error("unknown role `{0}` (expected worker, user or read-only)")]
    UnknownRole(String),
    /// A token file that cannot be read or has a malformed line (`line` 0: the file as a whole).
    #[error("token file {path}{}: {reason}", line_suffix(*.line))]
    TokenFile { path: String, line: usize, reason: String },
    /// A token label with a line break or another control character.
    #[error("token label `{}` has a control character (one line of text expected)", .0.escape_debug())]
    InvalidLabel(String),
    /// The operating system's random source failed.
    #[error("no random bytes for a token: {0}")]
    Random(String),
    /// A certificate, key or CA file that cannot be used.
    #[error("TLS file {path}: {reason}")]
    TlsFile { path: String, reason: String },
    /// A coordinator URL that cannot be dialled as given.
    #[error("coordinator `{url}`: {reason}")]
    Endpoint { url: String, reason: String },
    /// The coordinator cannot be reached now; it may be later (worth retrying).
    #[error("cannot reach the coordinator at {url}: {reason}")]
    Unreachable { url: String, reason: String },
    /// Client and coordinator disagree on TLS; no retry can help.
    #[error("coordinator {url}: {reason}")]
    TlsMismatch { url: String, reason: String },
    /// A call that failed: the coordinator's answer, or the transport's when it could not be
    /// reached (after the client's retries). Keeps the gRPC code and message.
    #[error("{call}: {code:?}: {message}")]
    Rpc { call: &'static str, code: tonic::Code, message: String },
    /// A call the coordinator answered, with an answer that cannot be read.
    #[error("{call}: the coordinator's answer is malformed: {reason}")]
    BadResponse { call: &'static str, reason: String },
}

fn line_suffix(line: usize) -> String {
    if line == 0 { String::new() } else { format!(" line {line}") }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn missing(field: impl Into<String>) -> Error {
        Error::MissingField { field: field.into() }
    }

    pub(crate) fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Error {
        Error::InvalidField { field: field.into(), reason: reason.into() }
    }

    /// The path of the offending field, if the error is about one.
    pub fn field(&self) -> Option<&str> {
        match self {
            Error::MissingField { field } | Error::InvalidField { field, .. } => Some(field),
            _ => None,
        }
    }

    /// Whether a connection failure may go away by itself (the coordinator is down or
    /// restarting), as opposed to a configuration to fix.
    pub fn is_transient(&self) -> bool {
        match self {
            Error::Unreachable { .. } => true,
            Error::Rpc { code, .. } => crate::client::retry::is_transient(*code),
            _ => false,
        }
    }

    /// The gRPC code of a failed call ([`Error::Rpc`]).
    pub fn code(&self) -> Option<tonic::Code> {
        match self {
            Error::Rpc { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// Puts `parent` (a field name, possibly indexed: `pairs[2]`) in front of the path.
    pub(crate) fn within(mut self, parent: &str) -> Error {
        if let Error::MissingField { field } | Error::InvalidField { field, .. } = &mut self {
            *field = if field.is_empty() { parent.to_owned() } else { format!("{parent}.{field}") };
        }
        self
    }
}

/// A bad field is the caller's fault (INVALID_ARGUMENT); a version mismatch means the caller
/// must upgrade (FAILED_PRECONDITION).
impl From<Error> for tonic::Status {
    fn from(error: Error) -> tonic::Status {
        match error {
            Error::VersionMismatch { .. } => tonic::Status::failed_precondition(error.to_string()),
            _ => tonic::Status::invalid_argument(error.to_string()),
        }
    }
}

/// Shows a protocol version, making 0 recognisable as "not set".
struct Version(u32);

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0 => f.write_str("no protocol version (0: unset)"),
            v => write!(f, "xqfarm.v1 protocol {v}"),
        }
    }
}
