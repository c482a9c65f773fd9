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

# One hyperfine run per store, each with git as its reference, so that
# LIB_HOME can be set without an `env` process in the measured command.
measure() {
  LIB_HOME="$1" hyperfine -N --warmup 50 --min-runs 300 --export-json "$2" \
    -n git "git -C $repo status --porcelain" -n lib "$BIN/lib status --short" >/dev/null
}
measure "$small" "$bench_work/small.json"
measure "$large" "$bench_work/large.json"
git_small=$(bench_mean "$bench_work/small.json" git); small_t=$(bench_mean "$bench_work/small.json" lib)
git_large=$(bench_mean "$bench_work/large.json" git); large_t=$(bench_mean "$bench_work/large.json" lib)
ms() { python3 -c "print(f'{float(\"$1\")*1000:.2f}')"; }
echo "status --short, 1k documents / 10 pending:    lib $(ms "$small_t") ms, git $(ms "$git_small") ms"
echo "status --short, 100k documents / 10k pending: lib $(ms "$large_t") ms, git $(ms "$git_large") ms"
echo "status ratio vs git status (100k/10k): $(bench_ratio "$large_t" "$git_large") (budget 1.5)"
echo "status growth 1k/10 -> 100k/10k: $(bench_ratio "$large_t" "$small_t") (budget 1.2)"
