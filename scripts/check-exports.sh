#!/usr/bin/env bash
# The .so must export exactly the functions include/gatekit.h declares: no more, no fewer.
set -euo pipefail
lib=$1 header=$2
exported=$(nm -D -g --defined-only "$lib" | awk '$2 ~ /^[TW]$/ {print $3}' | sort)
declared=$(grep -E '^GATEKIT_API' "$header" | sed -E 's/\(.*//; s/.*[ *]([A-Za-z_][A-Za-z0-9_]*)$/\1/' | sort)
if [ "$exported" != "$declared" ]; then
    echo "check-exports: $lib and $header disagree:" >&2
    diff <(echo "$declared") <(echo "$exported") | sed 's/^</  declared only:/; s/^>/  exported only:/' | grep only >&2
    echo "exports: 0 passed, 1 failed"
    exit 1
fi
echo "exports: $(echo "$declared" | wc -l) functions match the header"
echo "exports: 1 passed, 0 failed"
