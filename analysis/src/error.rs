//! The analysis crate's error type.

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Every error the analysis library reports. Each message names the bad input.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Error {
    /// Pentanomial counts that cannot be read, e.g. from `--ptnml`.
    #[error("pentanomial `{input}`: {reason}")]
    Pentanomial { input: String, reason: String },
    /// An SPRT parameter outside its domain (alpha of 1.2, equal bounds, ...).
    #[error("SPRT parameter {name} = {value}: {reason}")]
    SprtParameter { name: &'static str, value: f64, reason: &'static str },
    /// The constrained maximum-likelihood estimate behind a GSPRT log-likelihood ratio does not
    /// exist: no distribution on the observed outcomes reaches the hypothesis (a bound far beyond
    /// anything a match can show, such as 10,000 Elo).
    #[error("no maximum-likelihood estimate with {statistic} {target}: the bound cannot be reached")]
    NoEstimate { statistic: &'static str, target: f64 },
}
