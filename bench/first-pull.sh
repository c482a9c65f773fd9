#!/usr/bin/env bash
# A first `lib pull` of a 100,000-book library (issue 27) into an empty
# store, against curl fetching the same pages (1,000 books each, the ones
# lib asks for) over one connection, alternating, 3 runs each. Reported
# beside curl, with lib's peak memory; no budget: a device lists the whole
# library once, and what it adds to the transfer is its store's writes
# (each book cached and indexed, one transaction a page).
# Usage: bench/first-pull.sh BIN_DIR   (inside scripts/with-test-session.sh;
# BENCH_PULL_BOOKS=N for another size)
set -euo pipefail
BIN=$(cd "${1:-.build/release}" && pwd)
. "$(dirname "$0")/common.sh"
books=${BENCH_PULL_BOOKS:-100000}

db="$bench_work/server.sqlite"
bench_server_books "$db" "$books"
BENCH_DB="$db" bench_start_server
template="$bench_work/template"
bench_home "$template"

# The pages, found by following `next` once (not timed), as one curl config
# (the token of a session of its own goes only into that file, 0600 in the
# bench's private directory).
python3 - "$BENCH_URL" "$bench_work/pages.curl" <<'PY'
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
pages=$(grep -c '^url' "$bench_work/pages.curl")
total=$((books + 20))   # and the 20 demo books

rate() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):,.0f}')" "$1" "$2"; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
lib_times=() curl_times=() rss_values=()
for run in 1 2 3; do
  home="$bench_work/home-$run"
  cp -a "$template" "$home"
  start=$EPOCHREALTIME
  LIB_HOME="$home" /usr/bin/time -f '%M' -o "$bench_work/lib.time" "$BIN/lib" -q pull
  lib_times+=("$(python3 -c "print($EPOCHREALTIME - $start)")")
  rss_values+=("$(cat "$bench_work/lib.time")")
  cached=$(sqlite3 "$(ls -d "$home"/data/accounts/*/store.sqlite)" "SELECT count(*) FROM documents WHERE path LIKE 'books/%'")
  [ "$cached" = "$total" ] || { echo "lib pull cached $cached books of $total" >&2; exit 1; }
  rm -rf "$home"
  start=$EPOCHREALTIME
  curl -s -w '%{http_code}\n' -K "$bench_work/pages.curl" > "$bench_work/codes"
  curl_times+=("$(python3 -c "print($EPOCHREALTIME - $start)")")
  [ "$(grep -c '^200$' "$bench_work/codes")" = "$pages" ] || { echo "curl: not every page answered 200" >&2; exit 1; }
done
lib_t=$(median "${lib_times[@]}") curl_t=$(median "${curl_times[@]}") rss=$(median "${rss_values[@]}")
printf 'first pull of %s books (%s pages): lib %.2f s, %s books/s; curl %.2f s, %s books/s (median of 3): %s × curl; lib max RSS %s MB\n' \
  "$total" "$pages" "$lib_t" "$(rate "$total" "$lib_t")" "$curl_t" "$(rate "$total" "$curl_t")" \
  "$(bench_ratio "$curl_t" "$lib_t")" "$((rss / 1024))"
