#!/usr/bin/env bash
# CHANGELOG.md as a Debian changelog (deb-changelog(5)): each "## VERSION (YYYY-MM-DD)" section
# becomes an entry of gatekit VERSION-REVISION, its "- " items (with their continuation lines)
# the entry's items, signed by MAINTAINER at noon UTC of that date.
#   scripts/debian-changelog.sh CHANGELOG.md REVISION MAINTAINER
set -euo pipefail
trap 'echo "debian-changelog: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
changelog=$1 revision=$2 maintainer=$3
version="" day="" item=""
flush_item() { [ -z "$item" ] || printf '  * %s\n' "$item"; item=""; }
close_entry() {
    flush_item
    [ -z "$version" ] || printf '\n -- %s  %s\n\n' "$maintainer" "$(date -u -R -d "$day 12:00:00")"
}
heading='^## ([0-9][0-9A-Za-z.+~-]*) \(([0-9]{4}-[0-9]{2}-[0-9]{2})\)$'
while IFS= read -r line; do
    if [[ $line == "## Unreleased" ]]; then
        # Not shipped yet: it becomes "## VERSION (date)" when the version is cut.
        close_entry
        version="" skipping=1
        continue
    elif [[ $line == "## "* ]]; then
        close_entry
        skipping=""
        [[ $line =~ $heading ]] || { echo "debian-changelog: a release heading must read \"## VERSION (YYYY-MM-DD)\": $line" >&2; exit 1; }
        version=${BASH_REMATCH[1]} day=${BASH_REMATCH[2]}
        printf 'gatekit (%s-%s) unstable; urgency=medium\n\n' "$version" "$revision"
    elif [ -z "$version" ] || [ -n "${skipping:-}" ]; then
        continue
    elif [[ $line == "- "* ]]; then
        flush_item
        item=${line#- }
    elif [[ $line =~ ^\ \ [^\ ] && -n $item ]]; then
        item+=$'\n'"    ${line#  }"
    else
        flush_item
    fi
done < "$changelog"
close_entry
[ -n "$version" ] || { echo "debian-changelog: no \"## VERSION (YYYY-MM-DD)\" section in $changelog" >&2; exit 1; }
