//! The campaign crate's error type.

use std::path::Path;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A farm call failed (the gRPC code and message are kept). Transparent: its message
    /// is the source's, once, where a chain of causes is printed (`anyhow`'s `{:#}`).
    #[error(transparent)]
    Farm(#[from] proto::Error),
    /// The tuner, the summary chart or the Parquet data.
    #[error(transparent)]
    Analysis(#[from] analysis::Error),
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
    /// A setting outside its domain, named.
    #[error("campaign setting {name}: {reason}")]
    Setting { name: &'static str, reason: String },
    /// An SPSA input line the built-in engine cannot tune.
    #[error("`{name}`: {reason}")]
    SpsaParam { name: String, reason: String },
    /// A tuned value the base's parameter set refuses.
    #[error("tuned value of `{name}`: {reason}")]
    TunedValue { name: String, reason: String },
    /// A run that ended without what the campaign needs of it.
    #[error("run {run}: {reason}")]
    Run { run: proto::domain::RunId, reason: String },
    /// A blocking task (the tuner) that panicked or was cancelled.
    #[error("{what} failed to complete: {reason}")]
    Task { what: &'static str, reason: String },
}

impl Error {
    pub(crate) fn file(path: &Path, error: impl std::fmt::Display) -> Error {
        Error::File { path: path.display().to_string(), reason: error.to_string() }
    }
}
