#!/usr/bin/env bash
# The offline library (issue 27) on a 20,000-book library: `lib pull` with a
# few changes (three other-user edits before each run) against one online
# `lib get books/b-1` in the same hyperfine run (budget 2×, and at most 3
# requests, counted in the server's log), and `lib search` over it against
# `lib get --offline books/b-1` (budget 3×) for a query that finds a few
# books; a query two of whose words are in every book (FTS5 then merges two
# 20,000-entry lists) is timed too, without a budget.
# Usage: bench/pull-search.sh BIN_DIR   (inside scripts/with-test-session.sh)
set -euo pipefail
BIN=$(cd "${1:-.build/release}" && pwd)
. "$(dirname "$0")/common.sh"

# 20,000 books (g-00001 to g-20000), with the 20 demo books.
db="$bench_work/server.sqlite"
bench_server_books "$db" 20000
BENCH_DB="$db" bench_start_server --verbose
alice="$bench_work/alice" bob="$bench_work/bob"
bench_home "$alice"
mkdir -p "$bob"
printf 'bob-demo\n' | LIB_HOME="$bob" "$BIN/lib" -q login "$BENCH_URL" --user bob --password-stdin
LIB_HOME="$alice" "$BIN/lib" -q pull

# Three changes by bob, pushed: what each measured pull brings.
changes="for i in 1 2 3; do LIB_HOME=$bob $BIN/lib -q edit books/g-0000\$i title=\"Changed \$RANDOM\"; done; LIB_HOME=$bob $BIN/lib -q push"
eval "$changes"
before=$(grep -c '^GET /v1/' "$bench_work/server.err" || true)
LIB_HOME="$alice" "$BIN/lib" -q pull
after=$(grep -c '^GET /v1/' "$bench_work/server.err" || true)
requests=$((after - before))
echo "pull of 20,000 books with 3 changes: $requests requests"
bench_budget "pull with a few changes, requests" "$requests" "<=" 3

LIB_HOME="$alice" bench_hyperfine -N --warmup 3 --min-runs 30 --export-json "$bench_work/pull.json" \
  --prepare "sh -c '$changes'" -n pull "$BIN/lib -q pull" \
  -n get "$BIN/lib get books/b-1" >/dev/null
pull=$(bench_median "$bench_work/pull.json" pull) get=$(bench_median "$bench_work/pull.json" get)
echo "pull (3 changes): $(bench_ratio "$pull" 0.001) ms, online get: $(bench_ratio "$get" 0.001) ms, ratio $(bench_ratio "$pull" "$get") (budget 2)"
bench_budget "pull with a few changes / online get" "$(bench_ratio "$pull" "$get")" "<=" 2

LIB_HOME="$alice" bench_hyperfine -N --warmup 10 --min-runs 100 --export-json "$bench_work/search.json" \
  -n search "$BIN/lib search 1999" -n worst "$BIN/lib search 'generated volume 1999'" \
  -n offline "$BIN/lib get --offline books/b-1" >/dev/null
search=$(bench_median "$bench_work/search.json" search) offline=$(bench_median "$bench_work/search.json" offline)
worst=$(bench_median "$bench_work/search.json" worst)
echo "search over 20,000 books: $(bench_ratio "$search" 0.001) ms, get --offline: $(bench_ratio "$offline" 0.001) ms, ratio $(bench_ratio "$search" "$offline") (budget 3)"
echo "search with two words in every book: $(bench_ratio "$worst" 0.001) ms, ratio $(bench_ratio "$worst" "$offline") (no budget)"
bench_budget "search / get --offline" "$(bench_ratio "$search" "$offline")" "<=" 3
