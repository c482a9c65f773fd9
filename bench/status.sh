#!/usr/bin/env bash
# `lib status --short` with 100,000 cached documents and 10,000 pending
# writes against `git status --porcelain` in a 50-file repo (budget 1.5×),
# and its growth from 1k documents / 10 pending (budget 1.2×).
# Usage: bench/status.sh BIN_DIR   (inside scripts/with-test-session.sh)
set -euo pipefail
BIN=$(cd "${1:-.build/release}" && pwd)
. "$(dirname "$0")/common.sh"

bench_start_server
small="$bench_work/small" large="$bench_work/large"
bench_home "$small"; bench_fill "$small" 1000 10
bench_home "$large"; bench_fill "$large" 100000 10000
repo=$(bench_git_repo)

hyperfine -N --warmup 50 --min-runs 300 --export-json "$bench_work/status.json" \
  -n git "git -C $repo status --porcelain" \
  -n small "env LIB_HOME=$small $BIN/lib status --short" \
  -n large "env LIB_HOME=$large $BIN/lib status --short" >/dev/null
git=$(bench_mean "$bench_work/status.json" git)
small_t=$(bench_mean "$bench_work/status.json" small)
large_t=$(bench_mean "$bench_work/status.json" large)
printf 'status --short: git %.2f ms, lib 1k/10 %.2f ms, lib 100k/10k %.2f ms\n' \
  "$(python3 -c "print($git*1000)")" "$(python3 -c "print($small_t*1000)")" "$(python3 -c "print($large_t*1000)")"
echo "status ratio vs git: $(bench_ratio "$large_t" "$git") (budget 1.5)"
echo "status growth 1k/10 -> 100k/10k: $(bench_ratio "$large_t" "$small_t") (budget 1.2)"
