#!/usr/bin/env bash
# Runs a command inside a private D-Bus session bus with a throwaway,
# unlocked gnome-keyring, so that tests and the demo never touch the user's
# own keyring. The bus listens on a unix socket path (not an abstract
# socket) so that it is reachable from inside network namespaces too.
set -euo pipefail

if [ "${LIB_IN_TEST_SESSION:-}" = 1 ]; then exec "$@"; fi

# A kernel session keyring of its own too (keyctl from keyutils), so that
# the tokens lib caches there (docs/KEYRING.md) are this run's alone and go
# with it, never seen by another run or the user's own shell.
if [ "${LIB_TEST_SESSION_KEYRING:-}" != 1 ] && command -v keyctl >/dev/null; then
  export LIB_TEST_SESSION_KEYRING=1
  # keyctl says "Joined session keyring: N" on stderr: only that is dropped.
  exec 3>&2
  exec keyctl session - /bin/sh -c 'exec 2>&3 3>&-; exec "$0" "$@"' "$0" "$@" 2>/dev/null
fi

runtime=$(mktemp -d /tmp/lib-session.XXXXXX)
chmod 700 "$runtime"
cleanup() {
  # KILL, not TERM: a parent may have left SIGTERM blocked (Foundation's
  # Process does), and a blocked TERM would leave the bus running.
  if [ -n "${bus_pid:-}" ]; then kill -KILL "$bus_pid" 2>/dev/null; wait "$bus_pid" 2>/dev/null || true; fi
  rm -rf "$runtime"
}
trap cleanup EXIT

export XDG_RUNTIME_DIR="$runtime"
export HOME="$runtime/home"
mkdir -p "$HOME"
bus="unix:path=$runtime/bus"
dbus-daemon --session --nofork --nopidfile --address="$bus" --print-address=3 3>"$runtime/address" >/dev/null 2>&1 &
bus_pid=$!
for _ in $(seq 1 100); do [ -s "$runtime/address" ] && break; sleep 0.05; done
export DBUS_SESSION_BUS_ADDRESS="$bus"

if command -v gnome-keyring-daemon >/dev/null; then
  # A password on stdin creates and unlocks the default "login" collection
  # (an empty one makes the daemon ask a prompter, which a headless machine
  # lacks). The daemon leaves when the bus it is on goes away.
  printf 'lib-test-keyring' | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || true
fi

export LIB_IN_TEST_SESSION=1
"$@"
