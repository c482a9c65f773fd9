#!/usr/bin/env bash
# Runs the unit and protocol tests (every test target but EndToEndTests)
# under ThreadSanitizer, then under AddressSanitizer, each in its own build
# directory, with the built binaries the tests start (lib-server) sanitized
# too. Fails on the first report: the sanitizers make a report fatal.
#
#   scripts/sanitize.sh [thread|address]...    # default: both
#   SANITIZE_FILTER='LibHTTPServerTests|LibServerTests' scripts/sanitize.sh thread   # some suites only
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$PATH:/opt/swift/usr/bin"
SWIFT=${SWIFT:-swift}
suppressions="$root/scripts/sanitizer-suppressions"

# A report makes the process exit non-zero (and the test fail) instead of
# only printing; Swift's own crash handler would race the sanitizer's report.
export SWIFT_BACKTRACE=enable=no
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$suppressions/thread.supp ${TSAN_OPTIONS:-}"
# Swift's lazily initialised globals are never freed on purpose; leaks are
# not what this run looks for (see Tests/Fuzz/README.md).
export ASAN_OPTIONS="halt_on_error=1 detect_leaks=0 ${ASAN_OPTIONS:-}"

# lib is a static executable (Package.swift), and no sanitizer runtime links
# statically; so the sanitized build makes every other product, and the
# tests that run lib get the plain one, copied beside the sanitized
# lib-online that it execs (found next to /proc/self/exe). The code of lib
# itself runs sanitized inside the test bundle and lib-online.
sanitized_products=(libPackageTests lib-online lib-server lib-keyring-check lib-net-check)
echo "sanitize: building the plain static lib" >&2
"$SWIFT" build --product lib
plain_lib="$root/.build/debug/lib"

for sanitizer in "${@:-thread address}"; do
  for s in $sanitizer; do
    build="$root/.build/sanitize-$s"
    echo "sanitize: building with --sanitize=$s in $build" >&2
    for product in "${sanitized_products[@]}"; do
      "$SWIFT" build --sanitize="$s" --build-path "$build" --product "$product"
    done
    cp "$plain_lib" "$build/debug/lib"
    # Every sanitized process (the test bundle, and the lib-server and
    # lib-online it starts, whose exit a test may never look at, as when it
    # stops a server) writes its reports to files here: any file fails the run.
    reports="$build/reports"
    rm -rf "$reports"
    mkdir -p "$reports"
    echo "sanitize: unit and protocol tests under --sanitize=$s" >&2
    status=0
    TSAN_OPTIONS="$TSAN_OPTIONS log_path=$reports/report" ASAN_OPTIONS="$ASAN_OPTIONS log_path=$reports/report" \
      LIB_BIN_DIR="$build/debug" scripts/with-test-session.sh \
      "$SWIFT" test --skip-build --sanitize="$s" --build-path "$build" --skip EndToEndTests \
      ${SANITIZE_FILTER:+--filter "$SANITIZE_FILTER"} || status=$?
    if [ -n "$(ls -A "$reports")" ]; then
      for report in "$reports"/*; do echo "sanitize: $report:" >&2; cat "$report" >&2; done
      echo "sanitize: --sanitize=$s reported a problem (above)" >&2
      exit 1
    fi
    [ "$status" = 0 ] || { echo "sanitize: the tests failed under --sanitize=$s" >&2; exit "$status"; }
  done
done
echo "sanitize: clean" >&2
