#!/bin/sh
# The one list of what lib and lib-server install, and where. `make
# install-files` and `make install-units` run it with the local layout;
# packaging/build-debs.sh runs it with the Debian layout into one staging
# root per package. A file added here reaches both.
#
# usage: packaging/install.sh [--layout local|debian] [--prefix PREFIX]
#            [--bin DIR] [--destdir DIR] [--server-destdir DIR] PART...
#   PART: lib (client, with its user units), user-units (only those),
#         lib-server (server, with its system unit and configuration file
#         in the Debian layout)
#   --bin: where the built lib, lib-online and lib-server are
#   --server-destdir: lib-server's root when it differs from --destdir's
set -eu

layout=local prefix=/usr/local bin= destdir= server_destdir=
while [ $# -gt 0 ]; do
    case $1 in
        --layout) layout=$2; shift 2 ;;
        --prefix) prefix=$2; shift 2 ;;
        --bin) bin=$2; shift 2 ;;
        --destdir) destdir=$2; shift 2 ;;
        --server-destdir) server_destdir=$2; shift 2 ;;
        -*) echo "$0: unknown option '$1'" >&2; exit 2 ;;
        *) break ;;
    esac
done
case $layout in local|debian) ;; *) echo "$0: --layout is local or debian" >&2; exit 2 ;; esac
[ $# -gt 0 ] || { echo "$0: name a PART: lib, user-units, lib-server" >&2; exit 2; }
: "${server_destdir:=$destdir}"
src=$(cd "$(dirname "$0")/.." && pwd)

# Debian's zsh looks in vendor-completions; site-functions is for /usr/local.
# Debian 12 keeps system units in /lib (usrmerge moves files later, not now).
if [ "$layout" = debian ]; then
    zsh_dir=$prefix/share/zsh/vendor-completions
    system_units=/lib/systemd/system
else
    zsh_dir=$prefix/share/zsh/site-functions
    system_units=
fi

need_bin() {
    [ -n "$bin" ] && [ -x "$bin/$1" ] || { echo "$0: no built $1 in '${bin:-(no --bin)}'" >&2; exit 1; }
}

# The units name /usr/local/bin in contrib/systemd; installed, they name PREFIX/bin.
unit() { # SOURCE DEST_DIR
    install -d "$2"
    sed "s|/usr/local/bin/|$prefix/bin/|" "$src/contrib/systemd/$1" >"$2/$1"
    chmod 0644 "$2/$1"
}

user_units() {
    for u in lib-push.service lib-push-once.service lib-push.timer; do
        unit "$u" "$destdir$prefix/lib/systemd/user"
    done
}

lib() {
    need_bin lib; need_bin lib-online
    d=$destdir$prefix
    install -d "$d/bin" "$d/libexec/lib" "$d/share/man/man1" "$d/share/bash-completion/completions" \
        "$destdir$zsh_dir" "$d/share/fish/vendor_completions.d" "$d/share/lib/prompt" "$d/share/lib/schemas"
    install -m 0755 "$bin/lib" "$d/bin/lib"
    install -m 0755 "$bin/lib-online" "$d/libexec/lib/lib-online"
    install -m 0644 "$src/man/lib.1" "$d/share/man/man1/lib.1"
    install -m 0644 "$src/completions/lib.bash" "$d/share/bash-completion/completions/lib"
    install -m 0644 "$src/completions/_lib" "$destdir$zsh_dir/_lib"
    install -m 0644 "$src/completions/lib.fish" "$d/share/fish/vendor_completions.d/lib.fish"
    for f in lib-prompt.bash lib-prompt.zsh lib-prompt.fish lib-prompt.p10k.zsh starship.toml; do
        install -m 0644 "$src/contrib/prompt/$f" "$d/share/lib/prompt/$f"
    done
    install -m 0644 "$src"/docs/json/*.schema.json "$d/share/lib/schemas/"
    user_units
    # The user's guides beyond the man page, where lib's help says they are
    # (docs/ARCHITECTURE.md is for developers).
    install -d "$d/share/doc/lib"
    install -m 0644 "$src/README.md" "$d/share/doc/lib/README.md"
    for f in CLI.md JSON.md KEYRING.md NETWORK.md PUSH.md READS.md WATCH.md; do
        install -m 0644 "$src/docs/$f" "$d/share/doc/lib/$f"
    done
}

lib_server() {
    need_bin lib-server
    d=$server_destdir$prefix
    install -d "$d/bin" "$d/share/man/man1"
    install -m 0755 "$bin/lib-server" "$d/bin/lib-server"
    install -m 0644 "$src/man/lib-server.1" "$d/share/man/man1/lib-server.1"
    if [ "$layout" = debian ]; then
        unit lib-server.service "$server_destdir$system_units"
        install -d "$server_destdir/etc/default"
        install -m 0644 "$src/packaging/debian/lib-server.default" "$server_destdir/etc/default/lib-server"
    fi
    install -d "$d/share/doc/lib-server"
    for f in DEPLOY.md PROTOCOL.md FAULTS.md openapi.yaml; do
        install -m 0644 "$src/docs/$f" "$d/share/doc/lib-server/$f"
    done
}

for part in "$@"; do
    case $part in
        lib) lib ;;
        user-units) user_units ;;
        lib-server) lib_server ;;
        *) echo "$0: unknown PART '$part' (lib, user-units, lib-server)" >&2; exit 2 ;;
    esac
done
