#!/usr/bin/env bash
# Every test of the repository, in the order that fails fastest: format and lints (seconds), the
# Rust tests (`cargo test --workspace`, with a private PostgreSQL server for the storage
# conformance suite; as root it also runs the multi-host fault test in network namespaces,
# xqfarm/tests/it/netns_faults.rs, with a server of its own), the browser tests (web/e2e: Debian's Chromium driven by
# playwright-core under `node --test`, against a real `xqfarm serve` and worker), then the
# cluster tests (deploy/slurm: a real slurmctld and slurmd running the worker array job; they
# need root and say so when skipped, unless XQFARM_REQUIRE_SLURM=1 makes that a failure), and the
# Kubernetes manifests, Dockerfile and Grafana dashboard checked offline (deploy/k8s/test.sh).
# `.ci/run` installs what a fresh machine lacks, then runs this.
set -euo pipefail
cd "$(dirname "$0")"

# Each stage's time and test count, printed as a table at the end (and on a failure, up to the
# stage that failed). A stage's output also goes to $logs/<stage>.log.
logs="$(mktemp -d "${TMPDIR:-/tmp}/xqfarm-test-all.XXXXXX")"
declare -a stage_rows=()
total_passed=0
started=$SECONDS
summary() {
  printf '\n%-12s %8s %8s\n' stage seconds tests
  local row
  for row in "${stage_rows[@]}"; do printf '%-12s %8s %8s\n' $row; done
  printf '%-12s %8s %8s\n' all $((SECONDS - started)) "$total_passed"
  if [ "$1" = 0 ]; then
    rm -rf "$logs"
    echo "test-all: $total_passed passed, 0 failed"
  else
    echo "test-all.sh: failed (exit $1); the stages' output is in $logs" >&2
  fi
}
cleanups=()
on_exit() {
  local rc=$? c
  for c in "${cleanups[@]}"; do eval "$c" || true; done
  summary "$rc"
  exit "$rc"
}
trap on_exit EXIT

# How many tests a stage's log says passed: cargo's `test result:` lines, node's `# pass N`, the
# Slurm script's `test N passed` lines, the Kubernetes checks' `N passed, N failed`.
count_passed() {
  awk '
    /^test result: ok\./ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^passed;?$/) n += $i }
    /^# pass [0-9]+$/ { n += $3 }
    /^test [0-9]+ passed/ { n += 1 }
    /^deploy\/k8s: [0-9]+ passed/ { n += $2 }
    END { print n + 0 }' "$1"
}

# stage NAME COMMAND...: runs the command with its output shown and logged, and records its
# seconds and passed tests; a failing command fails the script.
stage() {
  local name="$1"
  shift
  local t0=$SECONDS rc
  echo "== $name: $*"
  set +e
  "$@" 2>&1 | tee "$logs/$name.log"
  rc=${PIPESTATUS[0]}
  set -e
  local n
  n="$(count_passed "$logs/$name.log")"
  total_passed=$((total_passed + n))
  stage_rows+=("$name $((SECONDS - t0)) $n")
  return "$rc"
}
stage fmt cargo fmt --all --check
stage clippy cargo clippy --workspace --all-targets -- -D warnings

# The storage conformance suite's PostgreSQL backend runs against a private server (Debian's
# `postgresql`, started as the postgres user when this runs as root) on a free loopback port,
# unless XQFARM_TEST_POSTGRES already names one. Without PostgreSQL those cases skip, saying so,
# unless XQFARM_REQUIRE_POSTGRES=1 makes that a failure.
if [ -z "${XQFARM_TEST_POSTGRES:-}" ]; then
  pg_dir="$(mktemp -d "${TMPDIR:-/tmp}/xqfarm-pg.XXXXXX")"
  pg_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  if pg_url="$(deploy/postgres/server.sh start "$pg_dir" "$pg_port")"; then
    export XQFARM_TEST_POSTGRES="$pg_url"
    cleanups+=('deploy/postgres/server.sh stop "$pg_dir"; rm -rf "$pg_dir"')
  elif [ "${XQFARM_REQUIRE_POSTGRES:-}" = 1 ]; then
    echo "test-all.sh: could not start PostgreSQL, and XQFARM_REQUIRE_POSTGRES=1" >&2
    exit 1
  else
    echo "test-all.sh: no PostgreSQL server; its storage cases will skip" >&2
    rm -rf "$pg_dir"
  fi
fi
# The test binaries are built first, as a stage of their own, so that the table shows the build
# and the run apart.
stage build cargo test --workspace --no-run
stage rust cargo test --workspace

# The browser tests drive the xqfarm binary that `cargo test` just built for the CLI tests.
target="${CARGO_TARGET_DIR:-$PWD/target}"
export XQFARM_BIN="${XQFARM_BIN:-$target/debug/xqfarm}"
stage browser web/e2e/run.sh
stage slurm deploy/slurm/test.sh
stage k8s deploy/k8s/test.sh
