//! The analysis crate's integration tests, as one binary: each module was its own test binary, and
//! every binary links the crate and its dependencies again (issue 29: the test build's time went
//! to those links). `cargo test -p analysis --test it MODULE::` runs one module.

mod fishtest_reference;
// Over Parquet: only with the `reports` feature (as `cargo test --workspace` builds it).
#[cfg(feature = "reports")]
mod nnue_trainer;
// Over Parquet: only with the `reports` feature (as `cargo test --workspace` builds it).
#[cfg(feature = "reports")]
mod openings_report;
// Over Parquet: only with the `reports` feature (as `cargo test --workspace` builds it).
#[cfg(feature = "reports")]
mod report_data;
mod tuner;
