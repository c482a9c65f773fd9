#!/usr/bin/env bash
# Checks a live lib-server with the demo data against docs/openapi.yaml with
# schemathesis (installed by scripts/install-deps.sh): server errors,
# response schemas, content types and status codes, every operation, with a
# fixed seed and bounded examples and time. Exits non-zero on any finding.
#
#   scripts/schemathesis/run.sh BIN_DIR     # the directory with lib-server
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:?usage: run.sh BIN_DIR}
venv="$root/.build/schemathesis"
[ -x "$venv/bin/schemathesis" ] || { echo "schemathesis: not installed; run scripts/install-deps.sh" >&2; exit 1; }

work=$(mktemp -d /tmp/lib-schemathesis.XXXXXX)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

mkfifo "$work/out"
"$bin/lib-server" --db "$work/server.sqlite" --listen 127.0.0.1:0 --demo > "$work/out" 2> "$work/server.log" &
server_pid=$!
exec 3< "$work/out"
read -r -t 30 first <&3 || { echo "schemathesis: lib-server did not start" >&2; cat "$work/server.log" >&2; exit 1; }
url=${first#listening on }
cat <&3 > /dev/null &

echo "schemathesis: checking $url against docs/openapi.yaml" >&2
export LIB_SCHEMATHESIS_SERVER="$url"
export SCHEMATHESIS_HOOKS="$root/scripts/schemathesis/lib_session.py"
status=0
# schemathesis keeps a .schemathesis directory in the working directory: keep it out of the tree.
cd "$work"
# The stateful phase needs links between operations, which the document
# does not declare; the other three phases cover every operation.
timeout "${SCHEMATHESIS_TIMEOUT:-100}" "$venv/bin/schemathesis" run "$root/docs/openapi.yaml" \
  --url "$url" \
  --checks not_a_server_error,response_schema_conformance,content_type_conformance,status_code_conformance \
  --phases examples,coverage,fuzzing \
  --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-30}" \
  --seed "${SCHEMATHESIS_SEED:-16}" \
  --workers 2 \
  --request-timeout 10 \
  --no-color \
  --report-dir "$work/report" || status=$?
if [ "$status" != 0 ]; then
  echo "schemathesis: findings (exit $status); the server's log:" >&2
  tail -20 "$work/server.log" >&2
fi
exit "$status"
