#!/usr/bin/env bash
# `make bench`: every benchmark, against release binaries, with ratios to a
# reference measured in the same run. Every benchmark runs; then the run
# fails if any of them missed a budget (or failed), naming which.
# Usage: bench/run.sh BIN_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "${1:-.build/release}" && pwd)
failed=()
for script in startup.sh status.sh get-offline.sh get-online.sh keyring-stuck.sh edit.sh push.sh push-v2.sh log.sh pull-search.sh first-pull.sh; do
  [ -x "$here/$script" ] || continue
  echo "== $script"
  "$here/../scripts/with-test-session.sh" "$here/$script" "$bin" || failed+=("$script")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "make bench: missed a budget or failed: ${failed[*]} (their 'budget missed' lines above say which)" >&2
  exit 1
fi
