#!/usr/bin/env bash
# `make bench-server`: lib-server's throughput with wrk, against nginx serving
# the same JSON document as a static file in the same run.
#   1. authenticated GET /v1/books/b-7 (SQLite), and the ratio to nginx;
#   2. mixed reads and writes (90% GET, 10% PUT) on two lib-servers sharing
#      one SQLite file, then two sharing one PostgreSQL database.
# Usage: bench/server.sh BIN_DIR   (environment: SECONDS_EACH, CONNECTIONS)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "${1:-.build/release}" && pwd)
seconds=${SECONDS_EACH:-8}
connections=${CONNECTIONS:-32}
for tool in wrk nginx curl python3; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || { echo "bench-server: $tool is missing (scripts/install-deps.sh)" >&2; exit 1; }
done

work=$(mktemp -d /tmp/lib-bench-server.XXXXXX)
chmod 755 "$work"
# start_server runs in $(...), a subshell: its servers' pids go to a file.
stop_servers() {
  if [ -f "$work/servers.pid" ]; then xargs kill <"$work/servers.pid" 2>/dev/null || true; rm -f "$work/servers.pid"; fi
}
cleanup() {
  stop_servers
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Starts a lib-server; prints its port.
start_server() {
  local db=$1 log=$2
  local port; port=$(free_port)
  "$bin/lib-server" --db "$db" --listen "127.0.0.1:$port" --demo --max-connections-per-peer 1000 >"$log" 2>&1 &
  echo $! >>"$work/servers.pid"
  for _ in $(seq 100); do grep -q '^listening' "$log" 2>/dev/null && break; sleep 0.1; done
  grep -q '^listening' "$log" || { cat "$log" >&2; exit 1; }
  echo "$port"
}

token_for() {
  curl -sf -H 'Content-Type: application/json' -d '{"username":"alice","password":"alice-demo"}' \
    "http://127.0.0.1:$1/v1/sessions" | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])'
}

# Requests per second from wrk's output.
rate() { awk '/^Requests\/sec/ { print int($2) }'; }
failures() { awk '/Non-2xx or 3xx responses/ { print $5 } END { }' | tail -1; }

echo "wrk: $connections connections, ${seconds}s each, $(nproc) cores"

# 1. Authenticated GETs against nginx's static copy of the same JSON.
port=$(start_server "$work/read.sqlite" "$work/read.log")
token=$(token_for "$port")
mkdir -p "$work/www"
curl -sf -H "Authorization: Bearer $token" "http://127.0.0.1:$port/v1/books/b-7" >"$work/www/b-7.json"
nginx_port=$(free_port)
cat >"$work/nginx.conf" <<CONF
worker_processes auto;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  server {
    listen 127.0.0.1:$nginx_port;
    root $work/www;
  }
}
CONF
nginx -c "$work/nginx.conf" -p "$work" -g 'daemon on;' 2>/dev/null || /usr/sbin/nginx -c "$work/nginx.conf" -p "$work" -g 'daemon on;'
sleep 0.3
wrk_args=(-t2 -c"$connections" -d"${seconds}s")
nginx_rate=$(wrk "${wrk_args[@]}" "http://127.0.0.1:$nginx_port/b-7.json" | rate)
server_rate=$(wrk "${wrk_args[@]}" -H "Authorization: Bearer $token" "http://127.0.0.1:$port/v1/books/b-7" | rate)
# The budget is checked once the mixed loads below have run too.
read_budget_met=0
python3 - "$nginx_rate" "$server_rate" <<'PY' || read_budget_met=$?
import sys
nginx, server = int(sys.argv[1]), int(sys.argv[2])
ratio = server / nginx
print(f"GET /v1/books/b-7, authenticated: {server} req/s; nginx static file: {nginx} req/s; ratio {ratio:.3f} (budget >= 0.2)")
sys.exit(0 if ratio >= 0.2 else 1)
PY

# 2. Mixed reads and writes, two servers per store.
cat >"$work/mixed.lua" <<'LUA'
-- 9 GETs, then a PUT with If-Match: * and a fresh Idempotency-Key, per 10 requests.
local counter = 0
local id = 0
local threads = 0
function setup(thread) threads = threads + 1; thread:set("id", threads) end
function init(args) id = tonumber(wrk.thread:get("id")) or 0; token = args[1]; tag = args[2] end
function request()
  counter = counter + 1
  local book = "/v1/books/b-" .. (counter % 20 + 1)
  local headers = { ["Authorization"] = "Bearer " .. token }
  if counter % 10 == 0 then
    headers["Content-Type"] = "application/json"
    headers["If-Match"] = "*"
    headers["Idempotency-Key"] = "bench-" .. tag .. "-" .. id .. "-" .. counter
    return wrk.format("PUT", book, headers, '{"title":"Bench ' .. counter .. '","copies":' .. (counter % 7) .. '}')
  end
  return wrk.format("GET", book, headers)
end
LUA

mixed() {
  local label=$1 db=$2
  local a b token out_a out_b
  a=$(start_server "$db" "$work/$label-a.log")
  b=$(start_server "$db" "$work/$label-b.log")
  token=$(token_for "$a")
  out_a=$(mktemp -p "$work"); out_b=$(mktemp -p "$work")
  wrk -t1 -c$((connections / 2)) -d"${seconds}s" -s "$work/mixed.lua" "http://127.0.0.1:$a" -- "$token" "$label-a" >"$out_a" &
  local wa=$!
  wrk -t1 -c$((connections / 2)) -d"${seconds}s" -s "$work/mixed.lua" "http://127.0.0.1:$b" -- "$token" "$label-b" >"$out_b"
  wait "$wa"
  local ra rb fa fb
  ra=$(rate <"$out_a"); rb=$(rate <"$out_b")
  fa=$(failures <"$out_a"); fb=$(failures <"$out_b")
  echo "mixed 90% GET / 10% PUT, two servers on $label: $((ra + rb)) req/s ($ra + $rb), non-2xx: $(( ${fa:-0} + ${fb:-0} ))"
}

mixed sqlite "$work/mixed.sqlite"
stop_servers
if [ -x /usr/lib/postgresql/15/bin/initdb ]; then
  # The cluster lives as long as with-postgres.sh runs: the load runs inside it.
  "$here/../scripts/with-postgres.sh" bash -c "
    set -euo pipefail
    /usr/lib/postgresql/15/bin/psql -q \"\$LIB_TEST_POSTGRES\" -c 'CREATE DATABASE bench'
    bin='$bin' work='$work' connections='$connections' seconds='$seconds'
    $(declare -f free_port start_server stop_servers token_for rate failures mixed)
    mixed postgresql \"\${LIB_TEST_POSTGRES%/*}/bench\"
    stop_servers
  "
fi
if [ "$read_budget_met" != 0 ]; then
  echo "budget missed: authenticated GETs, ratio to nginx serving a static file: $server_rate / $nginx_rate req/s, budget >= 0.2" >&2
  exit 1
fi
