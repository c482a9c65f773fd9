#!/usr/bin/env bash
# `lib get --offline books/b-7` with 100,000 cached documents and 10,000
# pending writes (b-7 among them, so the pending write is applied) against
# `git status --porcelain` in a 50-file repo, in the same hyperfine run
# (budget 1.2×), and its growth from 1k documents / 10 pending (budget 1.2×).
# Usage: bench/get-offline.sh BIN_DIR   (inside scripts/with-test-session.sh)
set -euo pipefail
BIN=$(cd "${1:-.build/release}" && pwd)
. "$(dirname "$0")/common.sh"

bench_start_server
small="$bench_work/small" large="$bench_work/large"
bench_home "$small"; bench_fill "$small" 1000 10
bench_home "$large"; bench_fill "$large" 100000 10000
repo=$(bench_git_repo)
# The server is not needed any more: --offline must not notice it is gone.
bench_stop_server

for home in "$small" "$large"; do
  LIB_HOME="$home" "$BIN/lib" get --offline books/b-7 >/dev/null 2>&1 \
    || { echo "lib get --offline books/b-7 failed in $home" >&2; exit 1; }
done

bench_against_git "get --offline" "get --offline books/b-7" 1.2 "$small" "$large" "$repo"
