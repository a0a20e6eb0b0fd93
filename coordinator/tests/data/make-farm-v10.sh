#!/bin/bash
# Writes farm-v10.db (SQLite schema version 10) with an xqfarm binary of that version (the last
# before schema 11; the committed file was made by a debug build of commit df61f06):
# X=path/to/xqfarm XQENGINE=path/to/xqengine ./make-farm-v10.sh in an empty directory.
# The result is committed; tests/it/migration.rs opens it with the current build.
#
# The same farm in PostgreSQL (schema version 3, SQLite's 10), `pg-v3.sql`: with DB set to an
# empty database's URL (DB=postgres://postgres:xqfarm-test@127.0.0.1:55439/fx10), then
#   pg_dump --inserts --no-owner --no-privileges --no-comments fx10 | grep -v -e '^.restrict' -e '^.unrestrict' > pg-v3.sql
# (the SQL the test replays; psql's restrict lines removed).
#
# `pg-v4.sql` (PostgreSQL schema version 4) is the same farm written by a release build of
# commit 6f1f353 (schema 4: the same commands, DB=.../fx11), dumped the same way.
#
# A suite of four lines, a network (made-up weights, hidden size 16), two variants (`base`, the
# HCE, and `net`, which names the network), one completed games run `net-run` (run 1) of 1 pair
# at nodes=1000, played in one lease by one worker registered with a given bench speed of
# 500000 nps (schema 10 keeps no SIMD level and no speed with a network).
set -e
X=${X:?set X to an xqfarm binary of SQLite schema version 10}
XQENGINE=${XQENGINE:?set XQENGINE to the xqengine binary of the same build}
export XQFARM_TOKEN=fixture XQFARM_LOG=warn

DB=${DB:-farm-v10.db}
rm -rf farm-v10.db* s1 ./*.log
$X serve --listen 127.0.0.1:0 --db "$DB" --data data 2> serve.log &
SERVE=$!
for i in $(seq 100); do grep -q "coordinator on" serve.log && break; sleep 0.2; done
ADDR=$(grep "coordinator on" serve.log | awk '{print $4}')
U="--coordinator http://$ADDR"
printf 'startpos\nstartpos moves c3c4\nstartpos moves h2e2 h9g7\nstartpos moves b2e2 b9c7 b0c2\n' > suite.txt
$XQENGINE nnue random --out net.nnue --hidden 16 --seed 10 > /dev/null
N=$($X network add net.nnue $U | awk '{print $1}')
: > base.toml
printf 'eval = "nnue:%s"\n' "$N" > net.toml
A=$($X variant add base.toml $U | awk '{print $1}')
B=$($X variant add net.toml $U | awk '{print $1}')
S=$($X openings add suite.txt --name four $U | awk '{print $1}')
R1=$($X run create $U --name net-run --kind games --pairs 1 --tc nodes=1000 --suite $S --variants $A $B)
$X worker $U --spool s1 --concurrency 1 --name w-measured --bench-nps 500000 --max-leases 1 2> w1.log
$X run show $U $R1
kill -INT $SERVE
wait $SERVE
rm -rf s1 data suite.txt base.toml net.toml net.nnue ./*.log
