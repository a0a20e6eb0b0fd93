#!/usr/bin/env bash
# A private PostgreSQL server for the tests, from Debian's `postgresql` package:
#   deploy/postgres/server.sh start DIR PORT   initdb in DIR (once), start on 127.0.0.1:PORT, and
#                                              print the superuser's URL (password auth, scram)
#   deploy/postgres/server.sh stop DIR         stop it
# PostgreSQL refuses to run as root: as root, DIR belongs to the `postgres` user and the server
# runs as that user. It listens on loopback only, with its socket in DIR.
set -euo pipefail

cmd="${1:?usage: server.sh start DIR PORT | stop DIR}"
dir="${2:?usage: server.sh start DIR PORT | stop DIR}"

bindir=""
for d in /usr/lib/postgresql/*/bin; do
  [ -x "$d/initdb" ] && bindir="$d"
done
if [ -z "$bindir" ]; then
  echo "server.sh: no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)" >&2
  exit 3
fi

as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

case "$cmd" in
  start)
    port="${3:?usage: server.sh start DIR PORT}"
    password="xqfarm-test"
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      echo "$password" > "$dir/pwfile"
      [ "$(id -u)" = 0 ] && chown postgres: "$dir/pwfile"
      as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A scram-sha-256 --pwfile="$dir/pwfile" \
        --no-sync >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >/dev/null \
      || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgres://postgres:$password@127.0.0.1:$port/postgres"
    ;;
  stop)
    [ -f "$dir/data/postmaster.pid" ] && as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
  *)
    echo "server.sh: unknown command $cmd (start or stop)" >&2
    exit 2
    ;;
esac
