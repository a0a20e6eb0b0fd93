#!/usr/bin/env bash
# The browser tests: playwright-core (pinned, no browser download) driving /usr/bin/chromium
# against a real `xqfarm serve`. XQFARM_BIN names the binary (default ../../target/debug/xqfarm);
# CHROMIUM overrides the browser; E2E_LOG=1 shows the farm's output; E2E_KEEP=1 keeps temp dirs.
# Extra arguments are passed to `node --test` (e.g. tests/static.test.mjs).
set -euo pipefail
cd "$(dirname "$0")"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
export XQFARM_BIN="$(realpath -m "${XQFARM_BIN:-../../target/debug/xqfarm}")"
if [[ ! -x "$XQFARM_BIN" ]]; then
  echo "run.sh: no xqfarm binary at $XQFARM_BIN (build it: cargo build --workspace, or set XQFARM_BIN)" >&2
  exit 2
fi
if [[ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]]; then
  echo "run.sh: no Chromium at ${CHROMIUM:-/usr/bin/chromium} (apt-get install chromium, or set CHROMIUM)" >&2
  exit 2
fi
npm ci --no-audit --no-fund --loglevel=error
if [[ $# -eq 0 ]]; then set -- tests/static.test.mjs tests/contract.test.mjs tests/farm.test.mjs tests/play.test.mjs tests/tablebase.test.mjs tests/tournament.test.mjs; fi
exec node --test --test-concurrency=1 "$@"
