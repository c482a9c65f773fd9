#!/bin/bash
# Installs the built packages into a throwaway copy of this machine (an
# overlay on a tmpfs, in a private mount namespace), boots it under systemd
# with systemd-nspawn, and checks lib-server.service for real: it starts
# under its sandbox as lib-server, `lib-server user add` works as DEPLOY.md
# says, a sign-in succeeds, a crash restarts it, SIGTERM stops it cleanly,
# and a wrong flag in /etc/default/lib-server fails without a restart loop.
# Nothing on the machine changes. Needs root and systemd-nspawn
# (systemd-container); `make deb-check` runs it after `make deb`.
#
# usage: packaging/service-check.sh DEB_DIR
set -euo pipefail

if [ $# -ne 1 ]; then echo "usage: $0 DEB_DIR" >&2; exit 2; fi
debs=$(cd "$1" && pwd)
if [ "${LIB_SERVICE_CHECK_INSIDE:-}" != 1 ]; then
    [ "$(id -u)" -eq 0 ] || { echo "$0: needs root (a mount namespace and a container)" >&2; exit 1; }
    command -v systemd-nspawn >/dev/null || { echo "$0: needs systemd-nspawn (apt-get install systemd-container)" >&2; exit 1; }
    LIB_SERVICE_CHECK_INSIDE=1 exec unshare --mount --propagation private "$0" "$debs"
fi

work=$(mktemp -d /tmp/lib-service-check.XXXXXX)
trap 'umount -R "$work/root" "$work/layer" 2>/dev/null || true; rm -rf "$work"' EXIT
root=$work/root results=$work/results
mkdir -p "$work/layer" "$root" "$results"
mount -t tmpfs tmpfs "$work/layer"
mkdir -p "$work/layer/upper" "$work/layer/work"
mount -t overlay overlay -o "lowerdir=/,upperdir=$work/layer/upper,workdir=$work/layer/work" "$root"

cp "$debs"/lib_*.deb "$debs"/lib-server_*.deb "$root/root/"
chroot "$root" sh -c 'dpkg -i /root/lib_*.deb /root/lib-server_*.deb' >"$results/dpkg.log" 2>&1 || {
    cat "$results/dpkg.log" >&2; exit 1
}

# The container boots into a target with only the check in it, which
# powers the container off when done.
cat >"$root/etc/systemd/system/lib-check.target" <<'EOF'
[Unit]
Description=lib-server service check
Requires=basic.target lib-check.service
After=basic.target
AllowIsolate=yes
EOF
cat >"$root/etc/systemd/system/lib-check.service" <<'EOF'
[Unit]
After=basic.target
[Service]
Type=oneshot
StandardOutput=file:/results/check.log
StandardError=inherit
ExecStart=/root/check.sh
ExecStopPost=/bin/systemctl --no-block poweroff
EOF
cat >"$root/root/check.sh" <<'EOF'
#!/bin/bash
exec 2>&1
failures=0
check() { # WHAT EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAIL: $1: expected '$2', got '$3'"; failures=$((failures + 1)); fi
}
prop() { systemctl show lib-server.service -p "$1" --value; }
wait_active() { for _ in $(seq 50); do [ "$(prop ActiveState)" = "$1" ] && [ "$(prop SubState)" = "$2" ] && return; sleep 0.1; done; }
session() {
    curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        --data '{"username":"alice","password":"a long password"}' http://127.0.0.1:8080/v1/sessions
}

check "enabled at installation" enabled "$(systemctl is-enabled lib-server.service)"
systemctl start lib-server.service
wait_active active running
check "running" active "$(prop ActiveState)"
check "as its own user" lib-server "$(ps -o user= -p "$(prop MainPID)")"
check "descriptors for its connections" "65536 65536" \
    "$(awk '/^Max open files/ { print $4, $5 }' "/proc/$(prop MainPID)/limits")"
check "flags from /etc/default/lib-server" \
    "/usr/bin/lib-server --listen 127.0.0.1:8080 --db /var/lib/lib-server/library.sqlite --session-lifetime 7776000 --ops-listen 127.0.0.1:9181" \
    "$(ps -o args= -p "$(prop MainPID)")"
printf '%s\n' 'a long password' | runuser -u lib-server -- \
    lib-server user add alice --role librarian --db /var/lib/lib-server/library.sqlite
check "sign-in as the added user" 201 "$(session)"
check "ready for a load balancer" ready "$(curl -s http://127.0.0.1:9181/readyz)"
check "database owned by lib-server, private" "lib-server 600" "$(stat -c '%U %a' /var/lib/lib-server/library.sqlite)"

pid=$(prop MainPID)
kill -KILL "$pid"
sleep 3
wait_active active running
check "restarted after a crash" "1 active" "$(prop NRestarts) $(prop ActiveState)"
check "signs in after the restart" 201 "$(session)"

systemctl stop lib-server.service
check "SIGTERM: a clean stop" "success 0" "$(prop Result) $(prop ExecMainStatus)"
# What the server itself wrote (not systemd's lines about it): no complaint
# from its sandbox, only its first line, once per start. Dispatch's own
# line is not the sandbox's doing: it asks for nice -4 for a worker thread,
# which no unprivileged user gets (it logs that to syslog, the journal here).
check "its journal" "$(printf '%s\n' 'listening on http://127.0.0.1:8080' 'operations on http://127.0.0.1:9181')" \
    "$(journalctl _SYSTEMD_UNIT=lib-server.service -o cat --no-pager |
        grep -v '^Failed to set thread priority for worker thread: pqc=0x[0-9a-f]* errno=13$' | sort -u)"

echo 'LIB_SERVER_OPTIONS=--no-such-flag' >>/etc/default/lib-server
systemctl reset-failed lib-server.service 2>/dev/null || true
systemctl start lib-server.service || true
sleep 4
check "a wrong flag: failed, not restarted" "failed 2 0" "$(prop ActiveState) $(prop ExecMainStatus) $(prop NRestarts)"

echo "failures: $failures"
EOF
chmod +x "$root/root/check.sh"

timeout 180 systemd-nspawn --quiet --directory="$root" --register=no --keep-unit \
    --bind="$results:/results" --boot -- systemd.unit=lib-check.target >"$results/console.log" 2>&1 || true
if [ ! -s "$results/check.log" ]; then
    echo "$0: the container did not run the check; its console:" >&2
    tail -30 "$results/console.log" >&2
    exit 1
fi
cat "$results/check.log"
grep -q '^failures: 0$' "$results/check.log"
