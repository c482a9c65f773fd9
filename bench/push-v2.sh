#!/usr/bin/env bash
# `lib push` in protocol-v2 batches (the default) against curl sending
# PUTs one by one over one reused connection, on loopback and with
# lib-server 50 ms away (bench/latency-proxy.py, 25 ms each way). lib
# pushes 1,000 queued writes: 500 creates and 500 updates of books it has
# cached. curl sends 1,000 PUTs on loopback; 50 ms away it sends 200 (a
# one-by-one client pays a round trip per request, so its rate does not
# depend on the count, and 1,000 would take a minute a run).
# Budgets (DESIGN.md): ≥ 3 × curl's rate on loopback, ≥ 20 × 50 ms away.
# Usage: bench/push-v2.sh BIN_DIR   (inside scripts/with-test-session.sh)
set -euo pipefail
BIN=$(cd "${1:-.build/release}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

# queue_mixed STORE RUN: 500 creates, and 500 updates of the books books/u-RUN-* the cache holds.
queue_mixed() {
  sqlite3 "$1" <<SQL
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
INSERT INTO outbox (path, method, create_only, body, idempotency_key, created_at, updated_at)
SELECT 'books/n-$2-' || i, 'PUT', 1, '{"id":"n-$2-' || i || '","title":"Bench ' || i || '","copies":1}',
       'n-$2-' || i, strftime('%s','now'), strftime('%s','now') FROM n;
INSERT INTO outbox (path, method, create_only, changes, base_body, base_etag, if_match, idempotency_key, created_at, updated_at)
SELECT path, 'PUT', 0, '{"set":{"copies":2},"remove":[]}', body, etag, etag, 'u-$2-' || path,
       strftime('%s','now'), strftime('%s','now') FROM documents WHERE path LIKE 'books/u-$2-%';
COMMIT;
SQL
}

# seed STORE RUN: 500 books books/u-RUN-* made by lib (untimed), so that the cache holds their ETags.
seed() {
  sqlite3 "$1" <<SQL
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
INSERT INTO outbox (path, method, create_only, body, idempotency_key, created_at, updated_at)
SELECT 'books/u-$2-' || i, 'PUT', 1, '{"id":"u-$2-' || i || '","title":"Seed ' || i || '","copies":1}',
       's-$2-' || i, strftime('%s','now'), strftime('%s','now') FROM n;
SQL
  LIB_HOME="$home" "$BIN/lib" -q push
}

curl_config() {  # TOKEN URL PREFIX N
  local i
  for i in $(seq 1 "$4"); do
    [ "$i" = 1 ] || printf 'next\n'
    printf 'url = "%s/v1/books/%s-%s"\nrequest = "PUT"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n' "$2" "$3" "$i"
    printf 'header = "Authorization: Bearer %s"\nheader = "Content-Type: application/json"\n' "$1"
    printf 'header = "If-None-Match: *"\nheader = "Idempotency-Key: %s-%s"\n' "$3" "$i"
    printf 'data = "{\\"id\\":\\"%s-%s\\",\\"title\\":\\"Bench %s\\",\\"copies\\":1}"\n' "$3" "$i" "$i"
  done > "$bench_work/$3.curl"
}

seconds_since() { python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$1" "$EPOCHREALTIME"; }

bench_start_server
home=""
proxy_pid=""
trap '[ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null; bench_cleanup' EXIT
token=$(curl -s -X POST "$BENCH_URL/v1/sessions" -H 'Content-Type: application/json' \
  -d '{"username":"bob","password":"bob-demo"}' | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')

measure() {  # LABEL URL CURL_COUNT BUDGET
  local label=$1 url=$2 curl_n=$3 budget=$4 run ratios=() store start lib_t curl_t
  home="$bench_work/home-$label"
  mkdir -p "$home"
  printf 'alice-demo\n' | LIB_HOME="$home" "$BIN/lib" -q login "$url" --user alice --password-stdin
  store=$(ls -d "$home"/data/accounts/*/store.sqlite)
  for run in 1 2 3; do
    seed "$store" "$label$run"
    queue_mixed "$store" "$label$run"
    [ "$(sqlite3 "$store" 'SELECT count(*) FROM outbox')" = 1000 ] || { echo "queued $(sqlite3 "$store" 'SELECT count(*) FROM outbox') writes, not 1000" >&2; exit 1; }
    start=$EPOCHREALTIME
    LIB_HOME="$home" "$BIN/lib" -q push
    lib_t=$(seconds_since "$start")
    [ "$(sqlite3 "$store" 'SELECT count(*) FROM outbox')" = 0 ] || { echo "lib left writes in its outbox" >&2; exit 1; }
    curl_config "$token" "$url" "c-$label$run" "$curl_n"
    start=$EPOCHREALTIME
    curl -s -K "$bench_work/c-$label$run.curl" > "$bench_work/codes"
    curl_t=$(seconds_since "$start")
    [ "$(grep -c '^201$' "$bench_work/codes")" = "$curl_n" ] || { echo "curl: not every PUT answered 201" >&2; exit 1; }
    ratios+=("$(python3 -c "import sys; print(f'{(1000 / float(sys.argv[1])) / (int(sys.argv[3]) / float(sys.argv[2])):.1f}')" "$lib_t" "$curl_t" "$curl_n")")
    printf '    run %s: lib 1,000 writes in %.2f s, curl %s PUTs in %.2f s\n' "$run" "$lib_t" "$curl_n" "$curl_t"
  done
  local ratio
  ratio=$(printf '%s\n' "${ratios[@]}" | sort -g | sed -n 2p)
  printf 'push v2, %s: lib %s × curl one by one (runs %s; budget ≥ %s)\n' "$label" "$ratio" "${ratios[*]}" "$budget"
  bench_budget "push of 1,000 writes in v2 batches, $label: rate as a multiple of curl's" "$ratio" ">=" "$budget"
}

measure loopback "$BENCH_URL" 1000 3
python3 "$here/latency-proxy.py" 127.0.0.1:0 "${BENCH_URL#http://}" 25 > "$bench_work/proxy.out" &
proxy_pid=$!
for _ in $(seq 1 100); do [ -s "$bench_work/proxy.out" ] && break; sleep 0.05; done
proxied="http://$(sed -n '1s/^listening on //p' "$bench_work/proxy.out")"
measure 50ms "$proxied" 200 20
