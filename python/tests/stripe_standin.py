"""The Stripe stand-in that `make test` starts (scripts/with-stripe-standin.sh), as the Stripe
tests drive it: its settings, its world, the deliveries it signs and the requests it saw."""
from __future__ import annotations

import json
import os
import ssl
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, List, Mapping, Optional, Tuple

import pytest

from gatekit.stripe import StripeClient


def settings() -> SimpleNamespace:
    url = os.environ.get("GATEKIT_TEST_STRIPE_URL")
    if not url:
        if os.environ.get("GATEKIT_REQUIRE_STRIPE") == "1":
            pytest.fail("GATEKIT_REQUIRE_STRIPE=1 but no stand-in: run the suite through scripts/with-stripe-standin.sh")
        pytest.skip("no Stripe stand-in (GATEKIT_TEST_STRIPE_URL unset): run `make test`, which starts one")
    e = os.environ
    return SimpleNamespace(url=url, ca=e["GATEKIT_TEST_STRIPE_CA"], key_file=e["GATEKIT_TEST_STRIPE_KEY_FILE"],
                           version=e["GATEKIT_TEST_STRIPE_VERSION"], log=Path(e["GATEKIT_TEST_STRIPE_LOG"]),
                           control=e["GATEKIT_TEST_STRIPE_CONTROL"])


class StripeStandIn:
    def __init__(self) -> None:
        self.s = settings()
        self._tls = ssl.create_default_context(cafile=self.s.ca)
        self._seen = 0

    def _call(self, method: str, path: str, body: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.s.url + path, data=data, method=method,
                                         headers={"Authorization": f"Bearer {self.s.control}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, context=self._tls, timeout=30) as answer:
            result: Dict[str, Any] = json.loads(answer.read() or b"{}")
            return result

    def world(self, objects: List[Mapping[str, Any]], faults: Optional[List[Mapping[str, Any]]] = None) -> None:
        """Replaces the world: the objects Stripe holds, and faults by request number; `requests`
        then lists what came after."""
        self._seen = len(self._log())
        self._call("PUT", "/standin/stripe/world", {"objects": list(objects), "faults": list(faults or [])})

    def objects(self, objects: List[Mapping[str, Any]]) -> None:
        """Each object replaces the world's object of its id (its events stay)."""
        self._call("POST", "/standin/stripe/objects", {"objects": list(objects)})

    def delivery(self, event_type: str, object_id: str, secret: str, t: Optional[int] = None) -> Tuple[str, bytes]:
        """A webhook delivery about the world's object, signed as Stripe signs: (Stripe-Signature, body)."""
        spec: Dict[str, Any] = {"type": event_type, "object": object_id, "secret": secret}
        if t is not None:
            spec["t"] = t
        signed = self._call("POST", "/standin/stripe/webhook", spec)
        return str(signed["header"]), str(signed["body"]).encode()

    def _log(self) -> List[Dict[str, Any]]:
        return [json.loads(line) for line in self.s.log.read_text().splitlines()] if self.s.log.exists() else []

    def requests(self) -> List[Dict[str, Any]]:
        """The requests since the world was last set, as the stand-in checked them."""
        return self._log()[self._seen:]

    def client(self, **options: Any) -> StripeClient:
        return StripeClient(self.s.key_file, base_url=self.s.url, ca_file=self.s.ca, **options)


@pytest.fixture
def stripe() -> StripeStandIn:
    return StripeStandIn()
