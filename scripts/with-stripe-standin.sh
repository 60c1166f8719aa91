#!/usr/bin/env bash
# Runs a command with the local HTTPS stand-in of Stripe's API listening on loopback
# (`python -m gatekit.standin.stripe`, shipped in the wheel: own CA, a test-mode key, the v1 paths the
# ledger reads, every request checked). The command sees GATEKIT_TEST_STRIPE_* (URL, CA, key file,
# pinned version, request log, control token).
exec "$(dirname "$0")/with-standin.sh" stripe "$@"
