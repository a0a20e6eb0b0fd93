//! The engine crate's integration tests, as one binary: each module was its own test binary, and
//! every binary links the crate and its dependencies again (issue 29: the test build's time went
//! to those links). `cargo test -p engine --test it MODULE::` runs one module.

mod ecco;
mod eval_trace;
mod fen;
mod nnue;
mod notation;
mod perft;
mod reference_movegen;
mod rules_cases;
mod search;
mod tablebase;
