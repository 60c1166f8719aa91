"""Stripe (``<gatekit/stripe.h>``): webhook deliveries verified exactly as Stripe signs them —
HMAC-SHA256 under the endpoint's ``whsec_…`` secret over ``t``, ".", and the body's bytes as
received, the signing instant within the tolerance of this host's clock in both directions
(docs/stripe.md). A verified delivery says which event happened to which object: whom to ask,
never a verdict. :class:`StripeClient` asks: Stripe's API with the merchant's key, the API
version pinned, every POST idempotent, 409/429/5xx retried."""
from __future__ import annotations

import ctypes
import json
import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _bindings, _native, _time
from ._managed import Managed
from ._result import JSONResult
from .errors import GateKitError, check, register

__all__ = ["API_VERSION", "Delivery", "ESTRIPE_API", "ESTRIPE_EVENT", "ESTRIPE_OBJECT", "ESTRIPE_RESPONSE", "ESTRIPE_SIGNATURE",
           "ESTRIPE_SIGNATURE_HEADER", "ESTRIPE_TIMESTAMP", "ESTRIPE_TRANSPORT", "StripeAPIError", "StripeClient", "StripeEvent",
           "StripeObjectError", "StripeResponseError", "StripeTransportError", "WebhookRejected", "signature_header", "stripe_answer",
           "verify_webhook"]

ESTRIPE_SIGNATURE_HEADER = _bindings.GATEKIT_ESTRIPE_SIGNATURE_HEADER
ESTRIPE_SIGNATURE = _bindings.GATEKIT_ESTRIPE_SIGNATURE
ESTRIPE_TIMESTAMP = _bindings.GATEKIT_ESTRIPE_TIMESTAMP
ESTRIPE_EVENT = _bindings.GATEKIT_ESTRIPE_EVENT
ESTRIPE_OBJECT = _bindings.GATEKIT_ESTRIPE_OBJECT
ESTRIPE_API = _bindings.GATEKIT_ESTRIPE_API
ESTRIPE_TRANSPORT = _bindings.GATEKIT_ESTRIPE_TRANSPORT
ESTRIPE_RESPONSE = _bindings.GATEKIT_ESTRIPE_RESPONSE


class WebhookRejected(GateKitError):
    """A delivery that is not Stripe's for this endpoint (``code`` says which check:
    ESTRIPE_SIGNATURE_HEADER, _SIGNATURE, _TIMESTAMP, _EVENT). Answer it with 400: Stripe
    retries a delivery that was not answered with 2xx."""


for _code in (ESTRIPE_SIGNATURE_HEADER, ESTRIPE_SIGNATURE, ESTRIPE_TIMESTAMP, ESTRIPE_EVENT):
    register(_code, WebhookRejected)


class StripeObjectError(GateKitError, ValueError):
    """What is not a Stripe object as GateKit reads it (ESTRIPE_OBJECT), from
    ``ledger.ingest_stripe`` or ``gatekit.stripe_objects.parse``: not JSON, an object of a kind
    not read there, a member of the wrong type, a Checkout Session read without its line items,
    an invoice without its payments."""


register(ESTRIPE_OBJECT, StripeObjectError)


class StripeAPIError(GateKitError):
    """Stripe answered with an error: ``http_status``, and from Stripe's error object ``type``
    ("invalid_request_error"), ``error_code`` ("resource_missing"), ``decline_code``,
    ``message``, ``param``; ``retryable`` and ``retry_after`` (a timedelta, from Retry-After)."""

    def __init__(self, info: Mapping[str, Any], detail: str) -> None:
        super().__init__(ESTRIPE_API, detail)
        self.http_status = int(info.get("httpStatus") or 0)
        self.type: Optional[str] = info.get("type")
        self.error_code: Optional[str] = info.get("code")
        self.decline_code: Optional[str] = info.get("declineCode")
        self.message: Optional[str] = info.get("message")
        self.param: Optional[str] = info.get("param")
        self.retryable = bool(info.get("retryable"))
        seconds = info.get("retryAfter")
        self.retry_after = None if seconds is None else timedelta(seconds=min(int(seconds), 10 ** 9))


class StripeTransportError(GateKitError, ConnectionError):
    """No answer: DNS, connection, TLS (an untrusted or misnamed server), timeout."""


