#!/usr/bin/env bash
# `make bench`: every benchmark, against release binaries, with ratios to a
# reference measured in the same run. Usage: bench/run.sh BIN_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "${1:-.build/release}" && pwd)
for script in startup.sh status.sh get-offline.sh edit.sh push.sh; do
  [ -x "$here/$script" ] || continue
  echo "== $script"
  "$here/../scripts/with-test-session.sh" "$here/$script" "$bin"
done
