"""Stripe (``<gatekit/stripe.h>``): webhook deliveries verified exactly as Stripe signs them —
HMAC-SHA256 under the endpoint's ``whsec_…`` secret over ``t``, ".", and the body's bytes as
received, the signing instant within the tolerance of this host's clock in both directions
(docs/stripe.md). A verified delivery says which event happened to which object: whom to ask,
never a verdict."""
from __future__ import annotations

import ctypes
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Dict, Mapping, Optional, Sequence, Union

from . import _bindings, _native, _time
from ._result import JSONResult
from .errors import GateKitError, check, register

__all__ = ["ESTRIPE_EVENT", "ESTRIPE_OBJECT", "ESTRIPE_SIGNATURE", "ESTRIPE_SIGNATURE_HEADER", "ESTRIPE_TIMESTAMP", "StripeEvent",
           "StripeObjectError", "WebhookRejected", "verify_webhook"]

ESTRIPE_SIGNATURE_HEADER = _bindings.GATEKIT_ESTRIPE_SIGNATURE_HEADER
ESTRIPE_SIGNATURE = _bindings.GATEKIT_ESTRIPE_SIGNATURE
ESTRIPE_TIMESTAMP = _bindings.GATEKIT_ESTRIPE_TIMESTAMP
ESTRIPE_EVENT = _bindings.GATEKIT_ESTRIPE_EVENT
ESTRIPE_OBJECT = _bindings.GATEKIT_ESTRIPE_OBJECT


class WebhookRejected(GateKitError):
    """A delivery that is not Stripe's for this endpoint (``code`` says which check:
    ESTRIPE_SIGNATURE_HEADER, _SIGNATURE, _TIMESTAMP, _EVENT). Answer it with 400: Stripe
    retries a delivery that was not answered with 2xx."""


for _code in (ESTRIPE_SIGNATURE_HEADER, ESTRIPE_SIGNATURE, ESTRIPE_TIMESTAMP, ESTRIPE_EVENT):
    register(_code, WebhookRejected)


class StripeObjectError(GateKitError, ValueError):
    """``ledger.ingest_stripe`` was given what is not a Stripe object the ledger reads
    (ESTRIPE_OBJECT): not JSON, another object than a subscription or a checkout.session, a
    member of the wrong type, a Checkout Session read without its line items."""


register(ESTRIPE_OBJECT, StripeObjectError)


@dataclass(frozen=True)
class StripeEvent(JSONResult):
    """A verified delivery's event (``to_dict()`` is stripe_verify_webhook()'s JSON)."""
    id: str
    type: str
    livemode: bool
    created: datetime
    api_version: Optional[str]
    object_id: str
    object_type: str
    signed_at: datetime
    secret_index: int

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "StripeEvent":
        created, signed = _time.from_milliseconds(raw["created"] * 1000), _time.from_milliseconds(raw["signedAt"] * 1000)
        assert created is not None and signed is not None  # the library always says both
        return cls(id=raw["id"], type=raw["type"], livemode=raw["livemode"], created=created, api_version=raw.get("apiVersion"),
                   object_id=raw["object"]["id"], object_type=raw["object"]["object"], signed_at=signed, secret_index=raw["secretIndex"])

    def to_dict(self) -> Dict[str, Any]:
        return {"version": 1, "id": self.id, "type": self.type, "livemode": self.livemode,
                "created": _time.milliseconds(self.created, "created") // 1000, "apiVersion": self.api_version,
                "object": {"id": self.object_id, "object": self.object_type},
                "signedAt": _time.milliseconds(self.signed_at, "signed_at") // 1000, "secretIndex": self.secret_index}


def _header(signature: Union[str, Mapping[str, str]]) -> str:
    """The Stripe-Signature value, given as is or as a request's headers (any case)."""
    if isinstance(signature, str):
        return signature
    for name, value in signature.items():
        if name.lower() == "stripe-signature":
            return value
    raise WebhookRejected(ESTRIPE_SIGNATURE_HEADER, "the request has no Stripe-Signature header")


def verify_webhook(body: Union[bytes, bytearray], signature: Union[str, Mapping[str, str]], secrets: Union[str, Sequence[str]], *,
                   tolerance: timedelta = timedelta(seconds=300), now: Optional[datetime] = None) -> StripeEvent:
    """Verifies one delivery: ``body`` the request's bytes exactly as received (a framework's
    raw body, never re-serialized JSON), ``signature`` the Stripe-Signature header's value or
    the request's headers, ``secrets`` the endpoint's signing secret (two while one is rolled).
    Raises :class:`WebhookRejected` with the reason (never a secret) or ``InvalidArgumentError``."""
    if not isinstance(body, (bytes, bytearray)):
        raise TypeError(f"body must be the request's bytes as received, not {type(body).__name__}")
    given = [secrets] if isinstance(secrets, str) else list(secrets)
    array = (ctypes.c_char_p * max(len(given), 1))(*[_native.required_c_string(s, "secrets") for s in given])
    seconds = int(tolerance.total_seconds())
    if seconds <= 0:
        raise ValueError("tolerance must be at least a second (Stripe's libraries use 300 s)")
    out = ctypes.c_void_p()
    data = bytes(body)
    check(_bindings.stripe_verify_webhook(ctypes.byref(out), _native.required_c_string(_header(signature), "signature"), data, len(data),
                                          array, len(given), seconds, _time.milliseconds(now, "now") // 1000))
    return StripeEvent.from_dict(json.loads(_native.take_string(out)))
