#!/usr/bin/env bash
# The round trips one v1 PUT costs lib-server on PostgreSQL: the statements
# PostgreSQL logs for it (log_statement = all), one per line, and the round
# trips they went in (lib-server's sends to PostgreSQL, seen by strace: the
# statements of one round trip go in one send, libpq's pipeline mode).
# docs/ARCHITECTURE.md records the count, so that the next change to the write
# path is measured against it. WriteRoundTripTests asserts it in `make test-postgres`.
#
# usage: scripts/with-postgres.sh bench/put-round-trips.sh [BIN_DIR]   (default .build/debug)
set -euo pipefail
bin=${1:-.build/debug}
[ -n "${LIB_TEST_POSTGRES:-}" ] || { echo "run it under scripts/with-postgres.sh" >&2; exit 2; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base=http://127.0.0.1:$port
psql "$LIB_TEST_POSTGRES" -qc "ALTER SYSTEM SET log_statement = 'all'" -c "SELECT pg_reload_conf()" >/dev/null
psql "$LIB_TEST_POSTGRES" -qc "CREATE DATABASE put_round_trips" >/dev/null
"$bin/lib-server" --db "${LIB_TEST_POSTGRES%/postgres}/put_round_trips" --listen "127.0.0.1:$port" --demo >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 100); do curl -sf "$base/v2/capabilities" >/dev/null && break; sleep 0.1; done
token=$(curl -s -H 'Content-Type: application/json' -d '{"username":"alice","password":"alice-demo"}' "$base/v1/sessions" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')
etag=$(curl -s -D - -o /dev/null -H "Authorization: Bearer $token" "$base/v1/books/b-7" | tr -d '\r' | awk -F': ' 'tolower($1) == "etag" { print $2 }')
log=$(psql "$LIB_TEST_POSTGRES" -Atc "SELECT setting FROM pg_settings WHERE name = 'data_directory'")/../server.log
before=$(wc -l < "$log")
sends=$(mktemp)
strace -f -qq -e trace=sendto -s 4 -p "$server" -o "$sends" &
tracer=$!
sleep 0.5
status=$(curl -s -o /dev/null -w '%{http_code}' -X PUT -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
  -H "If-Match: $etag" -H 'Idempotency-Key: round-trips-1' \
  -d '{"id":"b-7","title":"Dune","author":"Frank Herbert","year":1965,"copies":3}' "$base/v1/books/b-7")
[ "$status" = 200 ] || { echo "the PUT answered $status" >&2; exit 1; }
sleep 0.3
kill "$tracer"; wait "$tracer" 2>/dev/null || true
# Every message to PostgreSQL starts with its type: P (parse), Q (query); answers to HTTP clients with "HTTP".
trips=$(grep -cE 'sendto\([0-9]+, "(P|Q)\\0' "$sends" || true)
rm -f "$sends"
statements=$(tail -n "+$((before + 1))" "$log" | grep -E 'LOG:  (statement|execute)' | sed -E 's/.*LOG:  (statement: |execute [^:]*: )//' | cut -c1-110)
echo "$statements"
echo "statements for one PUT: $(echo "$statements" | wc -l)"
echo "round trips for one PUT: $trips"
