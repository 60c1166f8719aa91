"""Webhooks to your backend (``<gatekit/ledger_webhooks.h>``): endpoints registered in the store,
every change of the ledger's feed queued for each of them in the same transaction (the outbox),
and a worker that sends them signed as Standard Webhooks, retried for days, in order per
purchase, shared by workers through leases (docs/webhooks.md)."""
from __future__ import annotations

import ctypes
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from types import TracebackType
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Type

from . import _bindings, _native, _time
from .errors import check

if TYPE_CHECKING:
    from ._managed import StoreOwner
    from .store import Store

__all__ = ["DeliveryPass", "DeliveryWorker", "EVENT_TYPES", "LedgerWebhooks", "WebhookDelivery", "WebhookEndpoint"]

#: Every event type a delivery can carry (docs/webhooks.md, "Events").
EVENT_TYPES = ("initial_purchase", "trial_started", "non_renewing_purchase", "non_consumable_purchase", "renewal", "trial_converted",
               "trial_expired", "expiration", "grace_period_started", "billing_issue", "grace_period_expired", "billing_recovered",
               "subscription_paused", "subscription_resumed", "product_change", "refund", "refund_reversed", "purchase_pending",
               "grant_given", "grant_revoked", "cancellation", "uncancellation", "transfer", "entitlement_changed")


def _ms(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, timezone.utc)


@dataclass(frozen=True)
class WebhookEndpoint:
    """An endpoint as the store holds it. ``secret`` only where it was just made (added or
    rolled); ``deliveries`` only in :meth:`LedgerWebhooks.webhook_report` (pending, delivered,
    dead, notWanted, attempts, oldestPendingAgeMs, lastSuccess, lastFailure)."""
    id: str
    url: str
    event_types: List[str]
    description: str
    enabled: bool
    created: datetime
    secret: Optional[str] = None
    disabled: Optional[datetime] = None
    disabled_reason: Optional[str] = None
    deliveries: Dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "WebhookEndpoint":
        disabled = raw.get("disabled")
        return cls(id=raw["id"], url=raw["url"], event_types=list(raw["eventTypes"]), description=raw["description"],
                   enabled=raw["enabled"], created=_ms(raw["created"]), secret=raw.get("secret"),
                   disabled=_time.from_milliseconds(disabled), disabled_reason=raw.get("disabledReason"),
                   deliveries=dict(raw.get("deliveries", {})))


@dataclass(frozen=True)
class WebhookDelivery:
    """One change's delivery to one endpoint, with every attempt ({"at","status","durationMs",
    "error","excerpt"}; status 0: no answer)."""
    seq: int
    event_id: str
    state: str
    type: Optional[str]
    attempts: List[Dict[str, Any]]
    next_attempt: Optional[datetime] = None

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "WebhookDelivery":
        nxt = raw.get("nextAttempt")
        return cls(seq=raw["seq"], event_id=raw["eventId"], state=raw["state"], type=raw.get("type"), attempts=list(raw["attempts"]),
                   next_attempt=_time.from_milliseconds(nxt))


@dataclass(frozen=True)
class DeliveryPass:
    """What :meth:`LedgerWebhooks.deliver_webhooks` did."""
    attempted: int
    delivered: int
    failed: int
    dead: int
    not_wanted: int
    disabled: List[str]


def _flags(allow_private: bool, allow_loopback_http: bool) -> int:
    return ((_bindings.GATEKIT_WEBHOOK_ALLOW_PRIVATE if allow_private else 0)
            | (_bindings.GATEKIT_WEBHOOK_ALLOW_LOOPBACK_HTTP if allow_loopback_http else 0))


def _options(ca_file: Optional[str], allow_private: bool, allow_loopback_http: bool, attempt_timeout: timedelta, connect_timeout: timedelta, give_up_after: timedelta,
             disable_after: timedelta, worker: Optional[str]) -> "_bindings.gatekit_webhook_delivery_options":
    options = _bindings.gatekit_webhook_delivery_options()
    check(_bindings.ledger_webhook_delivery_options_init(ctypes.byref(options), _bindings.GATEKIT_WEBHOOK_DELIVERY_OPTIONS_VERSION))
    options.ca_file = _native.to_c_string(ca_file, "ca_file")
    options.attempt_timeout_ms = _time.span_milliseconds(attempt_timeout, "attempt_timeout")
    options.connect_timeout_ms = _time.span_milliseconds(connect_timeout, "connect_timeout")
    options.give_up_after_ms = _time.span_milliseconds(give_up_after, "give_up_after")
    options.disable_after_ms = _time.span_milliseconds(disable_after, "disable_after")
    options.worker = _native.to_c_string(worker, "worker")
    options.flags = _flags(allow_private, allow_loopback_http)
    return options


