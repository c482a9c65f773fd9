#!/usr/bin/env bash
# An online `lib get books/b-7` with a warm token cache (the kernel
# keyring's copy, no D-Bus) against curl's GET of the same book with the
# same token, on loopback and with lib-server 50 ms away
# (bench/latency-proxy.py, 25 ms each way), in the same hyperfine rounds.
# Budgets (DESIGN.md): ≤ 1.2 × curl on loopback, ≤ 1.1 × 50 ms away.
# Also shown, not budgeted: the same get in a session without the cached
# copy (lib-keyring-check session: the Secret Service over D-Bus).
# Usage: bench/get-online.sh BIN_DIR   (inside scripts/with-test-session.sh)
set -euo pipefail
BIN=$(cd "${1:-.build/release}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

bench_start_server
proxy_pid=""
trap '[ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null; bench_cleanup' EXIT

measure() {  # LABEL URL BUDGET
  local label=$1 url=$2 budget=$3 home="$bench_work/home-$1" config="$bench_work/curl-$1"
  mkdir -p "$home"
  printf 'alice-demo\n' | LIB_HOME="$home" "$BIN/lib" -q login "$url" --user alice --password-stdin
  LIB_HOME="$home" "$BIN/lib" get books/b-7 >/dev/null || { echo "lib get books/b-7 failed" >&2; exit 1; }
  # curl signs in as alice too; its token stays out of argv (a 0600 config file).
  local token
  token=$(curl -s -X POST "$url/v1/sessions" -H 'Content-Type: application/json' \
    -d '{"username":"alice","password":"alice-demo"}' | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')
  (umask 077; printf 'header = "Authorization: Bearer %s"\nurl = "%s/v1/books/b-7"\noutput = "/dev/null"\nsilent\nfail\n' \
    "$token" "$url" > "$config")
  curl -K "$config" || { echo "curl's GET failed" >&2; exit 1; }
  local commands=(curl "curl -K $config" lib "$BIN/lib get books/b-7")
  if [ -x "$BIN/lib-keyring-check" ]; then
    commands+=(cold "$BIN/lib-keyring-check session $BIN/lib get books/b-7")
  fi
  LIB_HOME="$home" bench_rounds "$bench_work/$label.json" 6 -N --warmup 3 --runs "${BENCH_GET_RUNS:-20}" -- "${commands[@]}"
  local ratio curl_m lib_m cold_m=""
  ratio=$(bench_round_ratio "$bench_work/$label.json" lib curl)
  curl_m=$(bench_median "$bench_work/$label.json" curl); lib_m=$(bench_median "$bench_work/$label.json" lib)
  [ -x "$BIN/lib-keyring-check" ] && cold_m=$(bench_median "$bench_work/$label.json" cold)
  ms() { python3 -c "import sys; print(f'{float(sys.argv[1])*1000:.1f}')" "$1"; }
  echo "get online, $label: lib (warm cache) $(ms "$lib_m") ms, curl $(ms "$curl_m") ms: $ratio × curl (budget ≤ $budget)" \
    "${cold_m:+; without the cached copy (Secret Service) $(ms "$cold_m") ms}"
  bench_budget "online get with a warm token cache, $label, as a multiple of curl" "$ratio" "<=" "$budget"
}

measure loopback "$BENCH_URL" 1.2
python3 "$here/latency-proxy.py" 127.0.0.1:0 "${BENCH_URL#http://}" 25 > "$bench_work/proxy.out" &
proxy_pid=$!
for _ in $(seq 1 100); do [ -s "$bench_work/proxy.out" ] && break; sleep 0.05; done
measure 50ms "http://$(sed -n '1s/^listening on //p' "$bench_work/proxy.out")" 1.1
