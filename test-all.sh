#!/usr/bin/env bash
# Every test of the repository, in the order that fails fastest: format and the lint of the CI
# examples in docs/ci (actionlint, check-jsonschema: seconds, docs/ci/test.sh); clippy with
# -D warnings over every target and the test build, as one compilation; then three lanes at once:
# the Rust tests (`cargo test --workspace`, with a private PostgreSQL server for the storage
# conformance suite), the multi-host fault test in network namespaces (as root, with a server of
# its own: xqfarm/tests/it/netns_faults.rs), and one after another the browser tests (web/e2e:
# Debian's Chromium driven by playwright-core under `node --test`, against a real `xqfarm serve`
# and worker), the cluster tests (deploy/slurm: a real slurmctld and slurmd running the worker
# array job; they need root and say so when skipped, unless XQFARM_REQUIRE_SLURM=1 makes that a
# failure) and the Kubernetes manifests, Dockerfile and Grafana dashboard checked offline
# (deploy/k8s/test.sh). It closes with a table of each stage's seconds and passed tests.
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
# Slurm script's `test N passed` lines, the Kubernetes checks' and the CI lint's `N passed, N failed`.
count_passed() {
  awk '
    /^test result: ok\./ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^passed;?$/) n += $i }
    /^# pass [0-9]+$/ { n += $3 }
    /^test [0-9]+ passed/ { n += 1 }
    /^deploy\/k8s: [0-9]+ passed/ { n += $2 }
    /^docs\/ci: [0-9]+ passed/ { n += $2 }
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
# lane NAME...: runs the stages NAME... (the functions run_NAME) one after another in the
# background, each one's output logged only, and stops at the first that fails; wait_stages
# collects every lane (each stage's row in the table, and a failed stage's whole log).
declare -a bg_names=() bg_pids=()
quiet() {
  local name="$1" t0=$SECONDS rc
  shift
  "$@" > "$logs/$name.log" 2>&1
  rc=$?
  echo "$rc $((SECONDS - t0))" > "$logs/$name.status"
  return "$rc"
}
lane() {
  local name
  echo "== in the background, one after another: $* (output in $logs/)"
  (
    set +e
    for name in "$@"; do quiet "$name" "run_$name" || exit 1; done
  ) &
  local pid=$!
  for name in "$@"; do
    bg_names+=("$name")
    bg_pids+=("$pid")
  done
}
wait_stages() {
  local i name rc secs n failed=0
  for i in "${!bg_names[@]}"; do
    name="${bg_names[$i]}"
    wait "${bg_pids[$i]}" 2>/dev/null || true
    if [ ! -f "$logs/$name.status" ]; then
      echo "== $name: not run (an earlier stage of its lane failed)"
      stage_rows+=("$name - -")
      failed=1
      continue
    fi
    read -r rc secs < "$logs/$name.status"
    n="$(count_passed "$logs/$name.log")"
    total_passed=$((total_passed + n))
    stage_rows+=("$name $secs $n")
    if [ "$rc" = 0 ]; then
      echo "== $name: ok, $n passed in $secs s"
    else
      echo "== $name: FAILED (exit $rc); its output:"
      cat "$logs/$name.log"
      failed=1
    fi
  done
  bg_names=()
  bg_pids=()
  return "$failed"
}

stage fmt cargo fmt --all --check
# The GitHub and GitLab examples of docs/ci, which cannot run here, linted offline (about a
# second; actionlint and check-jsonschema from PATH, which .ci/run installs).
stage ci-lint docs/ci/test.sh

# Clippy and the test build are one compilation: clippy-driver compiles the workspace's crates
# (lints, then code) as `cargo clippy` runs it, and the tests below reuse what it built. The
# dependencies are plain rustc's, shared with any other debug build; the workspace's own crates are
# rebuilt when a later cargo command runs without this wrapper.
clippy_driver="$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver || true)"
[ -x "$clippy_driver" ] || { echo "test-all.sh: clippy-driver not found (rustup component add clippy)" >&2; exit 1; }
export RUSTC_WORKSPACE_WRAPPER="$clippy_driver"
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"

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
# Clippy (-D warnings) over every target and the test binaries, built once as a stage of its own
# so that the table shows the build and the run apart.
stage clippy+build cargo test --workspace --all-targets --no-run

# Then the tests in three lanes at once, since the slowest ones mostly wait: the Rust tests; the
# multi-host fault test, about 110 s of waiting on partitions and lease expiries (in its own lane,
# it does not hold the others' finish); and the browser, Slurm and Kubernetes tests one after
# another. The browser tests drive the xqfarm binary that the build just made for the CLI tests.
target="${CARGO_TARGET_DIR:-$PWD/target}"
export XQFARM_BIN="${XQFARM_BIN:-$target/debug/xqfarm}"
# (--workspace, as the build: cargo -p would resolve the features anew and rebuild.)
run_netns() { cargo test --workspace --test it netns_faults::; }
run_browser() { web/e2e/run.sh; }
run_slurm() { deploy/slurm/test.sh; }
run_k8s() { deploy/k8s/test.sh; }
lane netns
lane browser slurm k8s
rust_rc=0
stage rust cargo test --workspace -- --skip netns_faults:: || rust_rc=$?
wait_stages
exit "$rust_rc"
