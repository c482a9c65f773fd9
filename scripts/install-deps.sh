#!/usr/bin/env bash
# Installs the Debian packages lib needs to build, test, demo and benchmark,
# skipping what is already there. Runs apt-get as root (or through sudo).
set -euo pipefail

packages=(
  libsqlite3-dev sqlite3          # every store, and the CLI the benchmarks compare with
  libsodium-dev                   # lib-server's argon2id password hashes
  libcurl4-openssl-dev            # the client's HTTP transport
  libsecret-1-dev libsecret-tools # tokens in the Secret Service
  pkg-config                      # the GLib and libsecret header paths (Package.swift)
  dbus dbus-daemon gnome-keyring  # a private keyring for tests and the demo
  python3-dbusmock                # a mocked NetworkManager on a private system bus
  systemd                         # systemd-analyze verify for contrib/systemd's units
  iproute2 util-linux             # network namespaces for offline tests
  openssl                         # self-signed certificates for TLS tests
  tinyproxy nginx                 # a real forward proxy and TLS reverse proxy in tests
  time                            # GNU time -v: peak memory in the bounded-answer test
  mandoc                          # man page lint
  dpkg-dev lintian binutils       # make deb: dpkg-shlibdeps, dpkg-gencontrol, lintian, strip
  bash-completion man-db          # package tests: completions and man pages found where those tools look
  systemd-container               # make deb-check: systemd-nspawn boots the packages' service
  zsh fish                        # completion tests
  keyutils                        # keyctl: each test session gets a kernel session keyring of its own
  strace                          # crash trials (SIGKILL at a chosen write or fsync); which programs run
  hyperfine time                  # benchmarks (time: peak memory)
  valgrind                        # benchmarks: callgrind instruction counts
  libc6-dev                       # libc.a: lib is a static executable
  libpq-dev postgresql            # lib-server's PostgreSQL store, and the cluster its tests start
  wrk                             # make bench-server: lib-server against nginx serving the same JSON
  prometheus                      # promtool check metrics: lib-server's /metrics (OperationsListenerTests)
  python3-jsonschema bsdutils less  # --json checked against docs/json/; script(1) and a pager for TTY tests
  python3-venv                    # schemathesis's own environment (below)
  chromium                        # device sign-in: the verification page in a real headless browser
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "Installing: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# schemathesis (PyPI) checks lib-server against docs/openapi.yaml in `make
# test`; pinned, in a virtual environment of Debian's Python under .build.
schemathesis_version=4.32.5
venv="$(cd "$(dirname "$0")/.." && pwd)/.build/schemathesis"
if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "$schemathesis_version"; then
  echo "Installing schemathesis $schemathesis_version into $venv" >&2
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "schemathesis==$schemathesis_version"
fi
