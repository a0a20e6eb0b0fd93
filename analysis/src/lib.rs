//! xqfarm analysis. The statistics are pure functions over counts, shared by the
//! coordinator (live SPRT), the command line (`xqfarm stats`) and the reports. The tuner's core
//! ([`tune`]: compact traces, loss and exact gradient, K fit, Adam) works on the engine's
//! evaluation trace and knows nothing of files.
//!
//! ```
//! use analysis::stats::{Pentanomial, elo_estimate};
//!
//! // 100 game pairs: mostly wins for the candidate.
//! let p = Pentanomial { counts: [2, 8, 40, 30, 20] };
//! let e = elo_estimate(&p);
//! assert!(e.elo > 0.0 && e.lower < e.elo && e.elo < e.upper);
//! ```

#[cfg(feature = "reports")]
pub mod charts;
#[cfg(feature = "reports")]
pub mod data;
pub mod error;
pub mod nnue;
#[cfg(feature = "reports")]
pub mod report;
pub mod stats;
#[cfg(feature = "reports")]
pub mod texel;
pub mod tune;

pub use error::{Error, Result};
