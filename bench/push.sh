#!/usr/bin/env bash
# `lib push` of 1,000 writes over loopback against curl sending the same
# 1,000 PUTs over one reused connection (rate ratio, budget ≥ 0.5×), and the
# peak memory of a push of 10,000 writes (budget 64 MB).
# Usage: bench/push.sh BIN_DIR   (inside scripts/with-test-session.sh)
set -euo pipefail
BIN=$(cd "${1:-.build/release}" && pwd)
. "$(dirname "$0")/common.sh"

bench_start_server
home="$bench_work/home"
bench_home "$home"
store=$(ls -d "$home"/data/accounts/*/store.sqlite)
token=$(curl -s -X POST "$BENCH_URL/v1/sessions" -H 'Content-Type: application/json' \
  -d '{"username":"alice","password":"alice-demo"}' | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')

# queue_creates PREFIX N: N creates (If-None-Match: *) of new books in lib's outbox.
queue_creates() {
  sqlite3 "$store" <<SQL
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $2)
INSERT INTO outbox (path, method, create_only, body, idempotency_key, created_at, updated_at)
SELECT 'books/$1-' || i, 'PUT', 1, '{"id":"$1-' || i || '","title":"Bench ' || i || '","copies":1}',
       '$1-' || i, strftime('%s','now'), strftime('%s','now') FROM n;
COMMIT;
SQL
}

# curl_config PREFIX N: the same N creates as one curl config (-K), one connection.
curl_config() {
  for i in $(seq 1 "$2"); do
    [ "$i" = 1 ] || printf 'next\n'
    printf 'url = "%s/v1/books/%s-%s"\nrequest = "PUT"\noutput = "/dev/null"\n' "$BENCH_URL" "$1" "$i"
    printf 'header = "Authorization: Bearer %s"\nheader = "Content-Type: application/json"\n' "$token"
    printf 'header = "If-None-Match: *"\nheader = "Idempotency-Key: %s-%s"\n' "$1" "$i"
    printf 'data = "{\\"id\\":\\"%s-%s\\",\\"title\\":\\"Bench %s\\",\\"copies\\":1}"\n' "$1" "$i" "$i"
  done > "$bench_work/$1.curl"
}

seconds() { python3 -c 'import time; print(time.monotonic())'; }
lib_times=() curl_times=()
for run in 1 2 3 4 5; do
  queue_creates "l$run" 1000
  curl_config "c$run" 1000
  start=$(seconds); LIB_HOME="$home" "$BIN/lib" -q push; end=$(seconds)
  lib_times+=("$(python3 -c "print($end - $start)")")
  start=$(seconds); curl -s -K "$bench_work/c$run.curl"; end=$(seconds)
  curl_times+=("$(python3 -c "print($end - $start)")")
done
median() { printf '%s\n' "$@" | sort -g | sed -n '3p'; }
lib_t=$(median "${lib_times[@]}") curl_t=$(median "${curl_times[@]}")
written=$(sqlite3 "$bench_work/server.sqlite" "SELECT count(*) FROM books WHERE id LIKE 'l%' OR id LIKE 'c%'")
echo "push of 1,000 writes: lib $(python3 -c "print(f'{1000/$lib_t:.0f}')") writes/s, curl $(python3 -c "print(f'{1000/$curl_t:.0f}')") PUTs/s (median of 5; $written books written)"
echo "push rate ratio vs curl: $(bench_ratio "$curl_t" "$lib_t") (budget ≥ 0.5)"

queue_creates big 10000
/usr/bin/time -v env LIB_HOME="$home" "$BIN/lib" -q push 2> "$bench_work/time.txt"
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$bench_work/time.txt")
echo "push of 10,000 writes: max RSS $((rss / 1024)) MB (budget 64 MB)"
