//! What users watch: a run with the statistics the coordinator derives from its counts.

use super::{PairingStats, Run, SpsaValue, TournamentDraw};

/// Where an SPRT stands: it accepts H0 at `llr <= lower_bound` and H1 at `llr >= upper_bound`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtProgress {
    pub llr: f64,
    /// `ln(beta / (1 - alpha))`.
    pub lower_bound: f64,
    /// `ln((1 - beta) / alpha)`.
    pub upper_bound: f64,
}

/// Live statistics of one pairing, from its first variant's side. The estimates may be
/// infinite or NaN while undefined (no games yet, only wins).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LiveStats {
    pub counts: PairingStats,
    /// Logistic Elo and its 95% interval.
    pub elo: f64,
    pub elo_lower: f64,
    pub elo_upper: f64,
    /// Normalized Elo and its 95% interval.
    pub nelo: f64,
    pub nelo_lower: f64,
    pub nelo_upper: f64,
    /// Likelihood of superiority, 0..=1.
    pub los: f64,
    /// SPRT runs only.
    pub sprt: Option<SprtProgress>,
}

/// A run and its live statistics: what `GetRun`, `ListRuns`, `StopRun` and `WatchRun` answer.
/// The state (with the SPRT verdict) is `run.state`.
#[derive(Clone, Debug, PartialEq)]
pub struct RunStatus {
    pub run: Run,
    /// One per pairing, in the order of `run.stats`.
    pub live: Vec<LiveStats>,
    /// Engines the active run needs that no connected worker has (with the binary the run
    /// pinned, if it pinned one): the run waits for them. Empty otherwise.
    pub missing_engines: Vec<String>,
    /// Games of the run in the coordinator's Parquet data (0 without a data directory).
    pub exported_games: u64,
    /// SPSA runs only: every parameter's current value, in the spec's order.
    pub spsa: Vec<SpsaValue>,
    /// Tournaments only: the draw so far (its matches' results are `run.stats`).
    pub tournament: Option<TournamentDraw>,
}
