#!/usr/bin/env bash
# `make demo`: the gatekit tool gating a EULA as a host would at launch, with no input,
# in a throw-away store.
set -euo pipefail
tool=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GATEKIT_STORE="$work/store.sqlite"
unset GATEKIT_ACCEPT_EULA
cp examples/EULA.sample.txt "$work/EULA.txt"

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
expect() {  # expect CODE command...: runs it, fails the demo unless it exits with CODE
    local want=$1; shift
    step "gatekit $*"
    set +e; "$tool" "$@" </dev/null; local got=$?; set -e
    echo "(exit $got)"
    [ "$got" -eq "$want" ] || { echo "demo: expected exit $want" >&2; exit 1; }
}

echo "== EULA gating (store: $GATEKIT_STORE)"
expect 3   eula status --doc terms --file "$work/EULA.txt"
expect 172 eula check --doc terms --file "$work/EULA.txt"
expect 0   eula check --doc terms --file "$work/EULA.txt" --accept
expect 0   eula check --doc terms --file "$work/EULA.txt"
step "edit the EULA text"
echo "4. New clause: the agreement now covers plug-ins." >> "$work/EULA.txt"
expect 3   eula status --doc terms --file "$work/EULA.txt"
step "GATEKIT_ACCEPT_EULA=1 gatekit eula check ..."
GATEKIT_ACCEPT_EULA=1 "$tool" eula check --doc terms --file "$work/EULA.txt" </dev/null
expect 0   eula status --doc terms --file "$work/EULA.txt"
expect 0   eula decline --doc privacy --file examples/EULA.sample.txt --user alice
expect 0   eula history --all

for part in scripts/demo.d/*.sh; do
    [ -e "$part" ] || continue
    # shellcheck source=/dev/null
    source "$part"
done
echo
echo "demo: done"