class LedgerWebhooks:
    """``store.ledger``'s webhook calls."""

    _store: "StoreOwner"

    def add_webhook_endpoint(self, url: str, *, event_types: Sequence[str] = (), description: Optional[str] = None,
                             allow_private: bool = False, allow_loopback_http: bool = False) -> WebhookEndpoint:
        """Registers ``url`` (https://, no credentials, query or fragment) for ``event_types``
        (none: every type). The answer's ``secret`` is shown this once: give it to the receiver.
        ``allow_private``: a receiver inside your network or on loopback (tests);
        ``allow_loopback_http``: a plain http:// receiver on loopback (tests; the worker must
        allow it too)."""
        if isinstance(event_types, str):
            raise TypeError("event_types is a list of names, not one string")
        names = [_native.required_c_string(t, "event_types") for t in event_types]
        array = (ctypes.c_char_p * max(len(names), 1))(*names)
        out = ctypes.c_void_p()
        check(_bindings.ledger_webhook_endpoint_add(ctypes.byref(out), self._store.handle, _native.required_c_string(url, "url"), array,
                                                    len(names), _native.to_c_string(description, "description"),
                                                    _flags(allow_private, allow_loopback_http)))
        return WebhookEndpoint.from_dict(json.loads(_native.take_string(out)))

    def update_webhook_endpoint(self, endpoint_id: str, *, url: Optional[str] = None, event_types: Optional[Sequence[str]] = None,
                                description: Optional[str] = None, enabled: Optional[bool] = None,
                                allow_private: bool = False, allow_loopback_http: bool = False) -> WebhookEndpoint:
        """Changes what is given (None: as it is). Enabling an endpoint GateKit disabled leaves
        its dead deliveries dead: replay them."""
        change: Dict[str, Any] = {}
        if url is not None:
            change["url"] = url
        if event_types is not None:
            change["eventTypes"] = list(event_types)
        if description is not None:
            change["description"] = description
        if enabled is not None:
            change["enabled"] = bool(enabled)
        out = ctypes.c_void_p()
        check(_bindings.ledger_webhook_endpoint_update(ctypes.byref(out), self._store.handle, _native.required_c_string(endpoint_id, "endpoint_id"),
                                                       json.dumps(change).encode(), _flags(allow_private, allow_loopback_http)))
        return WebhookEndpoint.from_dict(json.loads(_native.take_string(out)))

    def roll_webhook_secret(self, endpoint_id: str, *, overlap: timedelta = timedelta(hours=24)) -> WebhookEndpoint:
        """A new secret (in the answer); the old one signs too for ``overlap`` (at most 7 days)."""
        out = ctypes.c_void_p()
        check(_bindings.ledger_webhook_secret_roll(ctypes.byref(out), self._store.handle, _native.required_c_string(endpoint_id, "endpoint_id"),
                                                   _time.span_milliseconds(overlap, "overlap")))
        return WebhookEndpoint.from_dict(json.loads(_native.take_string(out)))

    def webhook_report(self) -> List[WebhookEndpoint]:
        """Every endpoint with how its deliveries stand (``deliveries``)."""
        out = ctypes.c_void_p()
        check(_bindings.ledger_webhook_report(ctypes.byref(out), self._store.handle))
        return [WebhookEndpoint.from_dict(e) for e in json.loads(_native.take_string(out))["endpoints"]]

    def webhook_metrics(self) -> str:
        """The same as Prometheus text (format 0.0.4), for a scrape endpoint."""
        out = ctypes.c_void_p()
        check(_bindings.ledger_webhook_metrics(ctypes.byref(out), self._store.handle))
        return _native.take_string(out)

    def replay_webhooks(self, endpoint_id: str, *, from_seq: int = 0, to_seq: Optional[int] = None, since: _time.Instant = None,
                        until: _time.Instant = None) -> int:
        """Queues again to the endpoint the events of the changes numbered ``from_seq`` to
        ``to_seq`` and recorded from ``since`` to ``until`` (each inclusive, None: open), whatever
        became of them. Returns how many were queued."""
        return check(_bindings.ledger_webhook_replay(self._store.handle, _native.required_c_string(endpoint_id, "endpoint_id"), from_seq,
                                                     (1 << 63) - 1 if to_seq is None else to_seq, _time.milliseconds(since, "since"),
                                                     (1 << 63) - 1 if until is None else _time.milliseconds(until, "until")))

    def webhook_deliveries(self, endpoint_id: str, *, state: Optional[str] = None, after_seq: int = 0,
                           limit: int = 100) -> List[WebhookDelivery]:
        """The endpoint's deliveries after ``after_seq`` (``state``: "pending", "delivered", "dead"
        or "not-wanted"; None: all), oldest first, with every attempt."""
        out = ctypes.c_void_p()
        check(_bindings.ledger_webhook_deliveries(ctypes.byref(out), self._store.handle, _native.required_c_string(endpoint_id, "endpoint_id"),
                                                  _native.to_c_string(state, "state"), after_seq, limit))
        return [WebhookDelivery.from_dict(d) for d in json.loads(_native.take_string(out))["deliveries"]]

    def deliver_webhooks(self, *, budget: timedelta = timedelta(seconds=5), ca_file: Optional[str] = None, allow_private: bool = False,
                         allow_loopback_http: bool = False,
                         attempt_timeout: timedelta = timedelta(seconds=10), connect_timeout: timedelta = timedelta(seconds=5),
                         give_up_after: timedelta = timedelta(days=3), disable_after: timedelta = timedelta(days=5),
                         worker: Optional[str] = None) -> DeliveryPass:
        """Sends what is due until nothing is or ``budget`` passed (a worker's loop calls it;
        :class:`DeliveryWorker` runs one in a thread). A delivery failing for ``give_up_after`` is
        dead; an endpoint failing for ``disable_after`` is disabled (each 1 s to 30 days)."""
        options = _options(ca_file, allow_private, allow_loopback_http, attempt_timeout, connect_timeout, give_up_after, disable_after, worker)
        out = ctypes.c_void_p()
        check(_bindings.ledger_webhook_deliver(ctypes.byref(out), self._store.handle, ctypes.byref(options), _time.span_milliseconds(budget, "budget")))
        raw = json.loads(_native.take_string(out))
        return DeliveryPass(attempted=raw["attempted"], delivered=raw["delivered"], failed=raw["failed"], dead=raw["dead"],
                            not_wanted=raw["notWanted"], disabled=list(raw["disabled"]))


