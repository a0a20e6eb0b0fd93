//! The coordinator's errors. Each message names the input that was wrong.

use proto::domain::{LeaseId, RunId, SuiteId, VariantId, WorkerId};

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A boxed backend error kept as the source of [`Error::Storage`], so that the error type does
/// not depend on which backend produced it.
pub type BoxedSource = Box<dyn std::error::Error + Send + Sync + 'static>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("run {0} not found")]
    RunNotFound(RunId),
    #[error("variant {0} not found")]
    VariantNotFound(VariantId),
    #[error("opening suite {0} not found")]
    SuiteNotFound(SuiteId),
    #[error("lease {0} not found")]
    LeaseNotFound(LeaseId),
    #[error("worker {0} not found")]
    WorkerNotFound(WorkerId),
    #[error("game {0} not found")]
    GameNotFound(u64),
    /// A network named by its SHA-256 that this coordinator does not store.
    #[error("network {0} not found (add it with `xqfarm network add FILE`)")]
    NetworkNotFound(engine::nnue::NetworkId),
    /// A worker named a lease that was handed to another worker.
    #[error("lease {lease} does not belong to worker {worker}")]
    LeaseNotOwned { lease: LeaseId, worker: WorkerId },
    /// The lease expired or was closed; it can no longer be extended.
    #[error("lease {0} is no longer active")]
    LeaseClosed(LeaseId),
    /// A run, variant, suite or worker description that makes no sense.
    #[error("invalid {field}: {reason}")]
    InvalidSpec { field: String, reason: String },
    /// A submitted result that does not fit its lease, or that the referee found to be a lie
    /// (`game`: 0 or 1 within the pair; `ply`: where in that game); nothing of the submission
    /// was stored.
    #[error("invalid report for lease {lease}, pair {pair}{}: {reason}", place(*.game, *.ply))]
    InvalidReport { lease: LeaseId, pair: u64, game: Option<u8>, ply: Option<usize>, reason: String },
    /// A datagen run's game whose moves carry no score at all: its engine reports none, so
    /// the run can record no training label. The submission is refused and the run stopped.
    #[error(
        "datagen run {run} needs scores, but variant {variant} (engine {engine}) gave none for any move of pair \
         {pair}, game {game} (lease {lease}): the run is stopped; play datagen with an engine that reports \
         `info score`"
    )]
    Unscored { run: RunId, lease: LeaseId, pair: u64, game: u8, variant: VariantId, engine: String },
    /// A worker that plays by other rules than the coordinator referees.
    #[error(
        "the worker plays by rules version {worker}, this coordinator by rules version {coordinator}: upgrade the older one"
    )]
    RulesVersion { worker: u32, coordinator: u32 },
    #[error("run {run}: cannot change state from {from} to {to}")]
    InvalidStateChange { run: RunId, from: String, to: String },
    /// The backend failed (I/O, locking, SQL).
    #[error("storage failure while {context}: {source}")]
    Storage {
        context: String,
        #[source]
        source: BoxedSource,
    },
    /// A database server that cannot serve as this coordinator's store: unreachable, refusing
    /// the credentials, or holding a schema that is not (this version of) xqfarm's. `target`
    /// names the server and database, never the password.
    #[error("database {target}: {reason}")]
    Database { target: String, reason: String },
    /// A SQLite file another process holds open (a running coordinator, most likely), for an
    /// operation that needs it alone: a `VACUUM`.
    #[error(
        "database {path} is open in another process (a running coordinator?): {operation} needs it alone; \
         stop that process and run again"
    )]
    DatabaseInUse { path: String, operation: &'static str },
    /// Stored data that does not decode: the database was edited or damaged.
    #[error("Parquet export: {0}")]
    Export(String),
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
    /// The coordinator's endgame tables (`serve --tablebases`) cannot be read.
    #[error("endgame tables: {0}")]
    Tablebase(String),
}

impl Error {
    /// A spec that its `validate()` in `proto::domain` refused: the field path and reason
    /// as the wire conversion would report them.
    pub(crate) fn from_spec(error: proto::Error) -> Error {
        match error {
            proto::Error::InvalidField { field, reason } => Error::InvalidSpec { field, reason },
            proto::Error::MissingField { field } => Error::InvalidSpec { field, reason: "missing".into() },
            other => Error::InvalidSpec { field: String::new(), reason: other.to_string() },
        }
    }

    /// A run, variant, suite, lease, worker or game that was named by id and does not exist
    /// (what a web page answers 404 for).
    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            Error::RunNotFound(_)
                | Error::VariantNotFound(_)
                | Error::SuiteNotFound(_)
                | Error::LeaseNotFound(_)
                | Error::WorkerNotFound(_)
                | Error::GameNotFound(_)
                | Error::NetworkNotFound(_)
        )
    }

    pub(crate) fn invalid_report(lease: LeaseId, pair: u64, reason: impl Into<String>) -> Error {
        Error::InvalidReport { lease, pair, game: None, ply: None, reason: reason.into() }
    }

    pub(crate) fn storage(context: impl Into<String>, source: impl Into<BoxedSource>) -> Error {
        Error::Storage { context: context.into(), source: source.into() }
    }
}

/// `, game 1, ply 14` (what of it is known) for [`Error::InvalidReport`].
fn place(game: Option<u8>, ply: Option<usize>) -> String {
    match (game, ply) {
        (Some(g), Some(p)) => format!(", game {g}, ply {p}"),
        (Some(g), None) => format!(", game {g}"),
        (None, Some(p)) => format!(", ply {p}"),
        (None, None) => String::new(),
    }
}
