#!/bin/bash
# Writes farm-v1.db (schema version 1) with the xqfarm binary of commit 0bcb051, the last
# commit before schema version 2: X=path/to/that/xqfarm ./make-farm-v1.sh in an empty directory.
# The result is committed; tests/it/migration.rs opens it with the current build.
set -e
X=${X:?set X to an xqfarm binary built from commit 0bcb051}
export XQFARM_TOKEN=fixture XQFARM_LOG=warn

rm -rf farm-v1.db* data s1 s2 ./*.log
$X serve --listen 127.0.0.1:0 --db farm-v1.db --data data 2> serve.log &
SERVE=$!
for i in $(seq 100); do grep -q "coordinator on" serve.log && break; sleep 0.2; done
ADDR=$(grep "coordinator on" serve.log | awk '{print $4}')
U="--coordinator http://$ADDR"
printf 'startpos moves h2e2 h9g7\nstartpos moves c3c4\nstartpos moves b0c2 b9c7\n' > suite.txt
: > base.toml
printf '[material.rook]\nmg = 800\neg = 900\n' > weak.toml
A=$($X variant add base.toml $U | awk '{print $1}')
B=$($X variant add weak.toml $U | awk '{print $1}')
F=$($X variant add --external "/usr/games/fairy-stockfish" --protocol ucci --option UCI_Variant=xiangqi --name fairy $U | awk '{print $1}')
S=$($X openings add suite.txt --name three $U | awk '{print $1}')
R1=$($X run create $U --name done-run --kind games --pairs 2 --tc nodes=1000 --sample-every 4 --suite $S --variants $A $B)
$X worker $U --spool s1 --concurrency 1 --name w-done --max-leases 1 2> w1.log
$X run show $U $R1
R2=$($X run create $U --name half-run --kind games --pairs 6 --tc nodes=20000 --suite $S --variants $A $B)
$X worker $U --spool s2 --concurrency 1 --name w-killed 2> w2.log &
W2=$!
for i in $(seq 600); do
  G=$($X run show $U $R2 | awk '/^games:/ {print $2}')
  [ "${G:-0}" -ge 2 ] && break
  sleep 0.2
done
kill -9 $W2
wait $W2 || true
$X run show $U $R2
R3=$($X run create $U --name sprt-run --kind sprt --elo0 0 --elo1 10 --model logistic --bench-signature 12345 --tc 10+0.1 --suite $S --variants $B $A)
R4=$($X run create $U --name stopped-run --kind round-robin --pairs 3 --tc depth=3 --suite $S --variants $A $B $F)
$X run stop $U $R4 > /dev/null
$X run list $U
kill -INT $SERVE
wait $SERVE
ls -la
