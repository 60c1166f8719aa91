"""Stripe Billing in the ledger (``<gatekit/ledger_stripe.h>``): what Stripe's API answered about
a Subscription or a Checkout Session, recorded beside the App Store's and Google Play's purchases
and answered by the same questions (docs/stripe.md, docs/ledger.md, "Stripe")."""
from __future__ import annotations

import ctypes
import json
from dataclasses import dataclass
from enum import IntEnum
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Union

from . import _bindings, _native, _time
from ._enums import SyncOutcome
from ._result import JSONResult
from ._ledger_query import instant_ms
from ._time import Instant
from .errors import GateKitError, check, error_for
from .stripe import Delivery, StripeClient, StripeObjectError, stripe_answer

if TYPE_CHECKING:
    from ._managed import StoreOwner
    from .ledger import IngestResult

__all__ = ["DisputePolicy", "LedgerStripe", "StripeObjectError", "StripeSyncReport", "StripeWebhookResult"]

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


class DisputePolicy(IntEnum):
    """When a Stripe dispute (a chargeback) takes access back (``GATEKIT_STRIPE_DISPUTES_*``).
    A dispute won, an inquiry closed or a dispute prevented never does."""
    REVOKE_WHEN_OPENED = _bindings.GATEKIT_STRIPE_DISPUTES_REVOKE_WHEN_OPENED
    """From when it was opened, restored if it is won (the default)."""
    REVOKE_WHEN_LOST = _bindings.GATEKIT_STRIPE_DISPUTES_REVOKE_WHEN_LOST
    """Only once lost, then from when it was opened."""
    NEVER = _bindings.GATEKIT_STRIPE_DISPUTES_NEVER
    """A chargeback never takes access back."""


@dataclass(frozen=True)
class StripeWebhookResult:
    """What ``ingest_stripe_webhook`` did: the verified event (its id, type, mode and object),
    and the ingestion of the object read back (None when the event names nothing the ledger
    reads)."""
    event_id: str
    event_type: str
    livemode: bool
    object_id: str
    object_type: str
    ingested: Optional["IngestResult"]


@dataclass(frozen=True)
class StripeSyncReport(JSONResult):
    """What one ``sync_stripe`` did (``to_dict()`` is ledger_sync_stripe()'s JSON): pages read,
    subscriptions recorded from the list (the first sync), events read, objects read back and
    recorded, and those Stripe would not answer about (``refresh_failures``: id → message)."""
    outcome: SyncOutcome
    stopped_by: str
    mode: str
    pages: int
    listed: int
    events: int
    refreshed: int
    refresh_failures: Dict[str, str]
    raw: Mapping[str, Any]

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "StripeSyncReport":
        return cls(outcome=SyncOutcome[raw["outcome"].upper()], stopped_by=raw["stoppedBy"], mode=raw["mode"], pages=raw["pages"],
                   listed=raw["listed"], events=raw["events"], refreshed=raw["refreshed"],
                   refresh_failures={f["object"]: f["error"] for f in raw["refreshFailures"]}, raw=dict(raw))

    def to_dict(self) -> Dict[str, Any]:
        return dict(self.raw)


def _options(past_due_grace: Optional[timedelta], account_metadata_key: Optional[str], disputes: DisputePolicy) -> Any:
    options = _bindings.gatekit_ledger_stripe_options()
    check(_bindings.ledger_stripe_options_init(ctypes.byref(options), _bindings.GATEKIT_LEDGER_STRIPE_OPTIONS_VERSION))
    if past_due_grace is not None:
        if not isinstance(past_due_grace, timedelta):
            raise TypeError(f"past_due_grace takes a datetime.timedelta, not {type(past_due_grace).__name__}")
        if past_due_grace < timedelta(0):
            raise ValueError(f"past_due_grace must not be negative, not {past_due_grace}")
        options.past_due_grace_ms = past_due_grace // timedelta(milliseconds=1)
    options.account_metadata_key = None if account_metadata_key is None else _native.required_c_string(account_metadata_key, "account_metadata_key")
    if not isinstance(disputes, DisputePolicy):
        raise TypeError(f"disputes takes a DisputePolicy, not {type(disputes).__name__}")
    options.dispute_policy = int(disputes)
    return options


