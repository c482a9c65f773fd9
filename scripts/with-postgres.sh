#!/usr/bin/env bash
# Runs a command with a private PostgreSQL cluster: initdb in a temporary
# directory, run as an unprivileged user (postgres refuses root), listening
# on 127.0.0.1 on a free port. The command gets
#   LIB_TEST_POSTGRES=postgresql://lib@127.0.0.1:PORT/postgres
# (trust authentication, superuser 'lib', so tests can create databases).
# The cluster is stopped and removed afterwards, whatever the command did.
set -euo pipefail

bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
[ -x "$bin/initdb" ] || { echo "with-postgres: no PostgreSQL in $bin (scripts/install-deps.sh installs it)" >&2; exit 1; }

dir=$(mktemp -d /tmp/lib-postgres.XXXXXX)
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
  id lib-postgres >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin lib-postgres
  chown lib-postgres "$dir"
  as_owner=(runuser -u lib-postgres --)
fi
cleanup() {
  "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U lib -A trust -E UTF8 --no-locale --no-sync >"$dir/initdb.log" 2>&1 \
  || { cat "$dir/initdb.log" >&2; exit 1; }
# fsync off: a test cluster is thrown away, durability buys nothing here.
"${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c max_connections=300" \
  start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }

export LIB_TEST_POSTGRES="postgresql://lib@127.0.0.1:$port/postgres"
set +e
"$@"
status=$?
set -e
if [ $status -ne 0 ]; then
  echo "with-postgres: the command failed ($status); the cluster's log ends:" >&2
  tail -n 40 "$dir/server.log" >&2 || true
fi
exit $status
