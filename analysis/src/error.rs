//! The analysis crate's error type.

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Every error the analysis library reports. Each message names the bad input.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Error {
    /// Pentanomial counts that cannot be read, e.g. from `--ptnml`.
    #[error("pentanomial `{input}`: {reason}")]
    Pentanomial { input: String, reason: String },
    /// An SPRT design outside its domain (alpha of 1.2, equal bounds, ...), as
    /// [`proto::domain::SprtSettings::validate`] judges it.
    #[error("SPRT design: {0}")]
    SprtDesign(#[from] proto::Error),
    /// The constrained maximum-likelihood estimate behind a GSPRT log-likelihood ratio does not
    /// exist: no distribution on the observed outcomes reaches the hypothesis (a bound far beyond
    /// anything a match can show, such as 10,000 Elo).
    #[error("no maximum-likelihood estimate with {statistic} {target}: the bound cannot be reached")]
    NoEstimate { statistic: &'static str, target: f64 },
    /// A FEN offered to the tuner that the engine refuses.
    #[error("tuning position `{fen}`: {reason}")]
    Fen { fen: String, reason: engine::position::FenError },
    /// A tuning position's label inputs out of their domain (a result of 2, a NaN score, ...).
    #[error("tuning position #{index} (game {game_id}): {reason}")]
    Label { index: usize, game_id: u64, reason: String },
    /// An evaluation trace the compact store cannot hold exactly (a coefficient that is not a
    /// feature count times the phase, an index beyond the parameters, too many entries).
    #[error("evaluation trace: {reason}")]
    Trace { reason: String },
    /// A tuner setting outside its domain (a validation fraction of 2, a learning rate of 0,
    /// weights of the wrong length, ...).
    #[error("tuner setting {name} = {value}: {reason}")]
    TuneSetting { name: &'static str, value: String, reason: String },
    /// A group name in `--only` or `--freeze` that is not an evaluation group.
    #[error("unknown parameter group `{name}` (expected one of {expected})")]
    UnknownGroup { name: String, expected: String },
    /// Results a rating list cannot be computed from (a player index out of range, an anchor
    /// not connected to the others, negative counts ...).
    #[error("rating list: {reason}")]
    Rating { reason: String },
    /// A chart that could not be drawn or written.
    #[error("chart {path}: {reason}")]
    Chart { path: String, reason: String },
    /// Parquet data that cannot be read or does not have the expected columns.
    #[error("data {path}: {reason}")]
    Data { path: String, reason: String },
    /// An NNUE trainer setting or input outside its domain (a lambda of 1.5, a hidden size the
    /// engine refuses, a result of 0.25, ...).
    #[error("NNUE trainer: {name} = {value}: {reason}")]
    NnueSetting { name: &'static str, value: String, reason: String },
    /// A data directory without any sampled position.
    #[error("data {path}: no positions (no rows in {path}/positions/run=*/*.parquet{runs})")]
    NoPositions { path: String, runs: String },
    /// Too few positions left after the filters to train on.
    #[error("data {path}: only {kept} positions left after the filters, at least {needed} needed ({filters})")]
    TooFewPositions { path: String, kept: u64, needed: u64, filters: String },
    /// A trainer checkpoint that cannot be read, written or resumed.
    #[error("checkpoint {path}: {reason}")]
    Checkpoint { path: String, reason: String },
    /// A network file that cannot be read or written.
    #[error("network {path}: {reason}")]
    Network { path: String, reason: String },
}
