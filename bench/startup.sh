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
echo "start-up ratio vs C: $ratio median of 10 rounds, $(bench_ratio "$lib_t" "$c_t") mean (budget 1.2)"
bench_budget "start-up (lib --version), median ratio to an empty C program" "$ratio" "<=" 1.2
lib_i=$(bench_instructions "$BIN/lib" --version)
c_i=$(bench_instructions "$bench_work/empty")
swift_i=$(bench_instructions "$bench_work/hello")
echo "start-up instructions (callgrind): lib ${lib_i} M, C ${c_i} M, Swift hello world ${swift_i} M, ratio lib/C $(bench_ratio "$lib_i" "$c_i")"
