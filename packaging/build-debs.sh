#!/bin/sh
# Builds the Debian packages lib and lib-server from built binaries, with
# dpkg's own tools: packaging/install.sh stages each package's files (the
# same list `make install` uses), dpkg-shlibdeps finds the libraries they
# link, dpkg-gencontrol writes the control file, dpkg-deb builds the .deb.
# `make deb` runs it on the release build; a test runs it on the debug build.
#
# usage: packaging/build-debs.sh [--ignore-missing-info] BIN_DIR OUT_DIR
#   BIN_DIR: the built lib, lib-online and lib-server
#   OUT_DIR: gets lib_VERSION_ARCH.deb and lib-server_VERSION_ARCH.deb
#            (and stage/, the trees they were built from)
#   --ignore-missing-info: a library that no Debian package provides is
#            left out of Depends (a debug build links the Swift toolchain's)
set -eu
umask 022

shlibdeps_options=
if [ "${1:-}" = --ignore-missing-info ]; then shlibdeps_options=--ignore-missing-info; shift; fi
if [ $# -ne 2 ]; then
    echo "usage: $0 [--ignore-missing-info] BIN_DIR OUT_DIR" >&2
    exit 2
fi
bin=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
debian=$src/packaging/debian

# The version is the one the programs print; both must agree.
version=$("$bin/lib" --version | sed -n 's/^lib //p')
server_version=$("$bin/lib-server" --version | sed -n 's/^lib-server //p')
if [ -z "$version" ] || [ "$version" != "$server_version" ]; then
    echo "$0: lib says version '$version', lib-server '$server_version': they must agree" >&2
    exit 1
fi

# Timestamps (changelog, files in the .deb) from the commit, so that a build
# of one commit gives the same packages.
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
    SOURCE_DATE_EPOCH=$(git -C "$src" log -1 --format=%ct 2>/dev/null || date +%s)
fi
export SOURCE_DATE_EPOCH

stage=$out/stage
rm -rf "$stage" "$out"/lib_*.deb "$out"/lib-server_*.deb
mkdir -p "$stage/source/debian"
lib_root=$stage/lib server_root=$stage/lib-server
"$src/packaging/install.sh" --layout debian --prefix /usr --bin "$bin" \
    --destdir "$lib_root" --server-destdir "$server_root" lib lib-server

# dpkg-gencontrol and dpkg-shlibdeps work in a source tree: this one holds
# only the control file and a changelog made for this version.
cd "$stage/source"
cp "$debian/control" debian/control
maintainer=$(sed -n 's/^Maintainer: //p' debian/control)
cat >debian/changelog <<EOF
lib ($version) unstable; urgency=medium

  * Release $version.

 -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")
EOF

for package in lib lib-server; do
    root=$stage/$package
    doc=$root/usr/share/doc/$package

    # As dh_strip does for executables; then check they still run.
    find "$root/usr/bin" "$root/usr/libexec" -type f -perm -u+x 2>/dev/null | while read -r f; do
        strip --remove-section=.comment --remove-section=.note "$f"
    done
    "$root/usr/bin/$package" --version >/dev/null

    install -d "$doc"
    install -m 0644 "$debian/copyright" "$doc/copyright"
    gzip -9n <debian/changelog >"$doc/changelog.gz"
    gzip -9n "$root"/usr/share/man/man1/*.1
    if [ -f "$debian/$package.lintian-overrides" ]; then
        install -d "$root/usr/share/lintian/overrides"
        install -m 0644 "$debian/$package.lintian-overrides" "$root/usr/share/lintian/overrides/$package"
    fi

    install -d -m 0755 "$root/DEBIAN"
    for script in postinst prerm postrm; do
        if [ -f "$debian/$package.$script" ]; then
            install -m 0755 "$debian/$package.$script" "$root/DEBIAN/$script"
        fi
    done
    # Every file under etc/ is a configuration file dpkg keeps the admin's edits of.
    (cd "$root" && find etc -type f 2>/dev/null | sed 's|^|/|' | sort) >"$root/DEBIAN/conffiles"
    [ -s "$root/DEBIAN/conffiles" ] || rm "$root/DEBIAN/conffiles"

    # Depends: the libraries the dynamic ELF files link, as Debian's shlibs
    # files name them (lib, static, links none).
    elves=$(find "$root/usr" -type f -perm -u+x -exec sh -c 'readelf -d "$1" 2>/dev/null | grep -q NEEDED' _ {} \; -print)
    # shellcheck disable=SC2086 # the options and file list are meant to split
    dpkg-shlibdeps $shlibdeps_options -T"debian/$package.substvars" $elves 2>"$stage/shlibdeps-$package.log" || {
        cat "$stage/shlibdeps-$package.log" >&2
        exit 1
    }
    if [ "$package" = lib ]; then
        # lib is a static executable: the C library and SQLite are in it.
        built_using=$(dpkg-query -W -f='${source:Package} (= ${source:Version}), ' libc6-dev libsqlite3-dev)
        echo "lib:Built-Using=${built_using%, }" >>"debian/$package.substvars"
    fi
    dpkg-gencontrol -p"$package" -P"$root" -T"debian/$package.substvars" -f"$stage/files"

    (cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
    arch=$(dpkg-architecture -qDEB_HOST_ARCH)
    dpkg-deb --root-owner-group --build "$root" "$out/${package}_${version}_$arch.deb" >/dev/null
    echo "built $out/${package}_${version}_$arch.deb"
done
