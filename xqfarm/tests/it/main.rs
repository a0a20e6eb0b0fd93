//! The xqfarm crate's integration tests, as one binary: each module was its own test binary, and
//! every binary links the crate and its dependencies again (issue 29: the test build's time went
//! to those links). `cargo test -p xqfarm --test it MODULE::` runs one module.

mod auth_tls;
mod book_cli;
mod client;
mod common;
mod datagen_cli;
mod db_cli;
mod engines;
mod fairy_match;
mod farm_e2e;
mod faults;
mod import_cli;
mod logs;
mod metrics;
mod netns_faults;
mod postgres_farm;
#[path = "../../../coordinator/tests/it/postgres_support.rs"]
mod postgres_support;
mod referee_grpc;
mod served;
mod sprt_cli;
mod sprt_engines;
mod spsa_cli;
mod tb_cli;
mod tc_scale;
mod tournament_cli;
mod tune_loop;
mod web_serve;
