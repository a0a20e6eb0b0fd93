//! The crate's error and the API's error answer: `{"error": "<message>"}` with a status.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// What can go wrong in the web application outside a request: starting the embedded farm,
/// and the benches' clients.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Coordinator(#[from] coordinator::Error),
    #[error("{0}")]
    Invalid(String),
    /// The embedded farm's SQLite file cannot be opened.
    #[error("opening the database {path}: {source}")]
    OpenDatabase {
        path: String,
        #[source]
        source: coordinator::Error,
    },
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    /// A farm RPC of a bench's simulated worker or client.
    #[error(transparent)]
    Farm(#[from] proto::Error),
    /// An HTTP request of a bench that failed or was not answered 200.
    #[error("GET {path}: {reason}")]
    Http { path: String, reason: String },
    /// A bench that cannot measure what it should (names what was missing).
    #[error("bench: {0}")]
    Bench(String),
}

/// The crate's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An API request's failure: its status and a message naming the bad input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError { status, message: message.into() }
    }
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }
    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, message)
    }
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, message)
    }
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, message)
    }
    pub fn unprocessable(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    }
    pub fn unavailable(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, message)
    }
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.status, self.message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.status.is_server_error() {
            tracing::warn!(status = %self.status, error = %self.message, "web request failed");
        }
        (self.status, axum::Json(serde_json::json!({ "error": self.message }))).into_response()
    }
}

impl From<coordinator::Error> for ApiError {
    fn from(e: coordinator::Error) -> ApiError {
        use coordinator::Error as E;
        match &e {
            _ if e.is_not_found() => ApiError::not_found(e.to_string()),
            E::InvalidSpec { .. } => ApiError::bad_request(e.to_string()),
            E::InvalidStateChange { .. } => ApiError::conflict(e.to_string()),
            _ => ApiError::internal(e.to_string()),
        }
    }
}

/// Refusals of axum's own extractors (bad JSON, bad query, body too large) as our JSON.
impl From<axum::extract::rejection::JsonRejection> for ApiError {
    fn from(r: axum::extract::rejection::JsonRejection) -> ApiError {
        ApiError::new(r.status(), format!("request body: {}", r.body_text()))
    }
}

impl From<axum::extract::rejection::QueryRejection> for ApiError {
    fn from(r: axum::extract::rejection::QueryRejection) -> ApiError {
        ApiError::bad_request(format!("query string: {}", r.body_text()))
    }
}

impl From<axum::extract::rejection::PathRejection> for ApiError {
    fn from(r: axum::extract::rejection::PathRejection) -> ApiError {
        ApiError::bad_request(format!("path: {}", r.body_text()))
    }
}

/// A result of a handler.
pub type ApiResult<T> = std::result::Result<T, ApiError>;
