//! The web crate's integration tests, as one binary: each module was its own test binary, and
//! every binary links the crate and its dependencies again (issue 29: the test build's time went
//! to those links). `cargo test -p web --test it MODULE::` runs one module.

mod farm_api;
mod play_api;
