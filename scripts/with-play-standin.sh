#!/usr/bin/env bash
# Runs a command with the local HTTPS stand-in of Google's Play endpoints listening on loopback
# (`python -m gatekit.standin.play`, shipped in the wheel: own CA, own service account, token endpoint, push key
# set, the Play Developer API paths, every request checked). The command sees
# GATEKIT_TEST_PLAY_* (URL, CA, service account file, package, keys URL, push issuer, push
# email and audience, request log, control token).
exec "$(dirname "$0")/with-standin.sh" play "$@"
