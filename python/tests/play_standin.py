"""The Google Play stand-in that `make test` starts (scripts/with-play-standin.sh), as the
Play tests drive it: its settings, its world, its push issuer and its counters."""
from __future__ import annotations

import json
import os
import ssl
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, List, Mapping, Optional

import pytest

from gatekit.play import PlayClient, PushVerifier


def settings() -> SimpleNamespace:
    url = os.environ.get("GATEKIT_TEST_PLAY_URL")
    if not url:
        if os.environ.get("GATEKIT_REQUIRE_PLAY") == "1":
            pytest.fail("GATEKIT_REQUIRE_PLAY=1 but no stand-in: run the suite through scripts/with-play-standin.sh")
        pytest.skip("no Google Play stand-in (GATEKIT_TEST_PLAY_URL unset): run `make test`, which starts one")
    e = os.environ
    return SimpleNamespace(url=url, ca=e["GATEKIT_TEST_PLAY_CA"], account=e["GATEKIT_TEST_PLAY_SERVICE_ACCOUNT"],
                           package=e["GATEKIT_TEST_PLAY_PACKAGE"], keys_url=e["GATEKIT_TEST_PLAY_KEYS_URL"],
                           issuer=e["GATEKIT_TEST_PLAY_ISSUER"], email=e["GATEKIT_TEST_PLAY_PUSH_EMAIL"],
                           audience=e["GATEKIT_TEST_PLAY_PUSH_AUDIENCE"], log=Path(e["GATEKIT_TEST_PLAY_LOG"]),
                           control=e["GATEKIT_TEST_PLAY_CONTROL"])


class PlayStandIn:
    def __init__(self) -> None:
        self.s = settings()
        self._tls = ssl.create_default_context(cafile=self.s.ca)

    def _call(self, method: str, path: str, body: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.s.url + path, data=data, method=method,
                                         headers={"Authorization": f"Bearer {self.s.control}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, context=self._tls, timeout=30) as answer:
            result: Dict[str, Any] = json.loads(answer.read() or b"{}")
            return result

    def world(self, **world: Any) -> None:
        """Replaces the world (subscriptions=, products=, voided=, orders=, faults=, token=, …)."""
        self._call("PUT", "/standin/play/world", world)

    def counters(self) -> Dict[str, int]:
        return self._call("GET", "/standin/play/counters")

    def rotate(self) -> str:
        return str(self._call("POST", "/standin/play/rotate", {})["kid"])

    def revoke_tokens(self) -> None:
        self._call("POST", "/standin/play/revoke", {})

    def push_token(self, claims: Mapping[str, Any], header: Optional[Mapping[str, Any]] = None, sign: str = "current") -> str:
        return str(self._call("POST", "/standin/play/push-token", {"claims": dict(claims), "header": dict(header or {}), "sign": sign})["token"])

    def log(self) -> List[Dict[str, Any]]:
        if not self.s.log.exists():  # nothing asked yet
            return []
        return [json.loads(line) for line in self.s.log.read_text().splitlines()]

    def client(self, **options: Any) -> PlayClient:
        options.setdefault("base_url", self.s.url)
        options.setdefault("ca_file", self.s.ca)
        return PlayClient(self.s.package, self.s.account, **options)

    def verifier(self, **options: Any) -> PushVerifier:
        options.setdefault("issuer", self.s.issuer)
        options.setdefault("keys_url", self.s.keys_url)
        options.setdefault("ca_file", self.s.ca)
        return PushVerifier(self.s.package, self.s.audience, self.s.email, **options)


def claims(play: PlayStandIn, **changes: Any) -> Dict[str, Any]:
    now = int(time.time())
    base = {"aud": play.s.audience, "azp": "1", "email": play.s.email, "email_verified": True, "exp": now + 3600,
            "iat": now, "iss": play.s.issuer, "sub": "1"}
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}
