//! The worker crate's error type.

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("opening {index} (`{text}`): {reason}")]
    Opening { index: usize, text: String, reason: String },
    #[error("engine `{engine}`: {reason}")]
    Engine { engine: String, reason: String },
    /// An engine that gave no answer in time (killed): a game scores it `engine_hung`.
    #[error("engine `{engine}`: {reason}")]
    EngineHung { engine: String, reason: String },
    /// An option the engine was asked to set that it did not advertise, or a value its type
    /// does not admit: refused at the handshake, before any game.
    #[error("engine `{engine}`: option `{option}`: {reason}")]
    EngineOption { engine: String, option: String, reason: String },
    /// An engine given to the worker (`--engine NAME=PATH`, the engine file) that cannot be
    /// used: refused at start.
    #[error("engine `{name}` ({path}): {reason}")]
    EngineSetup { name: String, path: String, reason: String },
    /// A malformed `--engine` or engine file.
    #[error("{source_name}: {reason}")]
    EngineConfig { source_name: String, reason: String },
    /// A lease names an engine this worker was not given: it is never started.
    #[error("variant `{variant}` names engine `{engine}`, which this worker was not given (its engines: {given})")]
    EngineNotGiven { variant: String, engine: String, given: String },
    /// The start-up bench could not measure this machine.
    #[error("bench: {reason}")]
    Bench { reason: String },
    /// Bytes offered as network `id` that are not it, or not a network.
    #[error("network {id}: {reason}")]
    Network { id: String, reason: String },
    /// The network cache directory or one of its files.
    #[error("network cache {path}: {reason}")]
    NetworkCache { path: String, reason: String },
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("coordinator at {url}: {reason}")]
    Coordinator { url: String, reason: String },
    #[error("spool {path}: {reason}")]
    Spool { path: String, reason: String },
    /// Another worker process holds the spool's lock file.
    #[error("spool {path} is in use by another worker (pid {holder}); give each worker its own --spool")]
    SpoolLocked { path: String, holder: String },
}
