#!/usr/bin/env bash
# `lib log` on an account with 10,000 recorded pushed writes (the log's
# bound) against `lib status` on the same account in the same hyperfine
# run: each lists 10,000 writes (the store also holds 100,000 cached
# documents and 10,000 pending writes), so the log must answer in the time
# of status (budget 1.0×). `lib log -n 20` is measured too (budget 1.0×
# against the same status). No server runs while they are measured: the
# log sends no request.
# Usage: bench/log.sh BIN_DIR   (inside scripts/with-test-session.sh)
set -euo pipefail
BIN=$(cd "${1:-.build/release}" && pwd)
. "$(dirname "$0")/common.sh"

bench_start_server
home="$bench_work/home"
bench_home "$home"; bench_fill "$home" 100000 10000
bench_stop_server

# 10,000 pushed writes, as recordSuccess leaves them: a title change of a
# different book each, against the version it was sent against.
store=$(ls -d "$home"/data/accounts/*/store.sqlite)
sqlite3 "$store" <<SQL
PRAGMA synchronous=OFF;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
INSERT INTO pushed_log (pushed_at, path, method, create_only, body, changes, base_body, base_etag, etag)
SELECT strftime('%s','now') - 10000 + i, 'books/b-' || i, 'PUT', 0, NULL, '{"set":{"title":"Pushed ' || i || '"},"remove":[]}',
       '{"id":"b-' || i || '","title":"Book ' || i || '","author":"Someone","year":1965,"copies":3,"tags":["sf"]}',
       '"1-' || i || '"', '"2-' || i || '"' FROM n;
COMMIT;
SQL

lines=$(LIB_HOME="$home" "$BIN/lib" log | wc -l)
[ "$lines" -eq 10001 ] || { echo "lib log printed $lines lines, not 10,001" >&2; exit 1; }

LIB_HOME="$home" bench_hyperfine -N --warmup 10 --min-runs 60 --export-json "$bench_work/log.json" \
  -n status "$BIN/lib status" -n log "$BIN/lib log" -n log-20 "$BIN/lib log -n 20" >/dev/null
status_m=$(bench_median "$bench_work/log.json" status)
log_m=$(bench_median "$bench_work/log.json" log)
log20_m=$(bench_median "$bench_work/log.json" log-20)
ms() { python3 -c "print(f'{float(\"$1\")*1000:.2f}')"; }
ratio=$(bench_ratio "$log_m" "$status_m") ratio20=$(bench_ratio "$log20_m" "$status_m")
echo "lib status (10k pending): $(ms "$status_m") ms; lib log (10k pushed): $(ms "$log_m") ms; lib log -n 20: $(ms "$log20_m") ms (medians)"
echo "log ratio vs status: $ratio (budget 1.0); log -n 20 vs status: $ratio20 (budget 1.0)"
bench_budget "lib log, median ratio to lib status (10k pushed / 10k pending)" "$ratio" "<=" 1.0
bench_budget "lib log -n 20, median ratio to lib status" "$ratio20" "<=" 1.0
