#!/usr/bin/env bash
# The Slurm tests, for real: a private munged, slurmctld and slurmd on this machine (Debian's
# slurm-wlm and munge), and deploy/slurm/xqfarm-worker.sbatch submitted as a 2-task array
# against a local `xqfarm serve`:
#   1. a run completes, played by both array tasks, every pair counted once (Parquet's games
#      equal the coordinator's count, each pair exactly two games), and both tasks exit 0 by
#      --idle-exit;
#   2. one task is scancelled mid-run (SIGTERM, Slurm's preemption signal): the other task
#      finishes the run and again every pair is counted exactly once.
#
# The daemons need root. Without root or without the packages the tests are skipped, saying
# why; XQFARM_REQUIRE_SLURM=1 (set by .ci/run) turns a skip into a failure. XQFARM_BIN names
# the xqfarm binary (default: target/debug/xqfarm). SLURM_TEST_KEEP=1 keeps the temp directory.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"

skip() {
  if [[ "${XQFARM_REQUIRE_SLURM:-0}" == 1 ]]; then
    echo "slurm tests: cannot run: $1 (XQFARM_REQUIRE_SLURM=1)" >&2
    exit 1
  fi
  echo "slurm tests: skipped: $1"
  exit 0
}
[[ "$(id -u)" == 0 ]] || skip "slurmctld and slurmd are started as root here, and this is uid $(id -u)"
for cmd in slurmctld slurmd sbatch squeue scancel scontrol munged munge python3; do
  command -v "$cmd" >/dev/null || [[ -x "/usr/sbin/$cmd" ]] \
    || skip "no $cmd (apt-get install slurm-wlm munge)"
done
python3 -c 'import pyarrow' 2>/dev/null || skip "python3 has no pyarrow (pip install pyarrow)"
bin="$(realpath -m "${XQFARM_BIN:-${CARGO_TARGET_DIR:-$root/target}/debug/xqfarm}")"
[[ -x "$bin" ]] || { echo "slurm tests: no xqfarm binary at $bin (cargo build, or set XQFARM_BIN)" >&2; exit 2; }
PATH="/usr/sbin:$PATH"

