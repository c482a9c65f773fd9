#!/usr/bin/env bash
# `lib push` to a v1-only lib-server (--legacy-protocol: lib sends one
# write a request) against curl sending the same PUTs over one reused
# connection to the same lib-server, in the same run: 1,000 and 10,000 queued writes
# (creates), on the server's SQLite store and, when this lib-server has one,
# on its PostgreSQL store (a private cluster started here). Budgets: lib's
# rate ≥ 0.9 × curl's; the push of 10,000 writes under 64 MB RSS.
# Usage: bench/push.sh BIN_DIR   (inside scripts/with-test-session.sh;
# BENCH_PUSH_SIZES="1000" for the smaller push only)
set -euo pipefail
BIN=$(cd "${1:-.build/release}" && pwd)
. "$(dirname "$0")/common.sh"

# queue_creates STORE PREFIX N: N creates (If-None-Match: *) of new books in lib's outbox.
queue_creates() {
  sqlite3 "$1" <<SQL
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $3)
INSERT INTO outbox (path, method, create_only, body, idempotency_key, created_at, updated_at)
SELECT 'books/$2-' || i, 'PUT', 1, '{"id":"$2-' || i || '","title":"Bench ' || i || '","copies":1}',
       '$2-' || i, strftime('%s','now'), strftime('%s','now') FROM n;
COMMIT;
SQL
}

# curl_config TOKEN PREFIX N: the same N creates as one curl config (-K), one connection.
curl_config() {
  local i
  for i in $(seq 1 "$3"); do
    [ "$i" = 1 ] || printf 'next\n'
    printf 'url = "%s/v1/books/%s-%s"\nrequest = "PUT"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n' "$BENCH_URL" "$2" "$i"
    printf 'header = "Authorization: Bearer %s"\nheader = "Content-Type: application/json"\n' "$1"
    printf 'header = "Accept: application/json"\nheader = "If-None-Match: *"\nheader = "Idempotency-Key: %s-%s"\n' "$2" "$i"
    printf 'data = "{\\"id\\":\\"%s-%s\\",\\"title\\":\\"Bench %s\\",\\"copies\\":1}"\n' "$2" "$i" "$i"
  done > "$bench_work/$2.curl"
}

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
rate() { python3 -c "import sys; print(f'{int(sys.argv[1]) / float(sys.argv[2]):.0f}')" "$1" "$2"; }

# push_against_curl LABEL: with a server running at BENCH_URL, times lib's
# push and curl's PUTs, alternating, and prints rates, ratios and lib's peak
# memory.
push_against_curl() {
  local label=$1 home="$bench_work/home-$1" store token n runs run start lib_t curl_t rss created
  bench_home "$home"
  store=$(ls -d "$home"/data/accounts/*/store.sqlite)
  token=$(curl -s -X POST "$BENCH_URL/v1/sessions" -H 'Content-Type: application/json' \
    -d '{"username":"alice","password":"alice-demo"}' | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')
  for n in ${BENCH_PUSH_SIZES:-1000 10000}; do
    runs=5; [ "$n" = 10000 ] && runs=3
    local lib_times=() curl_times=() ratios=() rss_values=() lib_cpu=() curl_cpu=()
    for run in $(seq 1 "$runs"); do
      queue_creates "$store" "l$n-$run" "$n"
      curl_config "$token" "c$n-$run" "$n"
      start=$EPOCHREALTIME
      LIB_HOME="$home" /usr/bin/time -f '%M %U %S' -o "$bench_work/lib.time" "$BIN/lib" -q push
      lib_times+=("$(python3 -c "print($EPOCHREALTIME - $start)")")
      [ "$(sqlite3 "$store" 'SELECT count(*) FROM outbox')" = 0 ] || { echo "lib left writes in its outbox" >&2; exit 1; }
      start=$EPOCHREALTIME
      /usr/bin/time -f '%M %U %S' -o "$bench_work/curl.time" curl -s -K "$bench_work/c$n-$run.curl" > "$bench_work/codes"
      curl_times+=("$(python3 -c "print($EPOCHREALTIME - $start)")")
      created=$(grep -c '^201$' "$bench_work/codes" || true)
      [ "$created" = "$n" ] || { echo "curl: only $created of $n PUTs answered 201" >&2; exit 1; }
      ratios+=("$(bench_ratio "${curl_times[-1]}" "${lib_times[-1]}")")
      read -r rss lib_user lib_sys < "$bench_work/lib.time"
      read -r _ curl_user curl_sys < "$bench_work/curl.time"
      rss_values+=("$rss")
      lib_cpu+=("$(python3 -c "print(($lib_user + $lib_sys) * 1e6 / $n)")")
      curl_cpu+=("$(python3 -c "print(($curl_user + $curl_sys) * 1e6 / $n)")")
    done
    lib_t=$(median "${lib_times[@]}") curl_t=$(median "${curl_times[@]}") rss=$(median "${rss_values[@]}")
    printf 'push, %s store, %5s writes: lib %5s writes/s, curl %5s PUTs/s (median of %s): %s × curl (budget ≥ 0.9)\n' \
      "$label" "$n" "$(rate "$n" "$lib_t")" "$(rate "$n" "$curl_t")" "$runs" "$(bench_ratio "$curl_t" "$lib_t")"
    printf '    each run (lib/curl, same server, one after the other): %s; CPU per write: lib %.0f µs, curl %.0f µs; lib max RSS %s MB\n' \
      "${ratios[*]}" "$(median "${lib_cpu[@]}")" "$(median "${curl_cpu[@]}")" "$((rss / 1024))"
    bench_budget "push of $n writes, $label store: median rate as a fraction of curl's" "$(bench_ratio "$curl_t" "$lib_t")" ">=" 0.9
    if [ "$n" = 10000 ]; then
      bench_budget "push of 10,000 writes, $label store: lib's max RSS in MB" "$((rss / 1024))" "<=" 64
    fi
  done
  echo "push, $label store: the 10,000-write push's max RSS budget is 64 MB"
}

bench_start_server --legacy-protocol
push_against_curl SQLite
bench_stop_server

if ! bench_start_postgres; then
  echo "push, PostgreSQL store: skipped (PostgreSQL is not installed)"
elif ! BENCH_DB=$BENCH_PG_URL bench_start_server --legacy-protocol; then
  echo "push, PostgreSQL store: skipped (this lib-server has no PostgreSQL store: $(head -c 200 "$bench_work/server.err"))"
else
  push_against_curl PostgreSQL
  bench_stop_server
fi
