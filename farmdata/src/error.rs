//! The export's own error: it names the file or the run that is wrong.

use proto::domain::RunId;
use std::path::PathBuf;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },

    #[error("{}: {source}", path.display())]
    Parquet { path: PathBuf, source: ::parquet::errors::ParquetError },

    #[error("{}: {source}", path.display())]
    Arrow { path: PathBuf, source: arrow_schema::ArrowError },

    /// A part file that does not hold the table it should (missing column, wrong type, ...).
    #[error("{}: {problem}", path.display())]
    Schema { path: PathBuf, problem: String },

    /// A file of an older version that cannot be upgraded; it was left as it was.
    #[error("{}: cannot upgrade: {problem}", path.display())]
    Migration { path: PathBuf, problem: String },

    /// A game archive that cannot be imported at all (unreadable, not UTF-8); nothing was written.
    #[error("{}: {problem}", path.display())]
    Import { path: PathBuf, problem: String },

    /// The rows handed to `export_segment` cannot form one segment.
    #[error("run {run}: bad segment: {problem}")]
    BadSegment { run: RunId, problem: String },

    /// A segment would overlap a part file of another range (call `recover` first).
    #[error("run {run}: games {first}..={last} overlap the existing part {}", existing.display())]
    Overlap { run: RunId, first: u64, last: u64, existing: PathBuf },

    /// The files contradict the caller's bookkeeping in a way no crash of ours produces
    /// (a committed range missing or unreadable). Nothing was deleted.
    #[error("run {run}: {detail}")]
    Inconsistent { run: RunId, detail: String },
}

/// Attaches a path to the errors of the libraries underneath.
pub(crate) trait AtPath<T> {
    fn at(self, path: &std::path::Path) -> Result<T>;
}

impl<T> AtPath<T> for std::result::Result<T, std::io::Error> {
    fn at(self, path: &std::path::Path) -> Result<T> {
        self.map_err(|source| Error::Io { path: path.to_path_buf(), source })
    }
}

impl<T> AtPath<T> for std::result::Result<T, ::parquet::errors::ParquetError> {
    fn at(self, path: &std::path::Path) -> Result<T> {
        self.map_err(|source| Error::Parquet { path: path.to_path_buf(), source })
    }
}

impl<T> AtPath<T> for std::result::Result<T, arrow_schema::ArrowError> {
    fn at(self, path: &std::path::Path) -> Result<T> {
        self.map_err(|source| Error::Arrow { path: path.to_path_buf(), source })
    }
}
