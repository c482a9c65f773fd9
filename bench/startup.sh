#!/usr/bin/env bash
# Every command's start-up, `lib --version`, against a C program that links
# nothing (`int main(void) { return 0; }`, built here with cc): DESIGN's
# budgets are ≤ 1.2× its instructions (callgrind, which machine noise does
# not move) and, in wall time, no slower than a static Swift hello world
# (the runtime's floor). lib is a static executable, so there is no dynamic
# loader to pay for.
# Usage: bench/startup.sh BIN_DIR
set -euo pipefail
BIN=$(cd "${1:-.build/release}" && pwd)
. "$(dirname "$0")/common.sh"

printf 'int main(void) { return 0; }\n' > "$bench_work/empty.c"
cc -O2 -o "$bench_work/empty" "$bench_work/empty.c"
# The floor under lib: a Swift program that prints its arguments' count,
# linked as lib is (-static-executable). Its start-up is the Swift runtime's
# own (static initialisers, the backtracer's set-up, its pages).
printf 'print(CommandLine.arguments.count)\n' > "$bench_work/hello.swift"
swiftc -O -static-executable -o "$bench_work/hello" "$bench_work/hello.swift" 2>/dev/null
bench_rounds "$bench_work/startup.json" 10 -N --warmup 10 --runs 50 -- \
  c "$bench_work/empty" swift "$bench_work/hello" lib "$BIN/lib --version"
lib_t=$(bench_mean "$bench_work/startup.json" lib)
c_t=$(bench_mean "$bench_work/startup.json" c)
ms() { python3 -c "print(f'{float(\"$1\")*1000:.2f}')"; }
swift_t=$(bench_mean "$bench_work/startup.json" swift)
echo "start-up: lib --version $(ms "$lib_t") ms, empty C program $(ms "$c_t") ms, static Swift hello world $(ms "$swift_t") ms"
echo "start-up ratio of the Swift hello world vs C (the runtime's floor): $(bench_round_ratio "$bench_work/startup.json" swift c) median of 10 rounds"
ratio=$(bench_round_ratio "$bench_work/startup.json" lib c)
echo "start-up ratio vs C: $ratio median of 10 rounds, $(bench_ratio "$lib_t" "$c_t") mean (wall time; no budget: on a busy machine the hello world's own ratio swings)"
ratio_swift=$(bench_round_ratio "$bench_work/startup.json" lib swift)
echo "start-up ratio vs the static Swift hello world: $ratio_swift median of 10 rounds (budget 1.0)"
bench_budget "start-up (lib --version), median wall-time ratio to a static Swift hello world" "$ratio_swift" "<=" 1.0
lib_i=$(bench_instructions "$BIN/lib" --version)
c_i=$(bench_instructions "$bench_work/empty")
swift_i=$(bench_instructions "$bench_work/hello")
instructions_ratio=$(bench_ratio "$lib_i" "$c_i")
echo "start-up instructions (callgrind): lib ${lib_i} M, C ${c_i} M, Swift hello world ${swift_i} M, ratio lib/C $instructions_ratio (budget 1.2)"
bench_budget "start-up (lib --version), instructions relative to an empty C program" "$instructions_ratio" "<=" 1.2