class StripeResponseError(GateKitError, ValueError):
    """An answer that is not what Stripe sends (not a JSON object, a list page that is not a
    list, over 16 MiB), or of the other mode than the key's."""


register(ESTRIPE_TRANSPORT, StripeTransportError)
register(ESTRIPE_RESPONSE, StripeResponseError)

#: The Stripe-Version every request sends (docs/stripe.md says why).
API_VERSION: str = (_bindings.stripe_api_version() or b"").decode("ascii")


def stripe_answer(rc: int, out: ctypes.c_void_p) -> Optional[str]:
    """The text a call that asks Stripe wrote (None: none): Stripe's error answer
    (GATEKIT_ESTRIPE_API, its JSON in out) raises StripeAPIError, whichever call met it (the
    client's, or the ledger's that ask Stripe)."""
    body = _native.take_string(out) if out.value else None
    if rc == ESTRIPE_API:
        raise StripeAPIError(json.loads(body or "{}"), _bindings.gatekit_last_error().decode("utf-8", "replace"))
    check(rc)
    return body


def _form(pairs: Union[None, str, Mapping[str, Any], Sequence[Tuple[str, Any]]]) -> Optional[bytes]:
    """A query or form: as given when text (already form-encoded), else encoded (True and False
    as Stripe writes them)."""
    from urllib.parse import urlencode
    if pairs is None:
        return None
    if isinstance(pairs, str):
        return pairs.encode("ascii")
    items = list(pairs.items()) if isinstance(pairs, Mapping) else list(pairs)
    return urlencode([(k, ("true" if v else "false") if isinstance(v, bool) else str(v)) for k, v in items]).encode("ascii")


class StripeClient(Managed):
    """A client of Stripe's API for one account and mode: ``api_key_file`` a file holding the
    secret (``sk_…``) or restricted (``rk_…``) key (read once, here: a regular file of this user
    that no other user can read or write), or ``api_key`` the key itself. ``base_url`` and
    ``ca_file`` point it at a stand-in or proxy; ``timeout`` bounds each call (retries
    included); 409, 429 and 5xx are retried up to ``max_retries`` times. The key is never in an
    error. Thread-safe: share one client."""

    def __init__(self, api_key_file: Optional[Union[str, "os.PathLike[str]"]] = None, *, api_key: Optional[str] = None,
                 base_url: Optional[str] = None, ca_file: Optional[Union[str, "os.PathLike[str]"]] = None,
                 timeout: timedelta = timedelta(seconds=30), connect_timeout: timedelta = timedelta(seconds=10),
                 max_retries: int = 2, max_retry_wait: timedelta = timedelta(seconds=30), user_agent: Optional[str] = None) -> None:
        options = _bindings.gatekit_stripe_client_options()
        check(_bindings.stripe_client_options_init(ctypes.byref(options), _bindings.GATEKIT_STRIPE_CLIENT_OPTIONS_VERSION))
        options.api_key_file = _native.to_c_string(None if api_key_file is None else os.fspath(api_key_file), "api_key_file")
        options.api_key = _native.to_c_string(api_key, "api_key")
        options.base_url = _native.to_c_string(base_url, "base_url")
        options.ca_file = _native.to_c_string(None if ca_file is None else os.fspath(ca_file), "ca_file")
        options.timeout_ms = _time.span_milliseconds(timeout, "timeout")
        options.connect_timeout_ms = _time.span_milliseconds(connect_timeout, "connect_timeout")
        options.max_retries = int(max_retries)
        options.max_retry_wait_ms = _time.span_milliseconds(max_retry_wait, "max_retry_wait")
        options.user_agent = _native.to_c_string(user_agent, "user_agent")
        handle = ctypes.POINTER(_bindings.gatekit_stripe_client)()
        check(_bindings.stripe_client_new(ctypes.byref(handle), ctypes.byref(options)))
        self._handle = handle

    def _release(self, handle: Any) -> None:
        _bindings.stripe_client_free(handle)

    @property
    def is_test(self) -> bool:
        """Whether the key is a test-mode key: its answers are test mode's (environment "Sandbox")."""
        return check(_bindings.stripe_client_is_test(self.handle)) == 1

    def _call(self, function: Any, *args: Any) -> Dict[str, Any]:
        out = ctypes.c_void_p()
        body = stripe_answer(function(ctypes.byref(out), self.handle, *args), out)
        return dict(json.loads(body or "{}"))

    def get(self, path: str, query: Union[None, str, Mapping[str, Any], Sequence[Tuple[str, Any]]] = None) -> Dict[str, Any]:
        """``GET path`` ("/v1/subscriptions/sub_…") with ``query`` (pairs, a dict, or form-encoded
        text: ``[("expand[]", "line_items")]``): Stripe's object as a dict."""
        return self._call(_bindings.stripe_get, _native.required_c_string(path, "path"), _form(query))

    def get_bytes(self, path: str, query: Union[None, str, Mapping[str, Any], Sequence[Tuple[str, Any]]] = None) -> bytes:
        """As :meth:`get`, Stripe's body exactly as sent (for ``ledger.ingest_stripe``)."""
        out = ctypes.c_void_p()
        body = stripe_answer(_bindings.stripe_get(ctypes.byref(out), self.handle, _native.required_c_string(path, "path"), _form(query)), out)
        return (body or "").encode("utf-8")

    def post(self, path: str, form: Union[None, str, Mapping[str, Any], Sequence[Tuple[str, Any]]] = None) -> Dict[str, Any]:
        """``POST path`` with ``form`` (``{"metadata[app_user_id]": "alice"}``) under a fresh
        idempotency key that its retries repeat."""
        return self._call(_bindings.stripe_post, _native.required_c_string(path, "path"), _form(form))

    def list(self, path: str, query: Union[None, str, Mapping[str, Any], Sequence[Tuple[str, Any]]] = None, *,
             max_pages: int = 100) -> Tuple[List[Dict[str, Any]], bool]:
        """Every page of a list ("/v1/subscriptions", ``{"status": "all"}``), at most
        ``max_pages``: the objects, and whether more were left."""
        page = self._call(_bindings.stripe_list, _native.required_c_string(path, "path"), _form(query), int(max_pages))
        return list(page["data"]), bool(page["has_more"])


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


