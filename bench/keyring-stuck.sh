#!/usr/bin/env bash
# A Secret Service that does not answer (gnome-keyring-daemon stopped with
# SIGSTOP): an online `lib get` whose token is not cached must say so and
# exit 4 within 1 s, the whole command (budget, DESIGN.md: keyring calls
# time out before 1 s); one whose token is cached does not wait at all.
# The session keyring is this script's own (with-test-session.sh); the cold
# get runs in an empty one (lib-keyring-check session) when the tool is
# there (`make release` does not build it), else with LIB_TOKEN_CACHE_SECONDS=0
# (the cache is not read).
# Usage: bench/keyring-stuck.sh BIN_DIR   (inside scripts/with-test-session.sh)
set -euo pipefail
BIN=$(cd "${1:-.build/release}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

bench_start_server
home="$bench_work/home"
mkdir -p "$home"
export LIB_HOME="$home"
printf 'alice-demo\n' | "$BIN/lib" -q login "$BENCH_URL" --user alice --password-stdin
"$BIN/lib" get books/b-7 >/dev/null
pid=$(dbus-send --session --print-reply --dest=org.freedesktop.DBus / \
  org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets | awk '/uint32/ {print $2}')
[ -n "$pid" ] || { echo "no Secret Service on the bus" >&2; exit 1; }
trap 'kill -CONT "$pid" 2>/dev/null; bench_cleanup' EXIT
kill -STOP "$pid"

cold=(env LIB_TOKEN_CACHE_SECONDS=0 "$BIN/lib" get books/b-7)
if [ -x "$BIN/lib-keyring-check" ]; then cold=("$BIN/lib-keyring-check" session "$BIN/lib" get books/b-7); fi
worst=0
for run in 1 2 3 4 5; do
  start=$EPOCHREALTIME
  status=0
  "$BIN/lib" get books/b-7 >/dev/null 2>&1 || status=$?
  warm_ms=$(python3 -c "import sys; print(round((float(sys.argv[2]) - float(sys.argv[1])) * 1000, 1))" "$start" "$EPOCHREALTIME")
  [ "$status" = 0 ] || { echo "a warm get failed ($status) with the Secret Service stopped" >&2; exit 1; }
  start=$EPOCHREALTIME
  status=0
  message=$("${cold[@]}" 2>&1 >/dev/null) || status=$?
  cold_ms=$(python3 -c "import sys; print(round((float(sys.argv[2]) - float(sys.argv[1])) * 1000, 1))" "$start" "$EPOCHREALTIME")
  [ "$status" = 4 ] && [[ "$message" == *"did not answer within"* ]] || { echo "the cold get said ($status): $message" >&2; exit 1; }
  echo "    run $run: warm get $warm_ms ms, cold get exit 4 after $cold_ms ms"
  worst=$(python3 -c "import sys; print(max(float(sys.argv[1]), float(sys.argv[2])))" "$worst" "$cold_ms")
done
seconds=$(python3 -c "import sys; print(f'{float(sys.argv[1]) / 1000:.3f}')" "$worst")
echo "stuck Secret Service: the slowest cold get said so after $seconds s (budget ≤ 1.0)"
bench_budget "a stuck Secret Service, whole command, seconds" "$seconds" "<=" 1.0
