#!/bin/bash
# Writes farm-v5.db (schema version 5) with an xqfarm binary of schema version 5 (commit 61e0615,
# the last before schema version 6; the committed file was made by a debug build of it):
# X=path/to/xqfarm ./make-farm-v5.sh in an empty directory.
# The result is committed; tests/it/migration.rs opens it with the current build.
#
# The farm make-farm-v3.sh makes (runs of every kind and state, an engine run, a killed worker's
# lease), then, on the same database: half-run stopped once the killed worker's lease expired (its
# unfinished pairs back in the pool), and a completed SPSA run of 4 pairs played by a fourth
# worker (schema 5's SPSA tables: parameters, theta, history, one lease's perturbation).
# Schema 6 adds workers.bench_nps and leases.tc_scale_permille: every old worker is unmeasured
# (0) and every old lease was granted unscaled (1000); no row may change otherwise.
set -e
X=${X:?set X to an xqfarm binary built from commit 61e0615}
export XQFARM_TOKEN=fixture XQFARM_LOG=warn
X=$X bash "$(dirname "$0")/make-farm-v3.sh"

$X serve --listen 127.0.0.1:0 --db farm-v3.db --data data 2> serve5.log &
SERVE=$!
for i in $(seq 100); do grep -q "coordinator on" serve5.log && break; sleep 0.2; done
ADDR=$(grep "coordinator on" serve5.log | awk '{print $4}')
U="--coordinator http://$ADDR"
A=$($X variant add base.toml $U | awk '{print $1}')
echo 'search.rfp_margin,90,20,300,10,0.002' > spsa.csv
# Past the killed worker's lease deadline (30 s): the next lease call expires it.
sleep 31
$X run stop $U 3 > /dev/null
R6=$($X run create $U --name spsa-run --kind spsa --pairs 4 --tc nodes=1000 --suite 1 --variants $A --spsa-params spsa.csv)
$X worker $U --spool s4 --concurrency 1 --name w-spsa --max-leases 1 2> w4.log
$X run show $U $R6
$X run list $U
kill -INT $SERVE
wait $SERVE
mv farm-v3.db farm-v5.db
ls -la
