#!/usr/bin/env bash
# `lib edit books/b-7 copies:=N` (one durable SQLite transaction) against the
# sqlite3 CLI doing one durable insert (synchronous=FULL, WAL): budget 1.2×.
# Usage: bench/edit.sh BIN_DIR   (inside scripts/with-test-session.sh)
set -euo pipefail
BIN=$(cd "${1:-.build/release}" && pwd)
. "$(dirname "$0")/common.sh"

bench_start_server
home="$bench_work/home"
bench_home "$home"
bench_fill "$home" 1000 0
store=$(ls -d "$home"/data/accounts/*/store.sqlite)
# Each measured edit starts from an empty outbox, so that every run inserts
# a write (instead of merging into the previous one, or changing nothing).
reset="$bench_work/reset.sh"
printf '#!/bin/sh\nexec sqlite3 "%s" "DELETE FROM outbox"\n' "$store" > "$reset"
chmod +x "$reset"
reference="$bench_work/reference.sqlite"
sqlite3 "$reference" "PRAGMA journal_mode=WAL; CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL);" >/dev/null

LIB_HOME="$home" bench_rounds "$bench_work/edit.json" 10 -N --warmup 5 --runs 20 --prepare "$reset" -- \
  lib "$BIN/lib edit books/b-7 copies:=8" \
  sqlite3 "sqlite3 $reference 'PRAGMA synchronous=FULL; PRAGMA journal_mode=WAL; INSERT INTO t (body) VALUES (printf(\"%s\", json_object(\"copies\", 8)));'"
lib_t=$(bench_mean "$bench_work/edit.json" lib)
ref_t=$(bench_mean "$bench_work/edit.json" sqlite3)
ms() { python3 -c "print(f'{float(\"$1\")*1000:.2f}')"; }
echo "edit (durable): lib $(ms "$lib_t") ms, sqlite3 insert $(ms "$ref_t") ms"
ratio=$(bench_round_ratio "$bench_work/edit.json" lib sqlite3)
echo "edit ratio vs sqlite3 durable insert: $ratio median of 10 rounds, $(bench_ratio "$lib_t" "$ref_t") mean (budget 1.2)"
bench_budget "edit (durable), median ratio to the sqlite3 CLI's durable insert" "$ratio" "<=" 1.2
"$reset"
lib_i=$(LIB_HOME="$home" bench_instructions "$BIN/lib" edit books/b-7 copies:=9)
ref_i=$(bench_instructions "$(command -v sqlite3)" "$reference" 'PRAGMA synchronous=FULL; PRAGMA journal_mode=WAL; INSERT INTO t (body) VALUES (json_object("copies", 9));')
echo "edit instructions (callgrind): lib ${lib_i} M, sqlite3 insert ${ref_i} M, ratio $(bench_ratio "$lib_i" "$ref_i")"
