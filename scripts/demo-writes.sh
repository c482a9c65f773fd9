#!/usr/bin/env bash
# The writes part of `make demo`: edit offline, see it pending, push when the
# server is back; a second user's change of another field merged on the
# server, and of the same field turning a stale edit into a conflict.
# Usage: scripts/demo-writes.sh BIN_DIR
# Runs its own lib-server and LIB_HOMEs, inside a private keyring session.
set -euo pipefail
bin=$(cd "${1:-.build/release}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
if [ "${LIB_IN_TEST_SESSION:-}" != 1 ]; then exec "$here/with-test-session.sh" "$0" "$bin"; fi

work=$(mktemp -d /tmp/lib-demo-writes.XXXXXX)
server_pid=""
stop_server() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null; server_pid=""; }
cleanup() { stop_server || true; rm -rf "$work"; }
trap cleanup EXIT

bold() { if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then printf '\n\033[1m%s\033[0m\n' "$*"; else printf '\n== %s\n' "$*"; fi; }
# Shows the command as the user would type it, runs it, shows a non-zero exit.
as() { local who=$1; shift; printf '%s$ lib %s\n' "$who" "$*"; LIB_HOME="$work/$who" "$bin/lib" "$@" && status=0 || status=$?; [ $status = 0 ] || printf '(exit %s)\n' "$status"; echo; }
start_server() {
  "$bin/lib-server" --db "$work/server.sqlite" --listen "${1:-127.0.0.1:0}" --demo > "$work/server.out" &
  server_pid=$!
  for _ in $(seq 1 100); do [ -s "$work/server.out" ] && break; sleep 0.05; done
  base=$(sed -n '1s/^listening on //p' "$work/server.out")
}

start_server
bold "alice and bob sign in to $base"
echo alice-demo | LIB_HOME="$work/alice" "$bin/lib" login "$base" --user alice --password-stdin
echo bob-demo | LIB_HOME="$work/bob" "$bin/lib" login "$base" --user bob --password-stdin

bold "alice edits b-7 while online: the first edit fetches it; the change waits in the outbox"
as alice edit books/b-7 copies:=4

bold "The server goes away: alice keeps working"
stop_server
as alice edit books/b-7 "title=Dune (2nd edition)"
as alice status
as alice push

bold "The server is back: push sends the writes in order, exactly once"
start_server "${base#http://}"
as alice push
as alice status

bold "bob changes b-7's copies; alice, on the older version, changes its year"
as bob edit books/b-7 copies:=9 --push
as alice edit books/b-7 year:=1966
bold "Different fields: the server merges them in the push, and says so"
as alice push
as alice log books/b-7 --offline

bold "bob and alice change the same field: a conflict, never an overwrite"
as bob edit books/b-7 "title=Dune (bob)" --push
as alice edit books/b-7 "title=Dune (alice)"
as alice push
as alice status

bold "Nothing was overwritten: the server's history of b-7"
sqlite3 -separator '  ' "$work/server.sqlite" "SELECT version, (SELECT username FROM users WHERE id = updated_by), document FROM history WHERE book_id = 'b-7' ORDER BY version" 2>/dev/null \
  || echo "(install sqlite3 to see the history)"

bold "The conflict is a decision, not an error: base, mine and theirs, field by field"
as alice resolve books/b-7
bold "alice keeps her title; every other field is the server's"
as alice resolve books/b-7 --mine
as alice push
sqlite3 -separator '  ' "$work/server.sqlite" "SELECT version, (SELECT username FROM users WHERE id = updated_by), document FROM history WHERE book_id = 'b-7' ORDER BY version DESC LIMIT 1" 2>/dev/null || true
