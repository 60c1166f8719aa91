"""A test's own App Store history in the stand-in (Tests/standin/appstore_api_standin.py,
"Worlds"): the notifications Apple attempted to send, with their send attempts, the
transactions it holds, a clock and faults, under a bundle id of the test's own; and a client
of the stand-in for that bundle id."""
from __future__ import annotations

import base64
import json
import os
import ssl
import urllib.request
import uuid
from typing import Any, Dict, Iterable, List, Mapping, Optional

from gatekit import api_client as gk
from test_api_client import standin_settings


def signed_date(jws: str) -> int:
    """A compact JWS's signedDate (its payload read, not verified: the test signed it)."""
    body = jws.split(".")[1]
    payload: Dict[str, Any] = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    return int(payload["signedDate"])


class World:
    """``bundle``: an existing world's (another process's handle on it); None: a new one."""

    def __init__(self, bundle: Optional[str] = None) -> None:
        self.api = standin_settings()
        self.bundle = bundle or f"com.example.world.{uuid.uuid4().hex[:12]}"
        self._control = os.environ["GATEKIT_TEST_APPSTORE_CONTROL"]
        self._tls = ssl.create_default_context(cafile=self.api.ca)

    def _call(self, method: str, path: str, body: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        data = None if body is None else json.dumps(dict(body, bundleId=self.bundle)).encode()
        request = urllib.request.Request(self.api.url + path, data=data, method=method,
                                         headers={"Authorization": f"Bearer {self._control}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, context=self._tls, timeout=30) as answer:
            result: Dict[str, Any] = json.loads(answer.read() or b"{}")
            return result

    def put(self, notifications: Iterable[str], *, now: Optional[int] = None, page_size: int = 20,
            transactions: Iterable[str] = (), faults: Iterable[Mapping[str, Any]] = (),
            attempts: Optional[Mapping[str, str]] = None, delay_ms: int = 0, trickle_ms: int = 0) -> None:
        """Apple's history: each signed notification attempted at its signedDate (result
        ``attempts[jws]``, default SUCCESS), extra signed ``transactions``, the clock ``now``
        (Unix ms; None: the real clock), ``faults`` ({"request": N, "errorCode": C}: the Nth
        request answered with Apple's error C; {"request": N, "answer": {…}}: with that body, as a
        hostile server would), ``delay_ms`` before each answer and ``trickle_ms`` over which each
        answer's body goes out a byte at a time."""
        records: List[Dict[str, Any]] = []
        for jws in notifications:
            result = (attempts or {}).get(jws, "SUCCESS")
            records.append({"signedPayload": jws, "sendAttempts": [{"attemptDate": signed_date(jws), "sendAttemptResult": result}]})
        self._call("PUT", "/standin/world", {"now": now, "pageSize": page_size, "notifications": records,
                                             "transactions": list(transactions), "faults": list(faults), "delayMs": delay_ms,
                                             "trickleMs": trickle_ms})

    def clock(self, now: int) -> None:
        """Moves the world's clock forward to ``now`` (never back: time does not)."""
        self._call("POST", "/standin/world/clock", {"now": now})

    def counters(self) -> Dict[str, Any]:
        return self._call("GET", f"/standin/world?bundleId={self.bundle}")

    def client(self, **options: Any) -> gk.AppStoreServerAPIClient:
        options.setdefault("max_retries", 0)
        return gk.AppStoreServerAPIClient(self.api.key, self.api.key_id, self.api.issuer, self.bundle, gk.Environment.SANDBOX,
                                          base_url=self.api.url, ca_file=self.api.ca, **options)
