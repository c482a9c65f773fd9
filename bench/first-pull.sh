#!/usr/bin/env bash
# A first `lib pull` of a 100,000-book library into an empty store, against
# curl fetching the same pages (1,000 books each, the ones lib asks for)
# one after the other over one connection, alternating, 3 runs each: on
# loopback, and with the server 50 ms away (bench/latency-proxy.py, 25 ms
# each way). Budgets (DESIGN.md): ≥ 0.5 × curl on loopback, ≥ 0.8 × 50 ms
# away (the median of per-run ratios), lib's peak memory ≤ 64 MB.
# Usage: bench/first-pull.sh BIN_DIR   (inside scripts/with-test-session.sh;
# BENCH_PULL_BOOKS=N for another size, BENCH_PULL_PLACES="loopback" for one place)
set -euo pipefail
BIN=$(cd "${1:-.build/release}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
books=${BENCH_PULL_BOOKS:-100000}
places=${BENCH_PULL_PLACES:-loopback 50ms}
proxy_pid=""
trap '[ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null; bench_cleanup' EXIT

db="$bench_work/server.sqlite"
bench_server_books "$db" "$books"
BENCH_DB="$db" bench_start_server
total=$((books + 20))   # and the 20 demo books
server_url=$BENCH_URL

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
rate() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):,.0f}')" "$1" "$2"; }

# measure LABEL URL RATIO_BUDGET: lib pulls from URL, curl fetches its pages from URL.
measure() {
  local label=$1 url=$2 budget=$3 template="$bench_work/template-$1"
  BENCH_URL=$url bench_home "$template"
  # The pages, found by following `next` once (not timed), as one curl
  # config (the token of a session of its own goes only into that file,
  # 0600 in the bench's private directory).
  python3 - "$url" "$bench_work/pages.curl" <<'PY'
import json, os, sys, urllib.request
base, out = sys.argv[1:3]
login = urllib.request.Request(base + "/v1/sessions", data=b'{"username":"alice","password":"alice-demo"}',
                               headers={"Content-Type": "application/json"})
token = json.load(urllib.request.urlopen(login))["token"]
pages, after = [], None
while True:
    url = base + "/v1/books?limit=1000" + ("" if after is None else "&after=" + after)
    pages.append(url)
    request = urllib.request.Request(url, headers={"Authorization": "Bearer " + token})
    after = json.load(urllib.request.urlopen(request))["next"]
    if after is None:
        break
with open(os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as config:
    config.write('header = "Authorization: Bearer %s"\n' % token)
    for url in pages:
        config.write('url = "%s"\noutput = "/dev/null"\n' % url)
PY
  local pages lib_times=() curl_times=() ratios=() rss_values=() run home start lib_t curl_t cached
  pages=$(grep -c '^url' "$bench_work/pages.curl")
  for run in 1 2 3; do
    home="$bench_work/home-$run"
    cp -a "$template" "$home"
    start=$EPOCHREALTIME
    LIB_HOME="$home" /usr/bin/time -f '%M' -o "$bench_work/lib.time" "$BIN/lib" -q pull
    lib_t=$(python3 -c "print($EPOCHREALTIME - $start)")
    rss_values+=("$(cat "$bench_work/lib.time")")
    cached=$(sqlite3 "$(ls -d "$home"/data/accounts/*/store.sqlite)" "SELECT count(*) FROM documents WHERE path LIKE 'books/%'")
    [ "$cached" = "$total" ] || { echo "lib pull cached $cached books of $total" >&2; exit 1; }
    rm -rf "$home"
    start=$EPOCHREALTIME
    curl -s -w '%{http_code}\n' -K "$bench_work/pages.curl" > "$bench_work/codes"
    curl_t=$(python3 -c "print($EPOCHREALTIME - $start)")
    [ "$(grep -c '^200$' "$bench_work/codes")" = "$pages" ] || { echo "curl: not every page answered 200" >&2; exit 1; }
    lib_times+=("$lib_t") curl_times+=("$curl_t") ratios+=("$(python3 -c "print($curl_t / $lib_t)")")
  done
  local ratio rss
  lib_t=$(median "${lib_times[@]}") curl_t=$(median "${curl_times[@]}") rss=$(median "${rss_values[@]}")
  ratio=$(python3 -c "print(f'{$(median "${ratios[@]}"):.2f}')")
  printf 'first pull of %s books (%s pages), %s: lib %.2f s, %s books/s; curl %.2f s, %s books/s (medians of 3): %s × curl (budget ≥ %s); lib max RSS %s MB (budget ≤ 64)\n' \
    "$total" "$pages" "$label" "$lib_t" "$(rate "$total" "$lib_t")" "$curl_t" "$(rate "$total" "$curl_t")" \
    "$ratio" "$budget" "$((rss / 1024))"
  bench_budget "first pull, $label, as a multiple of curl's rate" "$ratio" ">=" "$budget"
  bench_budget "first pull, $label, lib's peak memory in MB" "$((rss / 1024))" "<=" 64
}

for place in $places; do
  case $place in
    loopback) measure loopback "$server_url" 0.5 ;;
    50ms)
      python3 "$here/latency-proxy.py" 127.0.0.1:0 "${server_url#http://}" 25 > "$bench_work/proxy.out" &
      proxy_pid=$!
      for _ in $(seq 1 100); do [ -s "$bench_work/proxy.out" ] && break; sleep 0.05; done
      measure 50ms "http://$(sed -n '1s/^listening on //p' "$bench_work/proxy.out")" 0.8
      ;;
  esac
done