def signature_header(signature: Union[str, Mapping[str, str]]) -> str:
    """The Stripe-Signature value, given as is or as a request's headers (any case)."""
    if isinstance(signature, str):
        return signature
    for name, value in signature.items():
        if name.lower() == "stripe-signature":
            return value
    raise WebhookRejected(ESTRIPE_SIGNATURE_HEADER, "the request has no Stripe-Signature header")


@dataclass(frozen=True)
class Delivery:
    """A delivery's arguments as the C calls take them (stripe_verify_webhook, the ledger's)."""
    header: bytes
    body: bytes
    secrets: Any  # a ctypes array of char*
    count: int
    tolerance_s: int

    @classmethod
    def of(cls, body: Union[bytes, bytearray], signature: Union[str, Mapping[str, str]], secrets: Union[str, Sequence[str]],
           tolerance: timedelta) -> "Delivery":
        if not isinstance(body, (bytes, bytearray)):
            raise TypeError(f"body must be the request's bytes as received, not {type(body).__name__}")
        given = [secrets] if isinstance(secrets, str) else list(secrets)
        array = (ctypes.c_char_p * max(len(given), 1))(*[_native.required_c_string(s, "secrets") for s in given])
        seconds = int(tolerance.total_seconds())
        if seconds <= 0:
            raise ValueError("tolerance must be at least a second (Stripe's libraries use 300 s)")
        return cls(_native.required_c_string(signature_header(signature), "signature"), bytes(body), array, len(given), seconds)


def verify_webhook(body: Union[bytes, bytearray], signature: Union[str, Mapping[str, str]], secrets: Union[str, Sequence[str]], *,
                   tolerance: timedelta = timedelta(seconds=300), now: Optional[datetime] = None) -> StripeEvent:
    """Verifies one delivery: ``body`` the request's bytes exactly as received (a framework's
    raw body, never re-serialized JSON), ``signature`` the Stripe-Signature header's value or
    the request's headers, ``secrets`` the endpoint's signing secret (two while one is rolled).
    Raises :class:`WebhookRejected` with the reason (never a secret) or ``InvalidArgumentError``."""
    delivery = Delivery.of(body, signature, secrets, tolerance)
    out = ctypes.c_void_p()
    check(_bindings.stripe_verify_webhook(ctypes.byref(out), delivery.header, delivery.body, len(delivery.body), delivery.secrets,
                                          delivery.count, delivery.tolerance_s, _time.milliseconds(now, "now") // 1000))
    return StripeEvent.from_dict(json.loads(_native.take_string(out)))
