"""Standard Webhooks (``<gatekit/webhooks.h>``): what GateKit signs for a team's backend, and the
receiver's check in one call. A delivery carries ``webhook-id`` (the event's id, the same on every
retry: the receiver's de-duplication key), ``webhook-timestamp`` (the attempt's Unix seconds) and
``webhook-signature`` (``v1,<base64 HMAC-SHA256 of id.timestamp.body>``, one per secret while a
secret is rolled). Any Standard Webhooks library verifies it too (docs/webhooks.md)."""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Dict, Mapping, Optional, Sequence, Union

from . import _bindings, _native, _time
from .errors import GateKitError, check, register

__all__ = ["EWEBHOOK_DELIVERY", "EWEBHOOK_HEADER", "EWEBHOOK_SIGNATURE", "EWEBHOOK_TIMESTAMP", "VerifiedWebhook", "WebhookVerificationError", "generate_secret",
           "headers", "sign", "verify"]

EWEBHOOK_HEADER = _bindings.GATEKIT_EWEBHOOK_HEADER
EWEBHOOK_SIGNATURE = _bindings.GATEKIT_EWEBHOOK_SIGNATURE
EWEBHOOK_TIMESTAMP = _bindings.GATEKIT_EWEBHOOK_TIMESTAMP
#: An attempt's error in a delivery's record (no call raises it): no answer, or one too long.
EWEBHOOK_DELIVERY = _bindings.GATEKIT_EWEBHOOK_DELIVERY


class WebhookVerificationError(GateKitError):
    """A delivery that is not the endpoint's (``code`` says which check: EWEBHOOK_HEADER,
    _SIGNATURE, _TIMESTAMP). Answer it with 400 and do nothing it asks."""


for _code in (EWEBHOOK_HEADER, EWEBHOOK_SIGNATURE, EWEBHOOK_TIMESTAMP):
    register(_code, WebhookVerificationError)


@dataclass(frozen=True)
class VerifiedWebhook:
    """A verified delivery: its ``id`` (de-duplicate on it), when this attempt was signed, and
    which of the secrets given signed it (0: the first)."""
    id: str
    signed_at: datetime
    secret_index: int


def _secrets(secrets: Union[str, Sequence[str]]) -> Any:
    given = [secrets] if isinstance(secrets, str) else list(secrets)
    return (ctypes.c_char_p * max(len(given), 1))(*[_native.required_c_string(s, "secrets") for s in given]), len(given)


def _body(body: Union[bytes, bytearray]) -> bytes:
    if not isinstance(body, (bytes, bytearray)):
        raise TypeError(f"body must be the request's bytes as received, not {type(body).__name__}")
    return bytes(body)


def generate_secret() -> str:
    """A new endpoint secret: ``whsec_`` and the base64 of 32 random bytes. Keep it as a password."""
    out = ctypes.c_void_p()
    check(_bindings.webhook_secret_generate(ctypes.byref(out)))
    return _native.take_string(out)


def sign(msg_id: str, timestamp: datetime, body: Union[bytes, bytearray], secrets: Union[str, Sequence[str]]) -> str:
    """The ``webhook-signature`` value for ``body`` sent as ``msg_id`` at ``timestamp`` (an aware
    datetime, the attempt's): one ``v1,…`` per secret, in the order given."""
    data = _body(body)
    array, count = _secrets(secrets)
    out = ctypes.c_void_p()
    check(_bindings.webhook_sign(ctypes.byref(out), _native.required_c_string(msg_id, "msg_id"), _time.seconds(timestamp, "timestamp"),
                                 data, len(data), array, count))
    return _native.take_string(out)


def headers(msg_id: str, body: Union[bytes, bytearray], secrets: Union[str, Sequence[str]], timestamp: Optional[datetime] = None) -> Dict[str, str]:
    """The three headers of a delivery of ``body`` as ``msg_id`` signed at ``timestamp`` (None: now)."""
    at = timestamp or datetime.now(timezone.utc)
    return {"webhook-id": msg_id, "webhook-timestamp": str(_time.seconds(at, "timestamp")),
            "webhook-signature": sign(msg_id, at, body, secrets)}


def _header(given: Mapping[str, str], name: str) -> Optional[bytes]:
    for key, value in given.items():
        if key.lower() == name:
            return _native.required_c_string(value, name)
    return None


def verify(body: Union[bytes, bytearray], headers: Mapping[str, str], secrets: Union[str, Sequence[str]], *,
           tolerance: timedelta = timedelta(seconds=300), now: Optional[datetime] = None) -> VerifiedWebhook:
    """Verifies one delivery: ``body`` the request's bytes exactly as received (a framework's raw
    body, never re-serialized JSON), ``headers`` the request's headers (any case), ``secrets``
    the endpoint's (two while one is rolled), the timestamp within ``tolerance`` of ``now``
    (None: this host's clock) in either direction. Raises :class:`WebhookVerificationError` with
    the reason (never a secret) or ``InvalidArgumentError``."""
    data = _body(body)
    array, count = _secrets(secrets)
    seconds = int(tolerance.total_seconds())
    if seconds <= 0:
        raise ValueError("tolerance must be at least a second (Standard Webhooks suggests 300 s)")
    msg_id, stamp = _header(headers, "webhook-id"), _header(headers, "webhook-timestamp")
    index = ctypes.c_size_t()
    check(_bindings.webhook_verify(ctypes.byref(index), msg_id, stamp, _header(headers, "webhook-signature"), data, len(data), array, count,
                                   seconds, _time.seconds(now, "now")))
    assert msg_id is not None and stamp is not None  # verified: both were there
    return VerifiedWebhook(msg_id.decode("ascii"), datetime.fromtimestamp(int(stamp), timezone.utc), index.value)
