//! Why the play service refuses a request, each refusal with the one status it answers.

use crate::error::ApiError;

/// A play request the rules, the caps or the session's state refuse. Every message names
/// the input at fault (the move, the FEN, the field).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    /// A move the position does not allow: `h2e3: <reason>`.
    #[error("{text}: {reason}")]
    IllegalMove { text: String, reason: String },
    /// A FEN the validator refuses.
    #[error("invalid FEN `{fen}`: {reason}")]
    InvalidFen { fen: String, reason: String },
    /// A PGN that cannot be read or holds an illegal move (the message names its number).
    #[error("{0}")]
    InvalidPgn(String),
    /// A malformed field of the request: `red.limit.nodes: ...`.
    #[error("{field}: {reason}")]
    BadField { field: String, reason: String },
    /// The game is over, or it is not the right side's turn, or the engine is busy.
    #[error("{0}")]
    Conflict(String),
    #[error("no play session `{0}` (it may have expired)")]
    NoSession(String),
    /// A cap was reached (sessions, hash, the pool's queue): try later.
    #[error("{0}")]
    Unavailable(String),
    #[error("{0}")]
    Internal(String),
}

impl From<PlayError> for ApiError {
    fn from(e: PlayError) -> ApiError {
        let message = e.to_string();
        match e {
            PlayError::IllegalMove { .. } | PlayError::InvalidFen { .. } | PlayError::InvalidPgn(_) => {
                ApiError::unprocessable(message)
            }
            PlayError::BadField { .. } => ApiError::bad_request(message),
            PlayError::Conflict(_) => ApiError::conflict(message),
            PlayError::NoSession(_) => ApiError::not_found(message),
            PlayError::Unavailable(_) => ApiError::unavailable(message),
            PlayError::Internal(_) => ApiError::internal(message),
        }
    }
}

pub type PlayResult<T> = std::result::Result<T, PlayError>;
