#!/usr/bin/env bash
# `make demo`: starts lib-server with demo data on loopback and walks through
# lib's main job: sign in, read fresh, then read with the server gone.
# Usage: scripts/with-test-session.sh scripts/demo.sh BIN_DIR
# (the private session gives lib a throwaway keyring for the token).
set -euo pipefail
bin=$(cd "${1:-.build/release}" && pwd)
work=$(mktemp -d /tmp/lib-demo.XXXXXX)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
export LIB_HOME="$work/home"   # the demo's own accounts, cache and outbox
export PATH="$bin:$PATH"

bold() { if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then printf '\n\033[1m%s\033[0m\n' "$*"; else printf '\n== %s\n' "$*"; fi; }
# Shows the command, runs it, and shows its exit status when it is not 0.
run() { printf '$ %s\n' "$*"; local status=0; "$@" || status=$?; [ "$status" = 0 ] || echo "(exit $status)"; echo; }

bold "Starting lib-server with the demo data (users alice, bob, carol; books b-1 … b-20)"
lib-server --db "$work/server.sqlite" --listen 127.0.0.1:0 --demo > "$work/server.out" &
server_pid=$!
for _ in $(seq 1 100); do [ -s "$work/server.out" ] && break; sleep 0.05; done
head -n1 "$work/server.out"
base=$(sed -n '1s/^listening on //p' "$work/server.out")

bold "alice signs in: the password buys a token, kept only in the keyring"
printf '$ echo alice-demo | lib login %s --user alice --password-stdin\n' "$base"
echo alice-demo | lib login "$base" --user alice --password-stdin
echo

bold "A fresh read: the document from the server, now cached on this device"
run lib get books/b-7
run lib get books

bold "The server stops. lib still shows what it knows, and says how old it is and why"
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
run lib get books/b-7
bold "--fresh refuses the cached copy (exit 75: try again later, nothing lost)"
run lib get books/b-7 --fresh
run lib status
# Part two: writes made offline, pushed exactly once, and a conflict.
"$(dirname "$0")/demo-writes.sh" "$bin"
