//! Compiles `xqfarm/v1/xqfarm.proto` into `$OUT_DIR/xqfarm.v1.rs`.
//!
//! `protox` parses the schema in pure Rust, so no system `protoc` is needed; its descriptor set
//! goes straight to `tonic-prost-build`, which writes the prost messages and the tonic client
//! and server.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let schema = root.join("xqfarm/v1/xqfarm.proto");
    println!("cargo:rerun-if-changed={}", schema.display());

    let descriptors = protox::compile([&schema], [&root])?;
    tonic_prost_build::configure().build_client(true).build_server(true).compile_fds(descriptors)?;
    Ok(())
}
