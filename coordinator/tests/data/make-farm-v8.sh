#!/bin/bash
# Writes farm-v8.db (SQLite schema version 8) and data-v8/ (Parquet schema version 2) with an
# xqfarm binary of that version (the last before SQLite schema 9 and Parquet schema 3; the
# committed files were made by a debug build from before the datagen branch, whose base is
# commit f1bfb31):
# X=path/to/xqfarm ./make-farm-v8.sh in an empty directory.
# The result is committed; tests/it/migration.rs and tests/it/parquet_migration.rs open it with
# the current build.
#
# The same farm in PostgreSQL (schema version 1, SQLite's 8), `pg-v1.sql`: with DB set to an empty
# database's URL (DB=postgres://postgres:xqfarm-test@127.0.0.1:55433/fx8), then
#   pg_dump --inserts --no-owner --no-privileges --no-comments fx8 | grep -v -e '^.restrict' -e '^.unrestrict' > pg-v1.sql
# (the SQL the test replays; psql's restrict lines removed).
#
# A suite of four lines, two variants, one completed games run `sampled-run` (run 1) of 2 pairs,
# positions sampled every 4 plies (their `search_score` NOT NULL, the static evaluation where the
# engine gave none), played by one worker in one lease.
set -e
X=${X:?set X to an xqfarm binary of SQLite schema version 8}
export XQFARM_TOKEN=fixture XQFARM_LOG=warn

DB=${DB:-farm-v8.db}
rm -rf farm-v8.db* data-v8 s1 ./*.log
if [ "$DB" = farm-v8.db ]; then DATA="--data data-v8"; else DATA=""; fi
$X serve --listen 127.0.0.1:0 --db "$DB" $DATA 2> serve.log &
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
R1=$($X run create $U --name sampled-run --kind games --pairs 2 --tc nodes=1000 --sample-every 4 --suite $S --variants $A $B)
$X worker $U --spool s1 --concurrency 1 --name w-games --max-leases 1 2> w1.log
$X run show $U $R1
kill -INT $SERVE
wait $SERVE
rm -rf s1 suite.txt base.toml weak.toml ./*.log
