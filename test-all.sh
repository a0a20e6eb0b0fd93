#!/usr/bin/env bash
# Every test of the repository, in the order that fails fastest: format and lints (seconds), the
# Rust tests (`cargo test --workspace`), the browser tests (web/e2e: Debian's Chromium driven by
# playwright-core under `node --test`, against a real `xqfarm serve` and worker), then the
# cluster tests (deploy/slurm: a real slurmctld and slurmd running the worker array job; they
# need root and say so when skipped, unless XQFARM_REQUIRE_SLURM=1 makes that a failure), and the
# Kubernetes manifests, Dockerfile and Grafana dashboard checked offline (deploy/k8s/test.sh).
# `.ci/run` installs what a fresh machine lacks, then runs this.
set -euo pipefail
cd "$(dirname "$0")"

cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace

# The browser tests drive the xqfarm binary that `cargo test` just built for the CLI tests.
target="${CARGO_TARGET_DIR:-$PWD/target}"
export XQFARM_BIN="${XQFARM_BIN:-$target/debug/xqfarm}"
web/e2e/run.sh
deploy/slurm/test.sh
deploy/k8s/test.sh
