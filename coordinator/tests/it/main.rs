//! The coordinator crate's integration tests, as one binary: each module was its own test binary, and
//! every binary links the crate and its dependencies again (issue 29: the test build's time went
//! to those links). `cargo test -p coordinator --test it MODULE::` runs one module.

mod migration;
mod parquet_export;
mod parquet_migration;
mod postgres_support;
mod referee;
mod storage_conformance;
mod workers;
