#!/usr/bin/env bash
# Cuts a release (CHANGELOG.md's header describes the step):
#   scripts/release.sh X.Y.Z
# on a clean checkout: sets the version everywhere it is written (include/gatekit/common.h, the
# library's copy, pyproject.toml, the package's __version__, the build tree's gatekit.pc, the
# generated bindings), turns
# CHANGELOG.md's "## Unreleased" into "## X.Y.Z (today)", checks that the symbols file names no
# version after X.Y.Z, commits "Release X.Y.Z" and tags it vX.Y.Z. Push the commit and the tag.
set -euo pipefail
version=${1:?usage: scripts/release.sh X.Y.Z}
[[ $version =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] || { echo "release: $version is not X.Y.Z" >&2; exit 2; }
major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]} patch=${BASH_REMATCH[3]}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -z "$(git status --porcelain)" ] || { echo "release: the checkout has uncommitted changes" >&2; exit 1; }
git rev-parse -q --verify "refs/tags/v$version" >/dev/null && { echo "release: v$version exists" >&2; exit 1; }
grep -q '^## Unreleased$' CHANGELOG.md || { echo "release: CHANGELOG.md has no \"## Unreleased\" section to release" >&2; exit 1; }
later=$(awk '/@Base/ {print $2}' packaging/debian/libgatekit0.symbols | sort -uV | awk -v v="$version" '$0 != v' |
        { while read -r s; do [ "$(printf '%s\n%s\n' "$s" "$version" | sort -V | tail -1)" = "$s" ] && echo "$s"; done; true; })
[ -z "$later" ] || { echo "release: the symbols file names versions after $version: $later" >&2; exit 1; }

sed -i -e "s/^#define GATEKIT_VERSION_MAJOR .*/#define GATEKIT_VERSION_MAJOR $major/" \
       -e "s/^#define GATEKIT_VERSION_MINOR .*/#define GATEKIT_VERSION_MINOR $minor/" \
       -e "s/^#define GATEKIT_VERSION_PATCH .*/#define GATEKIT_VERSION_PATCH $patch/" \
       -e "s/^#define GATEKIT_VERSION_STRING .*/#define GATEKIT_VERSION_STRING \"$version\"/" include/gatekit/common.h
sed -i -e "s/public static let major = .*/public static let major = $major/" \
       -e "s/public static let minor = .*/public static let minor = $minor/" \
       -e "s/public static let patch = .*/public static let patch = $patch/" \
       -e "s/public static let string: StaticString = .*/public static let string: StaticString = \"$version\"/" \
       Sources/GateKitCore/Support/GateKitVersion.swift
sed -i "s/^version = \".*\"/version = \"$version\"/" python/pyproject.toml
sed -i "s/^__version__ = \".*\"/__version__ = \"$version\"/" python/gatekit/__init__.py
sed -i "s/^Version: .*/Version: $version/" pkgconfig/gatekit.pc
sed -i "s/^## Unreleased$/## $version ($(date -u +%Y-%m-%d))/" CHANGELOG.md
# The generated files carry the header's constants (the version among them).
"${PYTHON:-python3}" scripts/gen-abi.py write >/dev/null
git commit -q -am "Release $version"
git tag -a "v$version" -m "GateKit $version"
echo "release: v$version tagged; push it with: git push origin HEAD v$version"
