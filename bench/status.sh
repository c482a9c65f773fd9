#!/usr/bin/env bash
# `lib status --prompt` with 100,000 cached documents and 10,000 pending
# writes against `git status --porcelain` in a 50-file repo (budget 1.0×),
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

bench_against_git "status --prompt" "status --prompt" 1.0 "$small" "$large" "$repo"

# The same with a rules file of 50 rules, one of them choosing the account
# for the working directory (issue 49: the prompt stays within 1.0× git).
for dir in "$small" "$large"; do
  account=$(ls "$dir/data/accounts")
  {
    for i in $(seq 1 49); do printf '/srv/elsewhere/%d\t%s\n' "$i" "$account"; done
    printf '%s\t%s\n' "$(pwd -P)" "$account"
  } > "$dir/config/rules"
  chmod 600 "$dir/config/rules"
done
bench_against_git "status --prompt with rules" "status --prompt" 1.0 "$small" "$large" "$repo"
