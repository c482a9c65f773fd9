#!/usr/bin/env bash
# Builds one libFuzzer target (Tests/Fuzz/README.md) into .build/fuzz/bin/TARGET.
#
#   scripts/build-fuzz-target.sh TARGET     # one of: scripts/build-fuzz-target.sh --list
#
# SwiftPM has no fuzzer products, so the modules a target needs are compiled
# here with swiftc, each once per change of its sources, instrumented for
# coverage and AddressSanitizer (-sanitize=fuzzer,address) and built with
# -enable-testing, so that a property can reach internal parsers with
# @testable import exactly as the FuzzRegressionTests target does. The normal
# build is untouched.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${FUZZ_BUILD_DIR:-$root/.build/fuzz}
export PATH="$PATH:/opt/swift/usr/bin"
SWIFTC=${SWIFTC:-swiftc}
CLANG=${CLANG:-clang}

# TARGET  PROPERTY-TYPE  MODULES (what the property imports; dependencies follow)
targets=(
  "json             JSONRoundTripProperty       LibJSON"
  "http-request     HTTPRequestHeadProperty     LibHTTPServer"
  "http-connection  HTTPConnectionProperty      LibHTTPServer"
  "cli-arguments    CLIArgumentProperty         LibCLI LibCommands"
  "http-date        HTTPDateProperty            LibHTTP"
  "client-answer    ClientAnswerProperty        LibNet LibCommands LibSync LibJSON"
)

if [ "${1:-}" = "--list" ]; then
  for t in "${targets[@]}"; do set -- $t; echo "$1"; done
  exit 0
fi

# The package's module graph, read from the package itself: each target's
# kind (Swift, C or system library) and direct dependencies, one line per
# target ("NAME KIND DEPENDENCY..."), kept beside the build products.
module_graph=$out/module-graph.txt
mkdir -p "$out"
if [ ! -e "$module_graph" ] || [ "$root/Package.swift" -nt "$module_graph" ]; then
  # A scratch path of its own: the package's .build is locked while
  # `swift test` runs, and FuzzRegressionTests runs this script.
  (cd "$root" && swift package --scratch-path "$out/describe" describe --type json) | python3 -c '
import json, sys
for target in json.load(sys.stdin)["targets"]:
    print(target["name"], target["module_type"], *target.get("target_dependencies", []))
' > "$module_graph.new"
  mv "$module_graph.new" "$module_graph"
fi
module_line() {
  local line
  line=$(grep -m1 "^$1 " "$module_graph") || { echo "build-fuzz-target: Package.swift has no target $1" >&2; exit 1; }
  echo "$line"
}
module_dependencies() { local line; line=$(module_line "$1"); set -- $line; shift 2; echo "$@"; }
module_kind() { local line; line=$(module_line "$1"); set -- $line; echo "$2"; }
target=${1:?usage: build-fuzz-target.sh TARGET (see --list)}
line=""
for t in "${targets[@]}"; do set -- $t; [ "$1" = "$target" ] && line=$t; done
[ -n "$line" ] || { echo "build-fuzz-target: unknown target '$target' (see --list)" >&2; exit 2; }
set -- $line
property=$2; shift 2
wanted=("$@")

mkdir -p "$out/modules" "$out/objects" "$out/bin" "$out/entries"
swift_flags=(-sanitize=fuzzer,address -O -g -enable-testing -parse-as-library -swift-version 6 -use-ld=lld)
# The C shims include GLib's, GIO's and libsecret's headers (Package.swift, glibHeaders).
read -r -a glib_headers <<< "$(pkg-config --cflags-only-I libsecret-1 gio-2.0)"
c_flags=(-fsanitize=fuzzer-no-link,address -O1 -g -fPIC "${glib_headers[@]}")

# Modules in build order (dependencies first), each listed once.
ordered=()
visit() {
  local m
  for m in "${ordered[@]}"; do [ "$m" = "$1" ] && return; done
  for m in $(module_dependencies "$1"); do visit "$m"; done
  ordered+=("$1")
}
for m in "${wanted[@]}"; do visit "$m"; done

# Rebuilds $2 unless it is newer than every file in $1 (and this script).
stale() {
  local dir=$1 product=$2
  [ -e "$product" ] || return 0
  [ -n "$(find "$dir" "$0" -newer "$product" -type f -print -quit)" ]
}

include_flags=(-I "$out/modules")
objects=()
link_flags=(-ldl)
for m in "${ordered[@]}"; do
  src="$root/Sources/$m"
  case $(module_kind "$m") in
    SystemLibraryTarget)
      # Its module map names the library to link.
      include_flags+=(-I "$src")
      for library in $(sed -n 's/.*link "\([^"]*\)".*/\1/p' "$src/module.modulemap"); do link_flags+=("-l$library"); done
      ;;
    ClangTarget)
      # A C target: SwiftPM makes its module map from include/; so does this.
      mapdir="$out/modules/$m"
      mkdir -p "$mapdir"
      printf 'module %s {\n    umbrella "%s/include"\n    export *\n}\n' "$m" "$src" > "$mapdir/module.modulemap"
      include_flags+=(-I "$mapdir")
      c_includes=(-I "$src/include" -I "$src")
      for dependency in $(module_dependencies "$m"); do c_includes+=(-I "$root/Sources/$dependency/include"); done
      for c in "$src"/*.c; do
        obj="$out/objects/$m-$(basename "$c" .c).o"
        if stale "$src" "$obj"; then
          "$CLANG" "${c_flags[@]}" "${c_includes[@]}" -c "$c" -o "$obj"
        fi
        objects+=("$obj")
      done
      ;;
    *)
      obj="$out/objects/$m.o"
      if stale "$src" "$obj"; then
        echo "fuzz: compiling $m" >&2
        mapfile -t sources < <(find "$src" -name '*.swift' | sort)
        "$SWIFTC" "${swift_flags[@]}" "${include_flags[@]}" -module-name "$m" -wmo -num-threads 0 \
          -emit-module -emit-module-path "$out/modules/$m.swiftmodule" \
          -c -o "$obj" "${sources[@]}"
        # swiftc leaves an unchanged object as it was, mtime included.
        touch "$obj"
      fi
      objects+=("$obj")
      ;;
  esac
done

entry="$out/entries/$target.swift"
cat > "$entry" <<EOF
// Generated by scripts/build-fuzz-target.sh: libFuzzer's entry point for '$target'.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    if let violation = $property.check(input) { fatalError("property violated: \(violation)") }
    return 0
}
EOF
binary="$out/bin/$target"
propdir="$root/Tests/Fuzz/Properties"
if stale "$propdir" "$binary" || [ -n "$(find "${objects[@]}" -newer "$binary" -print -quit)" ]; then
  echo "fuzz: linking $target" >&2
  "$SWIFTC" "${swift_flags[@]}" "${include_flags[@]}" -module-name "FuzzTarget" \
    "$entry" "$propdir/FuzzSupport.swift" "$propdir/$property.swift" "${objects[@]}" "${link_flags[@]}" -o "$binary"
fi
echo "$binary"
