#!/bin/bash
# Writes farm-v8.db (SQLite schema version 8) with an xqfarm binary of that version (commit
# f1bfb31, the last before schema version 9; the committed file was made by a release build of
# it): X=path/to/xqfarm ./make-farm-v8.sh in an empty directory.
# The result is committed; tests/it/migration.rs opens it with the current build.
#
# A suite of four lines, three variants, one completed round robin `rr-run` (run 1) of 1 pair
# per pairing (3 pairs), played by one worker in one lease, and a stopped SPRT `stopped-sprt`
# (run 2) that was never leased.
set -e
X=${X:?set X to an xqfarm binary built from commit f1bfb31}
export XQFARM_TOKEN=fixture XQFARM_LOG=warn

rm -rf farm-v8.db* data-v8 s1 ./*.log
$X serve --listen 127.0.0.1:0 --db farm-v8.db --data data-v8 2> serve.log &
SERVE=$!
for i in $(seq 100); do grep -q "coordinator on" serve.log && break; sleep 0.2; done
ADDR=$(grep "coordinator on" serve.log | awk '{print $4}')
U="--coordinator http://$ADDR"
printf 'startpos\nstartpos moves c3c4\nstartpos moves h2e2 h9g7\nstartpos moves b2e2 b9c7 b0c2\n' > suite.txt
: > base.toml
printf '[material.rook]\nmg = 800\neg = 900\n' > weak.toml
printf '[material.knight]\nmg = 200\neg = 250\n' > weaker.toml
A=$($X variant add base.toml $U | awk '{print $1}')
B=$($X variant add weak.toml $U | awk '{print $1}')
C=$($X variant add weaker.toml $U | awk '{print $1}')
S=$($X openings add suite.txt --name four $U | awk '{print $1}')
R1=$($X run create $U --name rr-run --kind round-robin --pairs 1 --tc nodes=1000 --sample-every 4 --suite $S --variants $A $B $C)
$X worker $U --spool s1 --concurrency 1 --name w-rr --max-leases 1 2> w1.log
$X run show $U $R1
R2=$($X run create $U --name stopped-sprt --kind sprt --tc nodes=1000 --suite $S --variants $B $A)
$X run stop $U $R2
kill -INT $SERVE
wait $SERVE
rm -rf data-v8 s1 suite.txt base.toml weak.toml weaker.toml ./*.log