class LedgerStripe:
    """``store.ledger``'s Stripe calls. A subscription id ("sub_…") or a Checkout Session id
    ("cs_…") is the customer id of its purchase; the app's user id in ``client_reference_id``
    or in the metadata key the host names links the purchase to that app account (ask with
    ``app_user=True``). Live purchases are in environment "Production", test mode's in
    "Sandbox"."""

    _store: "StoreOwner"

    def ingest_stripe(self, answer: StripeAnswer, answered: Instant = None, *, past_due_grace: Optional[timedelta] = None,
                      account_metadata_key: Optional[str] = None,
                      disputes: DisputePolicy = DisputePolicy.REVOKE_WHEN_OPENED) -> "IngestResult":
        """What Stripe's API answered — ``GET /v1/subscriptions/{id}``; ``GET
        /v1/checkout/sessions/{id}`` with ``expand[]=line_items`` and ``expand[]=payment_intent``;
        an invoice with ``expand[]=payments`` (what its payments paid for); a charge with
        ``expand[]=refunds`` (refunded whole: revoked from then); a dispute — its bytes as Stripe
        sent them, ``answered`` when (None: now). ``past_due_grace``: how long a ``past_due``
        subscription keeps access after the period paid for (None: the whole period Stripe is
        collecting for; ``timedelta(0)``: none; at most a year), applied to this answer.
        ``account_metadata_key``: the metadata key holding your user id (None: "app_user_id").
        ``disputes``: when a dispute takes access back. StripeObjectError for what is not such
        an object."""
        from .ledger import IngestResult
        data = _bytes(answer)
        options = _options(past_due_grace, account_metadata_key, disputes)
        out = ctypes.c_void_p()
        check(_bindings.ledger_ingest_stripe(ctypes.byref(out), self._store.handle, data, len(data), instant_ms(answered), ctypes.byref(options)))
        return IngestResult.from_json(json.loads(_native.take_string(out)))

    def ingest_stripe_batch(self, answers: Sequence[StripeAnswer], answered: Instant = None, *,
                            past_due_grace: Optional[timedelta] = None, account_metadata_key: Optional[str] = None,
                            disputes: DisputePolicy = DisputePolicy.REVOKE_WHEN_OPENED) -> "List[Union[IngestResult, GateKitError]]":
        """Several Subscriptions, Checkout Sessions and Invoices, each read as ``ingest_stripe``
        reads it, recorded in one durable transaction, in order: each result in input order is
        an IngestResult, or the exception (not raised) for an answer refused — a charge or a
        dispute among them, which ``ingest_stripe`` takes one by one."""
        from .ledger import IngestResult
        if isinstance(answers, (str, bytes, bytearray, Mapping)):
            raise TypeError("answers is a sequence of Stripe answers, not one answer")
        texts = [_bytes(answer) for answer in answers]
        if any(b"\0" in text for text in texts):
            raise ValueError("a Stripe answer holds no NUL byte")
        array = (ctypes.c_char_p * max(len(texts), 1))(*texts)
        options = _options(past_due_grace, account_metadata_key, disputes)
        out = ctypes.c_void_p()
        check(_bindings.ledger_ingest_stripe_batch(ctypes.byref(out), self._store.handle, array, len(texts), instant_ms(answered),
                                                   ctypes.byref(options)))
        results: List[Union[IngestResult, GateKitError]] = []
        for entry in json.loads(_native.take_string(out))["results"]:
            results.append(error_for(entry["error"], entry["message"]) if "error" in entry else IngestResult.from_json(entry))
        return results

    def refresh_stripe(self, client: StripeClient, object_id: str, *, past_due_grace: Optional[timedelta] = None,
                       account_metadata_key: Optional[str] = None,
                       disputes: DisputePolicy = DisputePolicy.REVOKE_WHEN_OPENED) -> "IngestResult":
        """Reads ``object_id`` from Stripe through ``client`` and records the answer: a
        subscription ("sub_…"), a Checkout Session ("cs_…"), an invoice ("in_…"), a charge
        ("ch_…"), a refund's charge ("re_…") or a dispute ("du_…"); a charge or dispute whose
        payment the ledger cannot tie to a purchase yet has the invoice or Checkout Session it
        paid read first (StripeAPIError for Stripe's error answers)."""
        from .ledger import IngestResult
        if not isinstance(client, StripeClient):
            raise TypeError(f"client must be a StripeClient, not {type(client).__name__}")
        options = _options(past_due_grace, account_metadata_key, disputes)
        out = ctypes.c_void_p()
        report = stripe_answer(_bindings.ledger_refresh_stripe(ctypes.byref(out), self._store.handle, client.handle,
                                                               _native.required_c_string(object_id, "object_id"), ctypes.byref(options)), out)
        return IngestResult.from_json(json.loads(report or "{}"))

    def ingest_stripe_webhook(self, client: StripeClient, headers: Union[str, Mapping[str, str]], body: Union[bytes, bytearray],
                              secrets: Union[str, Sequence[str]], *, tolerance: timedelta = timedelta(seconds=300),
                              past_due_grace: Optional[timedelta] = None, account_metadata_key: Optional[str] = None,
                              disputes: DisputePolicy = DisputePolicy.REVOKE_WHEN_OPENED) -> StripeWebhookResult:
        """A delivery to your webhook endpoint: verified as ``gatekit.stripe.verify_webhook`` does
        (``headers`` the request's headers or the Stripe-Signature value, ``body`` its bytes as
        received, ``secrets`` the endpoint's), then the object its event names read back from
        Stripe through ``client`` and recorded; the event's body is never recorded. Answer 2xx
        only after this returns (WebhookRejected: answer 400)."""
        from .ledger import IngestResult
        if not isinstance(client, StripeClient):
            raise TypeError(f"client must be a StripeClient, not {type(client).__name__}")
        delivery = Delivery.of(body, headers, secrets, tolerance)
        options = _options(past_due_grace, account_metadata_key, disputes)
        out = ctypes.c_void_p()
        report = stripe_answer(_bindings.ledger_ingest_stripe_webhook(
            ctypes.byref(out), self._store.handle, client.handle, delivery.header, delivery.body, len(delivery.body), delivery.secrets,
            delivery.count, delivery.tolerance_s, ctypes.byref(options)), out)
        raw = json.loads(report or "{}")
        event = raw["event"]
        ingested = None if raw["ingested"] is None else IngestResult.from_dict(raw["ingested"])
        return StripeWebhookResult(event_id=event["id"], event_type=event["type"], livemode=event["livemode"], object_id=event["object"]["id"],
                                   object_type=event["object"]["object"], ingested=ingested)

    def set_stripe_refresher(self, client: Optional[StripeClient], *, past_due_grace: Optional[timedelta] = None,
                             account_metadata_key: Optional[str] = None,
                             disputes: DisputePolicy = DisputePolicy.REVOKE_WHEN_OPENED) -> None:
        """Lets questions with ``refresh_within`` ask Stripe before saying no about a Stripe
        subscription whose period ended while it renews (None: stop); its answers are ingested
        with these options."""
        if client is not None and not isinstance(client, StripeClient):
            raise TypeError(f"client must be a StripeClient or None, not {type(client).__name__}")
        options = _options(past_due_grace, account_metadata_key, disputes)
        check(_bindings.ledger_set_stripe_refresher(self._store.handle, None if client is None else client.handle, ctypes.byref(options)))

    def sync_stripe(self, client: StripeClient, *, budget: Optional[timedelta] = None, max_pages: Optional[int] = None,
                    overlap: timedelta = timedelta(minutes=10), lease: timedelta = timedelta(minutes=2),
                    past_due_grace: Optional[timedelta] = None, account_metadata_key: Optional[str] = None,
                    disputes: DisputePolicy = DisputePolicy.REVOKE_WHEN_OPENED) -> StripeSyncReport:
        """Heals the ledger's Stripe purchases of ``client``'s mode: the first time every
        subscription Stripe holds, then the Events list from the checkpoint, each event's object
        read back from Stripe and recorded. Resumable, one process or host at a time (BUSY
        otherwise); ``budget`` / ``max_pages`` stop early (PARTIAL) and the next call goes on.
        docs/ledger.md, "Stripe"."""
        if not isinstance(client, StripeClient):
            raise TypeError(f"client must be a StripeClient, not {type(client).__name__}")
        sync = _bindings.gatekit_ledger_stripe_sync_options()
        check(_bindings.ledger_stripe_sync_options_init(ctypes.byref(sync), _bindings.GATEKIT_LEDGER_STRIPE_SYNC_OPTIONS_VERSION))
        sync.overlap_ms = _time.span_milliseconds(overlap, "overlap")
        sync.budget_ms = 0 if budget is None else max(1, _time.span_milliseconds(budget, "budget"))
        sync.max_pages = 0 if max_pages is None else int(max_pages)
        sync.lease_ms = max(1, _time.span_milliseconds(lease, "lease"))
        options = _options(past_due_grace, account_metadata_key, disputes)
        out = ctypes.c_void_p()
        report = stripe_answer(_bindings.ledger_sync_stripe(ctypes.byref(out), self._store.handle, client.handle, ctypes.byref(sync),
                                                            ctypes.byref(options)), out)
        return StripeSyncReport.from_json(report or "{}")
