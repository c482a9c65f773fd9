#!/usr/bin/env bash
# Every command's start-up, `lib --version`, against a C program that links
# nothing (`int main(void) { return 0; }`, built here with cc): budget 1.2×.
# lib is a static executable, so there is no dynamic loader to pay for.
# Usage: bench/startup.sh BIN_DIR
set -euo pipefail
BIN=$(cd "${1:-.build/release}" && pwd)
. "$(dirname "$0")/common.sh"

printf 'int main(void) { return 0; }\n' > "$bench_work/empty.c"
cc -O2 -o "$bench_work/empty" "$bench_work/empty.c"
hyperfine -N --warmup 50 --min-runs 500 --export-json "$bench_work/startup.json" \
  -n c "$bench_work/empty" -n lib "$BIN/lib --version" >/dev/null
lib_t=$(bench_mean "$bench_work/startup.json" lib)
c_t=$(bench_mean "$bench_work/startup.json" c)
ms() { python3 -c "print(f'{float(\"$1\")*1000:.2f}')"; }
echo "start-up: lib --version $(ms "$lib_t") ms, empty C program $(ms "$c_t") ms"
echo "start-up ratio vs C: $(bench_ratio "$(bench_median "$bench_work/startup.json" lib)" "$(bench_median "$bench_work/startup.json" c)") median, $(bench_ratio "$lib_t" "$c_t") mean (budget 1.2)"
lib_i=$(bench_instructions "$BIN/lib" --version)
c_i=$(bench_instructions "$bench_work/empty")
echo "start-up instructions (callgrind): lib ${lib_i} M, C ${c_i} M, ratio $(bench_ratio "$lib_i" "$c_i")"
