"""The public equivalent of the private member two of Apple's decoded-payload tests replace:
``SignedDataVerifier._verify_notification``, the verifier's check of the app and environment a
notification is about. Those tests swap in their own check to see which app and environment the
verifier derives for an External Purchase Token notification (Production or Sandbox, from its
externalPurchaseId), which the LocalTesting verifier itself would refuse.

GateKit's verifier always makes that check itself (it has no such member). Its public
equivalent is ``gatekit.jws.notification_subject``: the app and environment, derived in
libgatekit as Apple derives them. This wrapper reads the notification as Apple's verifier reads
LocalTesting data (not signed by the App Store: the payload as it is), hands the derived subject
to the test's check in place of the verifier's, and returns Apple's model of the notification.
scripts/apple-suite.py copies this file into the suite as ``tests/gatekit_subject.py``;
docs/appstore.md lists the replacement.
"""
from __future__ import annotations

import base64
import json
from typing import Any, Callable, Optional

from gatekit.apple_enums import Environment
from gatekit.jws import notification_subject
from gatekit.payload_models import ResponseBodyV2DecodedPayload


class SubjectCheckedVerifier:
    def __init__(self, verifier: Any, check: Callable[[Optional[str], Optional[int], Optional[Environment]], None]) -> None:
        if verifier.environment not in ("Xcode", "LocalTesting"):
            raise ValueError("only data the App Store never signs (Xcode, LocalTesting) is read unverified")
        self._check = check

    def verify_and_decode_notification(self, signed_payload: str) -> ResponseBodyV2DecodedPayload:
        part = signed_payload.split(".")[1]
        payload = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
        bundle_id, app_apple_id, environment = notification_subject(payload)
        self._check(bundle_id, app_apple_id, Environment(environment) if environment else None)
        return ResponseBodyV2DecodedPayload.from_json(payload)
