#!/bin/sh
# Rewrites the checked-in shell completions (completions/) and the man pages
# (man/lib.1, man/lib-server.1) from the built binaries, which generate them
# from their registries: lib's commands, lib-server's flags. Tests in
# Tests/LibCLITests and Tests/LibServerTests fail when these files are stale.
#
# usage: scripts/generate-docs.sh PATH_TO_lib_BINARY [PATH_TO_lib-server_BINARY]
#   e.g. swift build && scripts/generate-docs.sh .build/debug/lib
# lib-server is the one beside lib unless named.
set -eu

if [ "$#" -lt 1 ] || [ "$#" -gt 2 ]; then
    echo "usage: $0 PATH_TO_lib_BINARY [PATH_TO_lib-server_BINARY]" >&2
    exit 2
fi
lib=$1
server=${2:-$(dirname "$lib")/lib-server}
for program in "$lib" "$server"; do
    if [ ! -x "$program" ]; then
        echo "$0: '$program' is not an executable" >&2
        exit 2
    fi
done
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/completions" "$root/man"

# Write each file beside its target, then rename, so that a failure never
# leaves a half-written file behind.
generate() {
    target=$1
    program=$2
    shift 2
    "$program" "$@" >"$target.tmp" || { rm -f "$target.tmp"; exit 1; }
    mv "$target.tmp" "$target"
    echo "wrote ${target#"$root"/}"
}

generate "$root/completions/lib.bash" "$lib" completion bash
generate "$root/completions/_lib" "$lib" completion zsh
generate "$root/completions/lib.fish" "$lib" completion fish
generate "$root/man/lib.1" "$lib" __man
generate "$root/man/lib-server.1" "$server" __man

if command -v mandoc >/dev/null 2>&1; then
    mandoc -Tlint "$root/man/lib.1" "$root/man/lib-server.1"
fi
