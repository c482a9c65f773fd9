#!/usr/bin/env bash
# Writes Sources/lib/startup-order.txt: the functions lib runs for its
# on-device commands (--version first, then the prompt path, then get
# --offline, edit and diff), in the order they first run. The linker lays
# them out together (gold's --section-ordering-file, see Package.swift), so
# that a command touches a few pages of code instead of one page per
# function: lib --version took 108 page faults without it, 94 with it (the
# same as a Swift hello world). A stale list costs speed, never correctness.
# Usage: scripts/startup-order.sh [BIN_DIR]   (a release build; make startup-order)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${LIB_IN_TEST_SESSION:-}" != 1 ]; then exec "$root/scripts/with-test-session.sh" "$0" "$@"; fi
BIN=$(cd "${1:-$root/.build/release}" && pwd)
. "$root/bench/common.sh"

bench_start_server
home="$bench_work/home"
bench_home "$home"
bench_fill "$home" 1000 10
# valgrind 3.19 cannot read the DWARF of Swift's release builds.
strip --strip-debug -o "$bench_work/lib" "$BIN/lib"
n=0
for command in "--version" "status --prompt" "status" "status --short" "get --offline books/b-7" \
               "edit books/b-7 copies:=4" "diff"; do
  n=$((n + 1))
  # shellcheck disable=SC2086
  LIB_HOME="$home" valgrind --tool=callgrind --demangle=no --callgrind-out-file="$bench_work/run.$n" \
    "$bench_work/lib" $command >/dev/null 2>&1
done
python3 - "$bench_work" "$n" "$root/Sources/lib/startup-order.txt" <<'PY'
import re, sys
work, runs, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
seen, order = set(), []
for run in range(1, runs + 1):
    for line in open(f"{work}/run.{run}"):
        match = re.match(r"^c?fn=\(\d+\) (\S+)$", line.rstrip("\n"))
        if match and match.group(1) not in seen and not match.group(1).startswith("0x") and "'" not in match.group(1):
            seen.add(match.group(1))
            order.append(match.group(1))
with open(out, "w") as file:
    file.writelines(f".text.{name}\n" for name in order)
print(f"{out}: {len(order)} functions")
PY
