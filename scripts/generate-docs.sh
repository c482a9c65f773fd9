#!/bin/sh
# Rewrites the checked-in shell completions (completions/) and the man page
# (man/lib.1) from a built lib binary, which generates them from its command
# registry. Tests in Tests/LibCLITests fail when these files are stale.
#
# usage: scripts/generate-docs.sh PATH_TO_lib_BINARY
#   e.g. swift build --product lib && scripts/generate-docs.sh .build/debug/lib
set -eu

if [ "$#" -ne 1 ]; then
    echo "usage: $0 PATH_TO_lib_BINARY" >&2
    exit 2
fi
lib=$1
if [ ! -x "$lib" ]; then
    echo "$0: '$lib' is not an executable" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/completions" "$root/man"

# Write each file beside its target, then rename, so that a failure never
# leaves a half-written file behind.
generate() {
    target=$1
    shift
    "$lib" "$@" >"$target.tmp" || { rm -f "$target.tmp"; exit 1; }
    mv "$target.tmp" "$target"
    echo "wrote ${target#"$root"/}"
}

generate "$root/completions/lib.bash" completion bash
generate "$root/completions/_lib" completion zsh
generate "$root/completions/lib.fish" completion fish
generate "$root/man/lib.1" __man

if command -v mandoc >/dev/null 2>&1; then
    mandoc -Tlint "$root/man/lib.1"
fi
