#!/usr/bin/env bash
# Runs the libFuzzer targets (Tests/Fuzz/README.md), each for FUZZ_SECONDS,
# one after another; stops at the first finding, whose input libFuzzer saves
# under Tests/Fuzz/Regressions/TARGET/ (where `make test` replays it).
#
#   scripts/fuzz.sh [TARGET...]          # default: every target
#   scripts/fuzz.sh --merge [TARGET...]  # fold the working corpus into Tests/Fuzz/Corpus
#
# New inputs that reach new code go to .build/fuzz/corpus/TARGET (kept
# between runs); --merge adds the ones that add coverage to the checked-in
# corpus, for committing.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${FUZZ_SECONDS:-60}
merge=0
if [ "${1:-}" = "--merge" ]; then merge=1; shift; fi
mapfile -t targets < <(if [ $# -gt 0 ]; then printf '%s\n' "$@"; else "$root/scripts/build-fuzz-target.sh" --list; fi)

# Swift's own crash handler would race ASan's report; libFuzzer reports instead.
export SWIFT_BACKTRACE=enable=no
# Swift's lazily initialised globals (the command registry's tables) are
# never freed on purpose and LeakSanitizer reports them as leaks on the first
# input; the properties are about crashes, hangs, memory bounds and results.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

# Longest input per target: room for the server's 1 KiB head and 256-byte
# body limits (http-connection) and for the 16 KiB head limit (http-request).
max_len() {
  case $1 in
    http-request) echo 20000 ;;
    http-connection) echo 4096 ;;
    *) echo 4096 ;;
  esac
}

for target in "${targets[@]}"; do
  binary=$("$root/scripts/build-fuzz-target.sh" "$target" 2> >(grep -v 'warning:' >&2))
  seeds="$root/Tests/Fuzz/Corpus/$target"
  working="$root/.build/fuzz/corpus/$target"
  found="$root/Tests/Fuzz/Regressions/$target"
  mkdir -p "$seeds" "$working" "$found"
  options=(-max_len="$(max_len "$target")" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 -print_final_stats=1)
  dict="$root/Tests/Fuzz/Dictionaries/$target.dict"
  [ -f "$dict" ] && options+=(-dict="$dict")
  if [ "$merge" = 1 ]; then
    "$binary" -merge=1 "${options[@]}" "$seeds" "$working" 2>&1 | grep -E '^MERGE-OUTER: [0-9]+ new files' || true
    continue
  fi
  echo "fuzz: $target for ${seconds}s" >&2
  log="$root/.build/fuzz/$target.log"
  if ! "$binary" "${options[@]}" -max_total_time="$seconds" -artifact_prefix="$found/" "$working" "$seeds" > "$log" 2>&1; then
    grep -v -E '^#[0-9]|NEW_FUNC' "$log" | tail -40 >&2
    echo "fuzz: $target found a problem; the input is in $found/ (full log: $log)." >&2
    echo "fuzz: rename it to say what it shows, fix the code, and 'make test' replays it from then on." >&2
    exit 1
  fi
  grep -E '^Done [0-9]+ runs|stat::number_of_executed_units|stat::peak_rss_mb' "$log" | sed "s/^/fuzz: $target: /" >&2
done