class DeliveryWorker:
    """A delivery thread over ``store``: ``with DeliveryWorker(store, ...):`` sends the store's
    deliveries as they come, woken by any process's commits, until the block ends (an attempt in
    flight finishes first). The store must stay open meanwhile."""

    def __init__(self, store: "Store", *, ca_file: Optional[str] = None, allow_private: bool = False, allow_loopback_http: bool = False,
                 attempt_timeout: timedelta = timedelta(seconds=10), connect_timeout: timedelta = timedelta(seconds=5),
                 give_up_after: timedelta = timedelta(days=3), disable_after: timedelta = timedelta(days=5),
                 worker: Optional[str] = None) -> None:
        self._store = store
        self._options = _options(ca_file, allow_private, allow_loopback_http, attempt_timeout, connect_timeout, give_up_after, disable_after, worker)
        self._handle: Optional[Any] = None

    def start(self) -> "DeliveryWorker":
        if self._handle is not None:
            raise RuntimeError("this DeliveryWorker runs already")
        handle = ctypes.POINTER(_bindings.gatekit_webhook_delivery)()
        check(_bindings.ledger_webhook_delivery_start(ctypes.byref(handle), self._store.handle, ctypes.byref(self._options)))
        self._handle = handle
        return self

    def stop(self) -> None:
        """Stops the thread; raises the error that stopped it earlier, if one did."""
        handle, self._handle = self._handle, None
        if handle is not None:
            check(_bindings.ledger_webhook_delivery_stop(handle))

    def __enter__(self) -> "DeliveryWorker":
        return self.start()

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self.stop()
