#!/usr/bin/env bash
# Runs a command with the local HTTPS stand-in of the App Store Server API listening on
# loopback (Tests/standin/appstore_api_standin.py: own CA, own API key, Apple's documented
# answers, every request checked). The command sees GATEKIT_TEST_APPSTORE_* (URL, CA, key,
# key id, issuer, bundle id, environment, test anchor, request log).
exec "$(dirname "$0")/with-standin.sh" appstore_api "$@"
