#!/bin/bash
# Writes farm-v6.db (SQLite schema version 6) and data-v6/ (Parquet schema version 1) with an
# xqfarm binary of those versions (commit a9126ec, the last before Parquet schema version 2;
# the committed files were made by a debug build of it): X=path/to/xqfarm ./make-farm-v6.sh in
# an empty directory.
# The result is committed; tests/it/parquet_migration.rs opens it with the current build.
#
# A suite of four lines of 0 to 3 moves, one completed run of 4 pairs (one per line, positions
# sampled every 4 plies) and the `runs` table. Parquet schema 2 adds games.opening_fen and
# games.opening_moves, which the coordinator fills in from the suite when it starts; no other
# value of a games or positions file may change.
set -e
X=${X:?set X to an xqfarm binary built from commit a9126ec}
export XQFARM_TOKEN=fixture XQFARM_LOG=warn

rm -rf farm-v6.db* data-v6 s1 ./*.log
$X serve --listen 127.0.0.1:0 --db farm-v6.db --data data-v6 2> serve.log &
SERVE=$!
for i in $(seq 100); do grep -q "coordinator on" serve.log && break; sleep 0.2; done
ADDR=$(grep "coordinator on" serve.log | awk '{print $4}')
U="--coordinator http://$ADDR"
printf 'startpos\nstartpos moves c3c4\nstartpos moves h2e2 h9g7\nstartpos moves b2e2 b9c7 b0c2\n' > suite.txt
: > base.toml
printf '[material.rook]\nmg = 800\neg = 900\n' > weak.toml
A=$($X variant add base.toml $U | awk '{print $1}')
B=$($X variant add weak.toml $U | awk '{print $1}')
S=$($X openings add suite.txt --name four $U | awk '{print $1}')
R1=$($X run create $U --name done-run --kind games --pairs 4 --tc nodes=1000 --sample-every 4 --suite $S --variants $A $B)
$X worker $U --spool s1 --concurrency 1 --name w-done --max-leases 1 2> w1.log
$X run show $U $R1
kill -INT $SERVE
wait $SERVE
rm -rf data-v6/.tmp
find data-v6 -type f | sort
