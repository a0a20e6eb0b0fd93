#!/bin/bash
# Writes farm-v4.db (schema version 4) with an xqfarm binary of schema version 4 (commit e2cadce,
# the last before schema version 5; the committed file was made by a debug build of it):
# X=path/to/xqfarm ./make-farm-v4.sh in an empty directory.
# The result is committed; tests/it/migration.rs opens it with the current build.
#
# The same farm as make-farm-v3.sh makes (runs of every kind and state, an engine run, a killed
# worker's expired lease), written by schema 4 itself: its tallies kept by triggers. Schema 5
# widens the check of runs.kind in place and adds the SPSA tables; it must keep every row.
set -e
X=${X:?set X to an xqfarm binary built from commit e2cadce}
X=$X bash "$(dirname "$0")/make-farm-v3.sh"
mv farm-v3.db farm-v4.db
