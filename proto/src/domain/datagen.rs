//! Training-data generation (`RunKind::Datagen`): one variant plays itself, every position of
//! every game is recorded with the mover's search score, and each pair starts from its suite
//! opening followed by a few uniformly random legal moves that the coordinator draws (seeded by
//! run and pair, so the same pair always gets the same opening; see
//! `coordinator::datagen`). The random moves are part of the leased opening, never of the
//! game: no random move is ever recorded as a position's best move.
//!
//! ```
//! use proto::domain::{DatagenSettings, TimeControl, DATAGEN_TC};
//!
//! let settings = DatagenSettings::new(1_000);
//! assert_eq!(settings.random_plies, 8);
//! assert_eq!(DATAGEN_TC, TimeControl::Nodes(5_000));
//! assert_eq!(DatagenSettings { random_plies: 41, ..settings }.validate().unwrap_err().field(), Some("random_plies"));
//! ```

use super::TimeControl;
use crate::error::{Error, Result};

/// Random plies after the suite's opening unless a run says otherwise: enough to spread a small
/// suite over many distinct positions, few enough that the games still start from sensible
/// middlegames (both sides make 4 random moves).
pub const DEFAULT_RANDOM_PLIES: u32 = 8;
/// Most random plies a run may ask for: beyond this, openings are noise rather than Xiangqi.
pub const MAX_RANDOM_PLIES: u32 = 40;
/// A datagen run's time control unless it names another: fixed nodes, so the data does not
/// depend on a worker's speed.
pub const DATAGEN_TC: TimeControl = TimeControl::Nodes(5_000);

/// The settings of a datagen run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DatagenSettings {
    /// Game pairs to play (each pair: the same opening, the variant as Red then as Black).
    pub pairs: u64,
    /// Uniformly random legal moves played after the suite's opening, 0..=[`MAX_RANDOM_PLIES`].
    pub random_plies: u32,
}

impl DatagenSettings {
    /// `pairs` pairs with [`DEFAULT_RANDOM_PLIES`].
    pub fn new(pairs: u64) -> DatagenSettings {
        DatagenSettings { pairs, random_plies: DEFAULT_RANDOM_PLIES }
    }

    /// The random plies are within 0..=[`MAX_RANDOM_PLIES`] (the pair count is checked with the
    /// rest of the spec, as every kind's is).
    pub fn validate(&self) -> Result<()> {
        if self.random_plies > MAX_RANDOM_PLIES {
            return Err(Error::invalid(
                "random_plies",
                format!("{}, expected 0..={MAX_RANDOM_PLIES}", self.random_plies),
            ));
        }
        Ok(())
    }
}
