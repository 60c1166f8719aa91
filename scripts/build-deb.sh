#!/usr/bin/env bash
# make deb: the Debian packages libgatekit0 (the library), libgatekit-dev (header, .so link,
# gatekit.pc in the system pkg-config path) and gatekit-tools (the tool, its man page and bash
# completion), built with dpkg-deb from one install tree.
#   scripts/build-deb.sh TREE OUTDIR   TREE: `make install DESTDIR=TREE PREFIX=/usr LIBDIR=/usr/lib/<multiarch>`
set -euo pipefail
# Every failure names the command that failed (make alone says only "Error N").
trap 'echo "build-deb: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
tree=$(realpath "$1")
out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^#define GATEKIT_VERSION_STRING "\(.*\)"/\1/p' "$root/include/gatekit/common.h")
revision=1
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
libdir=usr/lib/$multiarch
# The maintainers as the repository records them (its commits' author).
maintainer="GateKit maintainers <maintainers@users.noreply.a-seed-5397f965.example>"
work=$(mktemp -d /tmp/gatekit-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
rm -f "$out"/*.deb

# CHANGELOG.md as the packages' changelog.Debian.gz; its newest entry must be this version.
"$root/scripts/debian-changelog.sh" "$root/CHANGELOG.md" "$revision" "$maintainer" > "$work/changelog"
newest=$(dpkg-parsechangelog -l "$work/changelog" -SVersion)
[ "$newest" = "$version-$revision" ] || { echo "build-deb: CHANGELOG.md's newest release is $newest, the header says $version" >&2; exit 1; }
gzip -9n < "$work/changelog" > "$work/changelog.Debian.gz"

# The library's run-time dependencies, as Debian computes them from its ELF references.
shlibs() {
    mkdir -p "$work/shlibs/debian"
    printf 'Source: gatekit\n\nPackage: %s\nArchitecture: any\n' "$1" > "$work/shlibs/debian/control"
    local depends
    depends=$(cd "$work/shlibs" && dpkg-shlibdeps -O --ignore-missing-info -l"$tree/$libdir" -e"$2" 2>"$work/shlibs.log" |
              sed -n 's/^shlibs:Depends=//p')
    [ -n "$depends" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies of $2:" >&2; cat "$work/shlibs.log" >&2; exit 1; }
    echo "$depends"
}

# package NAME SECTION DEPENDS DESCRIPTION FILE...   (files relative to the tree)
package() {
    local name=$1 section=$2 depends=$3 description=$4
    shift 4
    local dir="$work/$name"
    mkdir -p "$dir/DEBIAN" "$dir/usr/share/doc/$name"
    for f in "$@"; do
        mkdir -p "$dir/$(dirname "$f")"
        cp -a "$tree/$f" "$dir/$f"
    done
    install -m 0644 "$root/LICENSE" "$dir/usr/share/doc/$name/copyright"
    install -m 0644 "$work/changelog.Debian.gz" "$dir/usr/share/doc/$name/changelog.Debian.gz"
    {
        echo "Package: $name"
        echo "Version: $version-$revision"
        echo "Architecture: $arch"
        echo "Maintainer: $maintainer"
        echo "Section: $section"
        echo "Priority: optional"
        [ -n "$depends" ] && echo "Depends: $depends"
        [ "$name" = libgatekit0 ] && echo "Recommends: libcurl4, libpq5, libdbus-1-3"
        [ "$name" = libgatekit0 ] && echo "Multi-Arch: same"
        echo "Installed-Size: $(du -sk --exclude=DEBIAN "$dir" | cut -f1)"
        echo "Description: $description"
        echo " GateKit decides what an app's user may do: whether this user accepted this exact"
        echo " EULA text, whether the App Store really sold a product (receipts and StoreKit 2"
        echo " signed data, verified locally with OpenSSL), entitlements over time, the App Store"
        echo " Server API, and permission state."
    } > "$dir/DEBIAN/control"
    (cd "$dir" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 -r md5sum) > "$dir/DEBIAN/md5sums"
    if [ "$name" = libgatekit0 ]; then
        # The ABI, checked against the library (any symbol added or removed fails the build).
        "$root/scripts/check-symbols.sh" "$dir/$lib" "$dir/DEBIAN/symbols" >/dev/null
        echo "libgatekit 0 libgatekit0 (>= $version)" > "$dir/DEBIAN/shlibs"
        echo "activate-noawait ldconfig" > "$dir/DEBIAN/triggers"
    fi
    dpkg-deb --root-owner-group -Zxz --build "$dir" "$out/${name}_${version}-${revision}_${arch}.deb" >/dev/null
    echo "built $out/${name}_${version}-${revision}_${arch}.deb"
}

gzip -9n "$tree/usr/share/man/man1/gatekit.1"
lib="$libdir/libgatekit.so.$version"
# The build's $ORIGIN rpath has no use in the system folders (Debian policy: no rpath).
patchelf --remove-rpath "$tree/$lib"
# libsqlite3 is opened with dlopen on the first store open, so no ELF reference names it; the
# embedded store is the default, so the library depends on it (the others are recommended).
lib_depends="$(shlibs libgatekit0 "$tree/$lib"), libsqlite3-0"
package libgatekit0 libs "$lib_depends" \
    "GateKit: EULA gating, App Store receipts and signed data, permissions (library)" \
    "$lib" "$libdir/libgatekit.so.0"
package libgatekit-dev libdevel "libgatekit0 (= $version-$revision)" \
    "GateKit: EULA gating, App Store receipts and signed data, permissions (development files)" \
    usr/include/gatekit.h $(cd "$tree" && ls usr/include/gatekit/*.h) "$libdir/libgatekit.so" "$libdir/pkgconfig/gatekit.pc"
tool_depends="libgatekit0 (= $version-$revision)"
extra=$(shlibs gatekit-tools "$tree/usr/bin/gatekit")
extra=$(tr ',' '\n' <<<"$extra" | grep -v libgatekit | sed 's/^ *//' | paste -sd, | sed 's/,/, /g')
[ -n "$extra" ] && tool_depends="$tool_depends, $extra"
package gatekit-tools utils "$tool_depends" \
    "GateKit: EULA gating, App Store receipts and signed data, permissions (command-line tool)" \
    usr/bin/gatekit usr/share/man/man1/gatekit.1.gz usr/share/bash-completion/completions/gatekit
