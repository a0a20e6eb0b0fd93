#!/usr/bin/env bash
# Every test of the repository, in the order that fails fastest: format and lints (seconds), the
# Rust tests (`cargo test --workspace`, with a private PostgreSQL server for the storage
# conformance suite; as root it also runs the multi-host fault test in network namespaces,
# xqfarm/tests/netns_faults.rs, with a server of its own), the browser tests (web/e2e: Debian's Chromium driven by
# playwright-core under `node --test`, against a real `xqfarm serve` and worker), then the
# cluster tests (deploy/slurm: a real slurmctld and slurmd running the worker array job; they
# need root and say so when skipped, unless XQFARM_REQUIRE_SLURM=1 makes that a failure), and the
# Kubernetes manifests, Dockerfile and Grafana dashboard checked offline (deploy/k8s/test.sh).
# `.ci/run` installs what a fresh machine lacks, then runs this.
set -euo pipefail
cd "$(dirname "$0")"

cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings

# The storage conformance suite's PostgreSQL backend runs against a private server (Debian's
# `postgresql`, started as the postgres user when this runs as root) on a free loopback port,
# unless XQFARM_TEST_POSTGRES already names one. Without PostgreSQL those cases skip, saying so,
# unless XQFARM_REQUIRE_POSTGRES=1 makes that a failure.
if [ -z "${XQFARM_TEST_POSTGRES:-}" ]; then
  pg_dir="$(mktemp -d "${TMPDIR:-/tmp}/xqfarm-pg.XXXXXX")"
  pg_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  if pg_url="$(deploy/postgres/server.sh start "$pg_dir" "$pg_port")"; then
    export XQFARM_TEST_POSTGRES="$pg_url"
    trap 'deploy/postgres/server.sh stop "$pg_dir" || true; rm -rf "$pg_dir"' EXIT
  elif [ "${XQFARM_REQUIRE_POSTGRES:-}" = 1 ]; then
    echo "test-all.sh: could not start PostgreSQL, and XQFARM_REQUIRE_POSTGRES=1" >&2
    exit 1
  else
    echo "test-all.sh: no PostgreSQL server; its storage cases will skip" >&2
    rm -rf "$pg_dir"
  fi
fi
cargo test --workspace

# The browser tests drive the xqfarm binary that `cargo test` just built for the CLI tests.
target="${CARGO_TARGET_DIR:-$PWD/target}"
export XQFARM_BIN="${XQFARM_BIN:-$target/debug/xqfarm}"
web/e2e/run.sh
deploy/slurm/test.sh
deploy/k8s/test.sh
