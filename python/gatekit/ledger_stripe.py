"""Stripe Billing in the ledger (``<gatekit/ledger_stripe.h>``): what Stripe's API answered about
a Subscription or a Checkout Session, recorded beside the App Store's and Google Play's purchases
and answered by the same questions (docs/stripe.md, docs/ledger.md, "Stripe")."""
from __future__ import annotations

import ctypes
import json
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Mapping, Optional, Union

from . import _bindings, _native
from ._ledger_query import instant_ms
from ._time import Instant
from .errors import check
from .stripe import StripeObjectError

if TYPE_CHECKING:
    from ._managed import StoreOwner
    from .ledger import IngestResult

__all__ = ["LedgerStripe", "StripeObjectError"]

StripeAnswer = Union[bytes, bytearray, str, Mapping[str, Any]]


def _bytes(answer: StripeAnswer) -> bytes:
    """The answer's bytes: exactly as Stripe sent them, or a dict written back as JSON."""
    if isinstance(answer, str):
        return answer.encode("utf-8")
    if isinstance(answer, (bytes, bytearray)):
        return bytes(answer)
    if isinstance(answer, Mapping):
        return json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    raise TypeError(f"answer must be what Stripe answered (bytes, text or a dict), not {type(answer).__name__}")


class LedgerStripe:
    """``store.ledger``'s Stripe calls. A subscription id ("sub_…") or a Checkout Session id
    ("cs_…") is the customer id of its purchase; the app's user id in ``client_reference_id``
    or in the metadata key the host names links the purchase to that app account (ask with
    ``app_user=True``). Live purchases are in environment "Production", test mode's in
    "Sandbox"."""

    _store: "StoreOwner"

    def ingest_stripe(self, answer: StripeAnswer, answered: Instant = None, *, past_due_grace: Optional[timedelta] = None,
                      account_metadata_key: Optional[str] = None) -> "IngestResult":
        """What Stripe's API answered (``GET /v1/subscriptions/{id}``, or ``GET
        /v1/checkout/sessions/{id}`` with ``expand[]=line_items`` and ``expand[]=payment_intent``),
        its bytes as Stripe sent them, ``answered`` when (None: now). ``past_due_grace``: how
        long a ``past_due`` subscription keeps access after the period paid for (None: the whole
        period Stripe is collecting for; ``timedelta(0)``: none; at most a year), applied to this
        answer. ``account_metadata_key``: the metadata key holding your user id (None:
        "app_user_id"). StripeObjectError for what is not such an object."""
        from .ledger import IngestResult
        data = _bytes(answer)
        options = _bindings.gatekit_ledger_stripe_options()
        check(_bindings.ledger_stripe_options_init(ctypes.byref(options), _bindings.GATEKIT_LEDGER_STRIPE_OPTIONS_VERSION))
        if past_due_grace is not None:
            if not isinstance(past_due_grace, timedelta):
                raise TypeError(f"past_due_grace takes a datetime.timedelta, not {type(past_due_grace).__name__}")
            if past_due_grace < timedelta(0):
                raise ValueError(f"past_due_grace must not be negative, not {past_due_grace}")
            options.past_due_grace_ms = past_due_grace // timedelta(milliseconds=1)
        key = None if account_metadata_key is None else _native.required_c_string(account_metadata_key, "account_metadata_key")
        options.account_metadata_key = key
        out = ctypes.c_void_p()
        check(_bindings.ledger_ingest_stripe(ctypes.byref(out), self._store.handle, data, len(data), instant_ms(answered), ctypes.byref(options)))
        return IngestResult.from_json(json.loads(_native.take_string(out)))