dir="$(mktemp -d /tmp/xqfarm-slurm-XXXXXX)"
chmod 755 "$dir"
pids=()
cleanup() {
  local rc=$?
  if [[ $rc != 0 ]]; then
    for f in "$dir"/log/*.log "$dir"/out/*.out; do
      [[ -f "$f" ]] && { echo "--- $f"; tail -n 40 "$f"; }
    done
  fi
  [[ -n "${SLURM_CONF:-}" ]] && scancel --quiet --user=root 2>/dev/null || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for f in "$dir"/run/*.pid; do [[ -f "$f" ]] && kill "$(cat "$f")" 2>/dev/null || true; done
  sleep 1
  [[ "${SLURM_TEST_KEEP:-0}" == 1 ]] && echo "kept $dir" || rm -rf "$dir"
  exit $rc
}
trap cleanup EXIT
mkdir -p "$dir"/{log,out,state,spool,run,farm,spools} && chmod 700 "$dir/run"
mkdir -m 755 "$dir/munge"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
until_true() { # until_true SECONDS WHAT CMD...: polls CMD every second
  local secs=$1 what=$2; shift 2
  for ((i = 0; i < secs; i++)); do "$@" && return 0; sleep 1; done
  echo "slurm tests: timed out after ${secs}s waiting for $what" >&2
  return 1
}

# A private munge: its own key and socket, so the machine's own munge (if any) is untouched.
dd if=/dev/urandom of="$dir/run/munge.key" bs=1024 count=1 status=none
chmod 600 "$dir/run/munge.key"
munged --socket="$dir/munge/munge.sock" --key-file="$dir/run/munge.key" --pid-file="$dir/run/munged.pid" \
  --log-file="$dir/log/munged.log" --seed-file="$dir/run/munged.seed"
until_true 10 munged munge -S "$dir/munge/munge.sock" -n >/dev/null

# One node (this machine, under a fixed name) with every core, on ports of our own.
node=xqnode
cpus="$(nproc)"
export SLURM_CONF="$dir/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=xqfarm-test
SlurmctldHost=$(hostname)(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
KillWait=30
MinJobAge=3600
NodeName=$node NodeHostname=$(hostname) NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF" -N "$node"
until_true 30 "node $node idle in sinfo" bash -c "sinfo -h -N -o %T | grep -q idle"

# The farm: a coordinator, two in-process variants, four openings.
port="$(free_port)"
export XQFARM_TOKEN=slurm-test-token
url="http://127.0.0.1:$port"
"$bin" serve --listen "127.0.0.1:$port" --db "$dir/farm/farm.db" --data "$dir/farm/data" \
  >"$dir/log/serve.log" 2>&1 &
pids+=($!)
until_true 60 "xqfarm serve on $url" curl -sf "$url/api/me" -o /dev/null
cli() { "$bin" "$@" --coordinator "$url"; }
echo '# the default parameters' >"$dir/farm/a.toml"
printf "[material.rook]\nmg = 700\neg = 800\n" >"$dir/farm/b.toml"
printf '%s\n' 'startpos moves h2e2 h9g7' 'startpos moves b2e2 b9c7' 'startpos moves g3g4 c6c5' \
  'startpos moves h0g2 h7h3' >"$dir/farm/openings.txt"
va="$(cli variant add "$dir/farm/a.toml" --name a | awk '{print $1}')"
vb="$(cli variant add "$dir/farm/b.toml" --name b | awk '{print $1}')"
suite="$(cli openings add "$dir/farm/openings.txt" | awk '{print $1}')"

# Every pair counted once, from a run's Parquet games: as many rows as the coordinator counts
# (argv[2]), no game id twice, every pair exactly two games; writes the workers that played.
cat >"$dir/counted_once.py" <<'EOF'
import collections, pathlib, sys
import pyarrow.parquet as pq
parts = sorted(pathlib.Path(sys.argv[1]).glob("*.parquet"))
rows = [r for p in parts for r in pq.read_table(p, columns=["game_id", "pair_id", "worker"]).to_pylist()]
if len(rows) != int(sys.argv[2]):
    sys.exit(1)  # not exported yet (or a game missing): the caller polls
ids = collections.Counter(r["game_id"] for r in rows)
pairs = collections.Counter(r["pair_id"] for r in rows)
assert max(ids.values()) == 1, f"a game id twice: {ids.most_common(1)}"
assert set(pairs.values()) == {2}, f"a pair without exactly two games: {pairs}"
with open(sys.argv[1] + ".workers", "w") as out:
    print(" ".join(sorted({r["worker"] for r in rows})), file=out)
EOF
run_games() { cli run show "$1" | awk '/^games:/ {print $2}'; }
run_state() { cli run show "$1" | awk '/^state:/ {print $2}'; }
# Every pair of run $1 counted once: $2 pairs, each exactly two games in Parquet, as many games
# as the coordinator counts; prints the workers that played.
check_counted_once() {
  local run=$1 pairs=$2
  until_true 300 "run $run to finish" bash -c "[[ \$(\"$bin\" run show $run --coordinator $url | awk '/^state:/ {print \$2}') == completed ]]"
  local games
  games="$(run_games "$run")"
  [[ "$games" == $((2 * pairs)) ]] || { echo "run $run: the coordinator counts $games games, expected $((2 * pairs))" >&2; return 1; }
  until_true 60 "run $run's Parquet games" python3 "$dir/counted_once.py" "$dir/farm/data/games/run=$run" "$games"
  cat "$dir/farm/data/games/run=$run.workers"
}
submit() { # submit NAME: a 2-task array, one CPU each; prints the array job id
  XQFARM_COORDINATOR="$url" XQFARM_SPOOL_ROOT="$dir/spools" XQFARM_BIN="$bin" XQFARM_IDLE_EXIT=5s \
    sbatch --parsable --array=0-1 --cpus-per-task=1 --job-name="$1" \
    --output="$dir/out/%x-%A_%a.out" deploy/slurm/xqfarm-worker.sbatch --bench-nps 1000000
}
task_field() { scontrol show job "$1" | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k {print $2; exit}'; }
array_done() { [[ -z "$(squeue -h -j "$1" 2>/dev/null)" ]]; }

# 1. A run played by both tasks of the array, both ending by --idle-exit. Batches hold at most
#    64 pairs, so 100 pairs make two leases, one a task.
run1="$(cli run create --kind games --variants "$va" "$vb" --suite "$suite" --pairs 100 --tc nodes=600 --name slurm-1)"
job1="$(submit xqfarm-slurm-1)"
echo "test 1: run $run1, array job $job1"
workers="$(check_counted_once "$run1" 100)"
until_true 120 "array job $job1 to end by --idle-exit" array_done "$job1"
for t in 0 1; do
  state="$(task_field "${job1}_$t" JobState)" code="$(task_field "${job1}_$t" ExitCode)"
  [[ "$state" == COMPLETED && "$code" == 0:0 ]] || { echo "task ${job1}_$t: $state, exit $code" >&2; exit 1; }
  [[ " $workers " == *" slurm-${job1}_$t "* ]] || { echo "task ${job1}_$t played no game of run $run1 (workers: $workers)" >&2; exit 1; }
done
echo "test 1 passed: 200 games, each pair once, played by $workers; both tasks exited 0"

# 2. scancel of one task mid-run: its games in progress go back to the pool, the other task
#    plays them, and every pair is still counted exactly once. Each task holds a lease (64 and
#    36 pairs) when task 1 is cancelled.
run2="$(cli run create --kind games --variants "$va" "$vb" --suite "$suite" --pairs 100 --tc nodes=3000 --name slurm-2)"
job2="$(submit xqfarm-slurm-2)"
echo "test 2: run $run2, array job $job2"
until_true 120 "run $run2's first games" bash -c "[[ \$(\"$bin\" run show $run2 --coordinator $url | awk '/^games:/ {print \$2}') -ge 4 ]]"
until_true 60 "task ${job2}_1 to be running" bash -c "[[ \$(squeue -h -j ${job2}_1 -o %T) == RUNNING ]]"
scancel "${job2}_1"
at_cancel="$(run_games "$run2")"
until_true 60 "task ${job2}_1 to end" bash -c "[[ -z \$(squeue -h -j ${job2}_1) ]]"
state="$(task_field "${job2}_1" JobState)"
[[ "$state" == CANCELLED ]] || { echo "task ${job2}_1 is $state after scancel" >&2; exit 1; }
[[ "$(run_state "$run2")" == active ]] || { echo "run $run2 ended before the other task finished it" >&2; exit 1; }
workers="$(check_counted_once "$run2" 100)"
echo "test 2 passed: task ${job2}_1 cancelled at $at_cancel of 200 games; 200 games, each pair once, played by $workers"
