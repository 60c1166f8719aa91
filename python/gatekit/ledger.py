"""The entitlement ledger: ``store.ledger`` ingests verified App Store data and answers "is this
customer entitled now, and why?" (docs/ledger.md)."""
from __future__ import annotations

import ctypes
import json
import warnings
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from . import _bindings, _native
from . import _time
from ._time import Instant
from .errors import GateKitError, check, error_for
from ._result import JSONResult
from ._structs import JWSOptions, ReceiptOptions, Signed, receipt_options, signed_text
from .jws import KINDS, SignedDataVerifier
from ._enums import Outcome, Reason, SubscriptionStatus, SyncOutcome  # noqa: F401  (SyncOutcome: gatekit.ledger's name too)
from ._named_enum import NamedIntEnum
from ._managed import StoreOwner
from ._ledger_query import APP_USER, QUERY_VERSION, TEST_SIGNED, instant_ms, query
from .ledger_grant import Grant, LedgerGrants
from .ledger_webhooks import LedgerWebhooks
from .ledger_insight import LedgerInsight
from .ledger_play import LedgerPlay
from .ledger_stripe import LedgerStripe
from .ledger_sync import LedgerSync, SyncReport

__all__ = ["CatalogReport", "CatalogWarning", "Change", "ChangePage", "Entitlement", "FeedNotice", "Grant", "IngestResult", "Ledger", "LinkOutcome", "Outcome", "Reason", "StatusChange", "SubscriptionStatus",
           "SyncOutcome", "SyncReport"]


#: The ledger's answers name reasons as the library does ("no-purchase").
_REASONS = {r.wire_name: r for r in Reason}
_REASON_NAMES = {r: name for name, r in _REASONS.items()}


_ms = instant_ms


def _present(members: Dict[str, Any]) -> Dict[str, Any]:
    """The C JSON leaves out members that do not apply."""
    return {k: v for k, v in members.items() if v is not None}


@dataclass(frozen=True)
class Entitlement(JSONResult):
    """The ledger's answer for one product or group: whether, why, and until when.
    ``to_dict()`` is ledger_entitlement()'s JSON."""
    entitled: bool
    reason: Reason
    product_id: Optional[str] = None
    group_id: Optional[str] = None
    transaction_id: Optional[str] = None
    original_transaction_id: Optional[str] = None
    status: Optional[SubscriptionStatus] = None
    family_shared: bool = False
    since: Optional[datetime] = None
    until: Optional[datetime] = None   # None: no end (non-consumable), or not entitled
    grants: Tuple[str, ...] = ()       # the entitlement names the catalog says the product grants
    stale: bool = False                # a refresh was asked for and Apple gave no answer in time
    did_you_mean: Optional[str] = None  # UNKNOWN_NAME: the catalog's nearest name, if one is close
    store: Optional[str] = None        # "app-store", "play", "stripe" or "grant": the store of the deciding purchase
    store_state: Optional[str] = None  # the store's own state name ("SUBSCRIPTION_STATE_ACTIVE")
    acknowledged: Optional[bool] = None  # False: Play waits for the acknowledgement (refunded after 3 days)
    granted_by: Optional[str] = None   # a support grant's: who gave it (ledger_grant)
    note: Optional[str] = None         # ... and why

    def __bool__(self) -> bool:
        return self.entitled

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "Entitlement":
        status = raw.get("status")
        return cls(entitled=bool(raw["entitled"]), reason=_REASONS[raw["reason"]], product_id=raw.get("productId"),
                   group_id=raw.get("subscriptionGroupIdentifier"), transaction_id=raw.get("transactionId"),
                   original_transaction_id=raw.get("originalTransactionId"),
                   status=SubscriptionStatus(status) if status is not None else None,
                   family_shared=bool(raw.get("familyShared", False)), since=_time.from_milliseconds(raw.get("since")),
                   until=_time.from_milliseconds(raw.get("until")), grants=tuple(raw.get("entitlements", ())),
                   stale=bool(raw.get("stale", False)), did_you_mean=raw.get("didYouMean"), store=raw.get("store"),
                   store_state=raw.get("storeState"), acknowledged=raw.get("acknowledged"), granted_by=raw.get("grantedBy"),
                   note=raw.get("note"))

    def to_dict(self) -> Dict[str, Any]:
        return _present({
            "version": 1, "entitled": self.entitled, "reason": _REASON_NAMES[self.reason], "productId": self.product_id,
            "subscriptionGroupIdentifier": self.group_id, "transactionId": self.transaction_id,
            "originalTransactionId": self.original_transaction_id,
            "status": int(self.status) if self.status is not None else None,
            "familyShared": self.family_shared if self.product_id is not None else None,
            "store": self.store,
            "since": _time.milliseconds(self.since, "since") if self.since else None,
            "until": _time.milliseconds(self.until, "until") if self.until else None,
            "entitlements": list(self.grants) if self.grants else None,
            "stale": True if self.stale else None,
            "didYouMean": self.did_you_mean,
            "storeState": self.store_state,
            "acknowledged": self.acknowledged,
            "grantedBy": self.granted_by,
            "note": self.note,
        })


class CatalogWarning(UserWarning):
    """A likely mistake in a declared catalog (declare_catalog): a product nobody bought that is
    a typo of one customers have, a purchased product it leaves out, a name a product loses."""


@dataclass(frozen=True)
class CatalogReport(JSONResult):
    """What declaring a catalog changes, against the purchases the ledger holds
    (ledger_declare_catalog_report's JSON): products it names that nobody bought (each with the
    purchased product id it is likely a typo of), lookup keys no plan sold has borne (each with
    the borne key it is likely a typo of), purchased products it no longer names, and the
    entitlement names purchased products gain and lose."""
    declared: bool                                    # False for a check: nothing was declared
    effective: datetime
    unseen_products: Tuple[Tuple[str, Optional[str]], ...]   # (product id, did you mean)
    unnamed_products: Tuple[str, ...]
    warnings: Tuple[str, ...]      # a sentence per likely mistake: look before relying on the catalog
    entitlement_changes: Tuple[Tuple[str, Tuple[str, ...], Tuple[str, ...]], ...]  # (product, gained, lost)
    unseen_lookup_keys: Tuple[Tuple[str, Optional[str]], ...] = ()   # (lookup key, did you mean)

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "CatalogReport":
        effective = _time.from_milliseconds(raw["effective"])
        assert effective is not None
        return cls(declared=bool(raw["declared"]), effective=effective,
                   unseen_products=tuple((u["product"], u.get("didYouMean")) for u in raw["unseenProducts"]),
                   unnamed_products=tuple(raw["unnamedProducts"]), warnings=tuple(raw["warnings"]),
                   entitlement_changes=tuple((c["product"], tuple(c["gained"]), tuple(c["lost"])) for c in raw["entitlementChanges"]),
                   unseen_lookup_keys=tuple((u["lookupKey"], u.get("didYouMean")) for u in raw["unseenLookupKeys"]))

    def to_dict(self) -> Dict[str, Any]:
        return {"version": 1, "declared": self.declared, "effective": _time.milliseconds(self.effective, "effective"),
                "unseenProducts": [_present({"product": p, "didYouMean": d}) for p, d in self.unseen_products],
                "unseenLookupKeys": [_present({"lookupKey": k, "didYouMean": d}) for k, d in self.unseen_lookup_keys],
                "unnamedProducts": list(self.unnamed_products), "warnings": list(self.warnings),
                "entitlementChanges": [{"product": p, "gained": list(g), "lost": list(l)} for p, g, l in self.entitlement_changes]}


@dataclass(frozen=True)
class StatusChange(JSONResult):
    """A subscription's status moved (``old`` None: it had none)."""
    original_transaction_id: str
    group_id: Optional[str]
    old: Optional[SubscriptionStatus]
    new: SubscriptionStatus

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "StatusChange":
        return cls(raw["originalTransactionId"], raw.get("subscriptionGroupIdentifier"),
                   SubscriptionStatus(raw["from"]) if raw.get("from") is not None else None, SubscriptionStatus(raw["to"]))

    def to_dict(self) -> Dict[str, Any]:
        members: Dict[str, Any] = {"originalTransactionId": self.original_transaction_id}
        if self.group_id is not None:
            members["subscriptionGroupIdentifier"] = self.group_id
        members["from"] = int(self.old) if self.old is not None else None
        members["to"] = int(self.new)
        return members


@dataclass(frozen=True)
class IngestResult(JSONResult):
    """What one ingestion did and whom it touched. ``to_dict()`` is ledger_ingest_*()'s JSON."""
    outcome: Outcome
    kind: str
    environment: str
    test_signed: bool
    identity: str
    customer: Optional[str]
    app_account_token: Optional[str]
    original_transaction_ids: Tuple[str, ...]
    notification_type: Optional[str]
    notification_uuid: Optional[str]
    status_changes: Tuple[StatusChange, ...]
    subtype: Optional[str] = None
    store: str = "app-store"               # or "play"
    acknowledged: Optional[bool] = None   # False: Play waits for the acknowledgement (refunded after 3 days)

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "IngestResult":
        return cls(outcome=Outcome[raw["outcome"].upper()], kind=raw["kind"], environment=raw["environment"],
                   test_signed=bool(raw["testSigned"]), identity=raw["identity"], customer=raw.get("customer"),
                   app_account_token=raw.get("appAccountToken"),
                   original_transaction_ids=tuple(raw.get("originalTransactionIds", [])),
                   notification_type=raw.get("notificationType"), notification_uuid=raw.get("notificationUUID"),
                   status_changes=tuple(StatusChange.from_dict(c) for c in raw.get("statusChanges", [])),
                   subtype=raw.get("subtype"), store=raw.get("store", "app-store"), acknowledged=raw.get("acknowledged"))

    def to_dict(self) -> Dict[str, Any]:
        members = _present({
            "version": 1, "outcome": self.outcome.name.lower(), "kind": self.kind, "environment": self.environment,
            "testSigned": self.test_signed, "identity": self.identity, "store": self.store, "acknowledged": self.acknowledged,
            "notificationType": self.notification_type,
            "subtype": self.subtype, "notificationUUID": self.notification_uuid, "customer": self.customer,
            "appAccountToken": self.app_account_token,
        })
        members["originalTransactionIds"] = list(self.original_transaction_ids)
        members["statusChanges"] = [c.to_dict() for c in self.status_changes]
        return members


@dataclass(frozen=True)
class Change(JSONResult):
    """One change of an answer in the change feed (ledger_changes()'s JSON as ``to_dict()``):
    the subscription (original transaction id) and product, the new answer, when it took effect
    (``at``) and why (``cause`` "ingest", with the history's ``item``; "time"; or "transfer":
    the purchase moved to another app account)."""
    seq: int
    environment: str
    test_signed: bool
    original_transaction_id: str
    product_id: str
    entitled: bool
    reason: Reason
    at: datetime
    cause: str
    recorded: datetime
    app_account_token: Optional[str] = None
    app_user_ids: Tuple[str, ...] = ()
    entitlements: Tuple[str, ...] = ()   # the names the catalog in effect then says the product grants
    status: Optional[SubscriptionStatus] = None
    until: Optional[datetime] = None
    item: Optional[int] = None
    store: str = "app-store"               # or "play": the store that sold the purchase
    will_renew: Optional[bool] = None      # the subscription renews at the end of its period (auto-renew on); None: not said

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "Change":
        status = raw.get("status")
        at, recorded = _time.from_milliseconds(int(raw["at"])), _time.from_milliseconds(int(raw["recorded"]))
        if at is None or recorded is None:
            raise ValueError("a change without its instants")
        return cls(seq=raw["seq"], environment=raw["environment"], test_signed=bool(raw["testSigned"]),
                   original_transaction_id=raw["originalTransactionId"], product_id=raw["productId"], entitled=bool(raw["entitled"]),
                   reason=_REASONS[raw["reason"]], at=at, cause=raw["cause"], recorded=recorded,
                   app_account_token=raw.get("appAccountToken"), app_user_ids=tuple(raw.get("appUserIds", ())),
                   entitlements=tuple(raw.get("entitlements", ())), status=SubscriptionStatus(status) if status is not None else None,
                   until=_time.from_milliseconds(raw.get("until")), item=raw.get("item"), store=raw.get("store", "app-store"),
                   will_renew=raw.get("willRenew"))

    def to_dict(self) -> Dict[str, Any]:
        return _present({
            "seq": self.seq, "environment": self.environment, "testSigned": self.test_signed,
            "originalTransactionId": self.original_transaction_id, "appAccountToken": self.app_account_token,
            "appUserIds": list(self.app_user_ids), "store": self.store, "productId": self.product_id,
            "entitlements": list(self.entitlements) if self.entitlements else None, "entitled": self.entitled,
            "reason": _REASON_NAMES[self.reason], "status": int(self.status) if self.status is not None else None,
            "until": _time.milliseconds(self.until, "until") if self.until else None, "willRenew": self.will_renew,
            "at": _time.milliseconds(self.at, "at"), "cause": self.cause, "item": self.item,
            "recorded": _time.milliseconds(self.recorded, "recorded"),
        })


@dataclass(frozen=True)
class FeedNotice(JSONResult):
    """A notice of the change feed, numbered with its changes: what happened to the ledger's
    delivery rather than to a purchase. ``kind`` "webhook_endpoint_disabled": the delivery
    worker disabled ``endpoint_id`` (``detail``: why; docs/webhooks.md)."""
    seq: int
    at: datetime
    kind: str
    endpoint_id: str
    url: str
    detail: str

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "FeedNotice":
        at = _time.from_milliseconds(int(raw["at"]))
        if at is None:
            raise ValueError("a notice without its instant")
        return cls(seq=raw["seq"], at=at, kind=raw["kind"], endpoint_id=raw["endpointId"], url=raw["url"], detail=raw["detail"])

    def to_dict(self) -> Dict[str, Any]:
        return {"seq": self.seq, "at": _time.milliseconds(self.at, "at"), "kind": self.kind, "endpointId": self.endpoint_id,
                "url": self.url, "detail": self.detail}


class ChangePage(NamedTuple):
    """Ledger.changes(): the changes read, and the cursor to read after next; ``notices``, the
    feed's notices among them (an endpoint disabled), numbered with the changes."""
    changes: List[Change]
    last: int
    notices: List[FeedNotice] = []


class LinkOutcome(NamedIntEnum):
    """What Ledger.link() did."""
    UNCHANGED = 0    # already linked to this app account
    LINKED = 1
    TRANSFERRED = 2  # it was linked to another app account, which lost it


ENTITLEMENT_VERSION = _bindings.GATEKIT_ENTITLEMENT_VERSION

_ingest = {kind: getattr(_bindings, f"ledger_ingest_{kind}")
           for kind in ("notification", "transaction", "renewal_info", "app_transaction")}
_ingest_batch = _bindings.ledger_ingest_batch
_ingest_any = _bindings.ledger_ingest_notification_any
#: What ingest_batch() records: every kind of signed data but a realtime request.
_BATCH_KINDS = {name: number for name, number in KINDS.items() if name != "realtime-request"}
_ingest_receipt = _bindings.ledger_ingest_receipt
_is_entitled = _bindings.ledger_is_entitled
_entitlement = _bindings.ledger_entitlement
_active = _bindings.ledger_active
_status = _bindings.ledger_subscription_status
_intro = _bindings.ledger_intro_eligible
_history = _bindings.ledger_history
_changes = _bindings.ledger_changes
_wait_changes = _bindings.ledger_wait_changes
_link = _bindings.ledger_link
_unlink = _bindings.ledger_unlink
_links = _bindings.ledger_links
_declare_catalog_report = _bindings.ledger_declare_catalog_report
_CATALOG_CHECK_ONLY = _bindings.GATEKIT_CATALOG_CHECK_ONLY
_catalog = _bindings.ledger_catalog


class Ledger(LedgerSync, LedgerInsight, LedgerPlay, LedgerStripe, LedgerGrants, LedgerWebhooks):
    """``store.ledger``: this module's ingestion, questions, change feed, app accounts and
    catalog, with :class:`gatekit.ledger_sync.LedgerSync` (syncing from Apple) and
    :class:`gatekit.ledger_insight.LedgerInsight` (metrics, the report) and
    :class:`gatekit.ledger_play.LedgerPlay` (Google Play's answers and notifications) and
    :class:`gatekit.ledger_stripe.LedgerStripe` (Stripe's answers) and
    :class:`gatekit.ledger_grant.LedgerGrants` (support grants) — one module per header. Ingestion verifies in the same call (with a
    :class:`gatekit.jws.SignedDataVerifier` and an optional ``verify_time`` (an aware datetime)
    for the certificate checks, default the payload's signedDate; or receipt options) and is
    durable when it returns.
    Questions name the environment; ``test_signed=True`` asks about data accepted under a test
    anchor (kept apart from App Store data). ``at``: None for now, else an aware datetime (a
    number is refused: seconds and milliseconds are easy to mix up): the answer the ledger would
    have given then, from what the stores had signed or answered by then.
    Safe from many threads and processes."""

    def __init__(self, store: StoreOwner) -> None:
        self._store = store

    # ---- ingestion ------------------------------------------------------------------------

    def _ingest(self, kind: str, signed: Signed, verifier: SignedDataVerifier, verify_time: Instant) -> IngestResult:
        if not isinstance(verifier, SignedDataVerifier):
            raise TypeError("verifier must be a SignedDataVerifier (what the data must be: bundle id, environment, app "
                            f"Apple ID), not {type(verifier).__name__}")
        options = verifier.c_options(verify_time)
        out = ctypes.c_void_p()
        check(_ingest[kind](ctypes.byref(out), self._store.handle, signed_text(signed), ctypes.byref(options)))
        return IngestResult.from_json(json.loads(_native.take_string(out)))

    def ingest_notification(self, signed_payload: Signed, verifier: Union[SignedDataVerifier, Sequence[SignedDataVerifier]],
                            verify_time: Instant = None) -> IngestResult:
        """An App Store Server Notification V2 ``signedPayload`` (nested data verified too).
        ``verifier``: one, or one per environment for an endpoint that takes Production and
        Sandbox: the environment the payload names picks the verifier that checks it."""
        if isinstance(verifier, SignedDataVerifier):
            return self._ingest("notification", signed_payload, verifier, verify_time)
        if not isinstance(verifier, Sequence) or not all(isinstance(v, SignedDataVerifier) for v in verifier):
            raise TypeError("verifier must be a SignedDataVerifier (what the payload must be: bundle id, environment, app "
                            f"Apple ID), or a list of them, one per environment, not {type(verifier).__name__}")
        choices = [v.c_options(verify_time) for v in verifier]
        array = (ctypes.POINTER(JWSOptions) * max(len(choices), 1))(*(ctypes.pointer(o) for o in choices))
        out = ctypes.c_void_p()
        check(_ingest_any(ctypes.byref(out), self._store.handle, signed_text(signed_payload), array, len(choices)))
        return IngestResult.from_json(json.loads(_native.take_string(out)))

    def ingest_transaction(self, signed_transaction: Signed, verifier: SignedDataVerifier, verify_time: Instant = None) -> IngestResult:
        """A ``signedTransactionInfo`` / StoreKit 2 ``jwsRepresentation``."""
        return self._ingest("transaction", signed_transaction, verifier, verify_time)

    def ingest_renewal_info(self, signed_renewal_info: Signed, verifier: SignedDataVerifier, verify_time: Instant = None) -> IngestResult:
        return self._ingest("renewal_info", signed_renewal_info, verifier, verify_time)

    def ingest_app_transaction(self, signed_app_transaction: Signed, verifier: SignedDataVerifier, verify_time: Instant = None) -> IngestResult:
        """Recorded in the history; changes no entitlement."""
        return self._ingest("app_transaction", signed_app_transaction, verifier, verify_time)

    def ingest_batch(self, kind: str, items: List[Signed], verifier: SignedDataVerifier,
                     verify_time: Instant = None) -> List[Union[IngestResult, GateKitError]]:
        """Several signed items of one kind ("transaction", "renewal-info", "notification",
        "app-transaction") recorded in one durable transaction: each result in input order is
        an IngestResult, or the exception (not raised) for an item that did not verify. A store
        failure raises and records none."""
        if kind not in _BATCH_KINDS:
            raise ValueError(f"kind must be one of {', '.join(_BATCH_KINDS)}, not {kind!r}")
        texts = [signed_text(item) for item in items]
        array = (ctypes.c_char_p * max(len(texts), 1))(*texts)
        options = verifier.c_options(verify_time)
        out = ctypes.c_void_p()
        check(_ingest_batch(ctypes.byref(out), self._store.handle, _BATCH_KINDS[kind], array, len(texts), ctypes.byref(options)))
        results: List[Union[IngestResult, GateKitError]] = []
        for entry in json.loads(_native.take_string(out))["results"]:
            results.append(error_for(entry["error"], entry["message"]) if "error" in entry else IngestResult.from_json(entry))
        return results

    def ingest_receipt(self, data: Union[bytes, bytearray, str], bundle_id: str, **options: Any) -> IngestResult:
        """An app receipt, validated as :func:`gatekit.receipt.validate` does with the same
        keyword options; each purchase becomes a transaction signed at the receipt's creation."""
        raw = data.encode("ascii") if isinstance(data, str) else bytes(data)
        built, keep = receipt_options(bundle_id, options.pop("app_version", None), options.pop("device_id", None),
                                        options.pop("verify_time", None), options.pop("require_sha256", False),
                                        options.pop("production_only", False), options.pop("sandbox_only", False),
                                        options.pop("test_anchor", None))
        if options:
            raise TypeError(f"unexpected arguments: {sorted(options)}")
        out = ctypes.c_void_p()
        check(_ingest_receipt(ctypes.byref(out), self._store.handle, raw, len(raw), ctypes.byref(built)))
        del keep
        return IngestResult.from_json(json.loads(_native.take_string(out)))

    _query = staticmethod(query)

    # ---- the change feed -------------------------------------------------------------------

    def changes(self, after: int = 0, limit: int = 100) -> ChangePage:
        """The changes after the cursor ``after`` (0: from the first), oldest first, at most
        ``limit``, and the cursor to pass next. Time's due changes are appended first."""
        out = ctypes.c_void_p()
        check(_changes(ctypes.byref(out), self._store.handle, int(after), int(limit)))
        document = json.loads(_native.take_string(out))
        return ChangePage([Change.from_json(c) for c in document["changes"]], document["last"],
                          [FeedNotice.from_json(n) for n in document.get("notices", ())])

    def wait_changes(self, after: int, timeout: timedelta) -> bool:
        """True as soon as a change after ``after`` exists (any process's commit wakes it, and
        the instant time next changes an answer), False when ``timeout`` passed first."""
        return check(_wait_changes(self._store.handle, int(after), _time.span_milliseconds(timeout, "timeout"))) == 1

    def follow(self, after: int = 0, *, limit: int = 100, wait: timedelta = timedelta(seconds=30)) -> Iterator[Change]:
        """Every change after ``after``, as it comes, forever: read, then wait. Keep the last
        ``seq`` you handled and start from it again (at least once)."""
        while True:
            page = self.changes(after, limit)
            yield from page.changes
            after = page.last
            if not page.changes:
                self.wait_changes(after, wait)

    # ---- app accounts ----------------------------------------------------------------------

    def link(self, app_user_id: str, customer: str, *, environment: str) -> LinkOutcome:
        """Links your own user id to a ledger customer (an app account token or an original
        transaction id): questions with ``by_app_user=True`` then answer for it. A customer
        belongs to one app account at a time: linking it elsewhere moves it (TRANSFERRED)."""
        return LinkOutcome(check(_link(self._store.handle, _native.required_c_string(environment, "environment"),
                                       _native.required_c_string(app_user_id, "app_user_id"), _native.required_c_string(customer, "customer"))))

    def unlink(self, app_user_id: str, customer: str, *, environment: str) -> bool:
        """True when the link existed."""
        return check(_unlink(self._store.handle, _native.required_c_string(environment, "environment"),
                             _native.required_c_string(app_user_id, "app_user_id"), _native.required_c_string(customer, "customer"))) == 1

    def links(self, *, environment: str, app_user_id: Optional[str] = None, customer: Optional[str] = None,
              at: Instant = None) -> Dict[str, Any]:
        """The links in effect at ``at`` (default now) and every change, of an app account
        and/or a customer: ``{"links": [{"appUserId", "customer", "since"}], "changes": [...]}``."""
        out = ctypes.c_void_p()
        check(_links(ctypes.byref(out), self._store.handle, _native.required_c_string(environment, "environment"),
                     _native.to_c_string(app_user_id, "app_user_id"), _native.to_c_string(customer, "customer"), _ms(at)))
        document: Dict[str, Any] = json.loads(_native.take_string(out))
        return document

    # ---- the product catalog ---------------------------------------------------------------

    def declare_catalog(self, catalog: Union[Mapping[str, Any], str, bytes], effective: Instant = None, *,
                        correction: Optional[str] = None, check_only: bool = False) -> CatalogReport:
        """Declares the app's products: ``{"products": {product_id: {"type": …, "group": …,
        "entitlements": ["pro"], "term": "P30D"}}}`` (docs/ledger.md), in effect from
        ``effective`` (an aware datetime; default now) until a later one is. Kept, never
        replaced: answers as of an earlier instant keep the catalog in effect then. An
        ``effective`` in the past changes answers already given: pass ``correction`` (why; kept
        with the catalog as its "correction" member), or it is refused. Returns what it changes
        (:class:`CatalogReport`: a typo'd product id shows there); ``check_only``: only that,
        nothing declared."""
        if isinstance(catalog, (str, bytes)):  # the document's text, as a file holds it
            try:
                catalog = json.loads(catalog)
            except ValueError as e:
                raise ValueError(f"catalog is text that is not JSON ({e}); pass a dict such as {{'products': {{…}}}} or its JSON text") from None
        if not isinstance(catalog, Mapping):
            raise TypeError(f"catalog must be a dict such as {{'products': {{…}}}} (or its JSON text), not {type(catalog).__name__}")
        document = dict(catalog) if correction is None else dict(catalog, correction=correction)
        out = ctypes.c_void_p()
        check(_declare_catalog_report(ctypes.byref(out), self._store.handle, json.dumps(document).encode("utf-8"), _ms(effective),
                                      _CATALOG_CHECK_ONLY if check_only else 0))
        report = CatalogReport.from_dict(json.loads(_native.take_string(out)))
        # A typo'd product id must not pass silently: each warning the tool prints, as a Python warning too.
        for warning in report.warnings:
            warnings.warn(warning, CatalogWarning, stacklevel=2)
        return report

    def catalog(self, at: Instant = None) -> Dict[str, Any]:
        """The catalog in effect at ``at`` (default now): ``{"products": {…}}``, with
        ``effective`` and ``declared`` (Unix ms) when one was declared by then."""
        out = ctypes.c_void_p()
        check(_catalog(ctypes.byref(out), self._store.handle, _ms(at)))
        document: Dict[str, Any] = json.loads(_native.take_string(out))
        document.pop("version", None)
        return document

    # ---- questions -------------------------------------------------------------------------

    def is_entitled(self, customer: str, product_or_group: str, *, environment: str,
                    at: Instant = None, test_signed: bool = False, refresh_within: Optional[timedelta] = None,
                    by_app_user: bool = False) -> bool:
        """The fast yes/no (no JSON): entitled to the product id, to any product of the group,
        or to an entitlement name the catalog says a product grants ("pro"). ``refresh_within``:
        when the answer would be no only because a renewal has not been heard of, ask Apple
        first (set_refresher) for at most that long. ``by_app_user``: ``customer`` is your own
        user id (link()), answered from every customer linked to it."""
        q = self._query(environment, at, test_signed, refresh_within, by_app_user)
        return check(_is_entitled(None, self._store.handle, ctypes.byref(q), _native.required_c_string(customer, "customer"),
                                  _native.required_c_string(product_or_group, "product_or_group"))) == 1

    def entitled(self, customer: str, product_or_group: str, *, environment: str,
                 at: Instant = None, test_signed: bool = False, refresh_within: Optional[timedelta] = None,
                 by_app_user: bool = False) -> Entitlement:
        """The answer with its reason, product, status and dates (truthy when entitled);
        ``refresh_within`` and ``by_app_user`` as for is_entitled() (``stale`` when Apple gave
        no answer in time)."""
        q = self._query(environment, at, test_signed, refresh_within, by_app_user)
        out = ctypes.c_void_p()
        check(_entitlement(ctypes.byref(out), self._store.handle, ctypes.byref(q),
                           _native.required_c_string(customer, "customer"), _native.required_c_string(product_or_group, "product_or_group")))
        return Entitlement.from_json(json.loads(_native.take_string(out)))

    def active(self, customer: str, *, environment: str, at: Instant = None,
               test_signed: bool = False, by_app_user: bool = False) -> List[Entitlement]:
        """Every product the customer (or app account) is entitled to, once each, ordered by product id."""
        q = self._query(environment, at, test_signed, by_app_user=by_app_user)
        out = ctypes.c_void_p()
        check(_active(ctypes.byref(out), self._store.handle, ctypes.byref(q), _native.required_c_string(customer, "customer")))
        return [Entitlement.from_json(e) for e in json.loads(_native.take_string(out))["entitlements"]]

    def subscription_status(self, customer: str, group: Optional[str] = None, *, environment: str,
                            at: Instant = None, test_signed: bool = False, by_app_user: bool = False) -> Dict[str, Any]:
        """Apple's "Get All Subscription Statuses" response body for the customer (dict)."""
        q = self._query(environment, at, test_signed, by_app_user=by_app_user)
        out = ctypes.c_void_p()
        check(_status(ctypes.byref(out), self._store.handle, ctypes.byref(q), _native.required_c_string(customer, "customer"),
                      _native.to_c_string(group, "group")))
        document: Dict[str, Any] = json.loads(_native.take_string(out))
        return document

    def statuses(self, customer: str, group: Optional[str] = None, *, environment: str,
                 at: Instant = None, test_signed: bool = False, by_app_user: bool = False) -> Dict[str, SubscriptionStatus]:
        """Original transaction id → status, from subscription_status()."""
        body = self.subscription_status(customer, group, environment=environment, at=at, test_signed=test_signed,
                                        by_app_user=by_app_user)
        return {t["originalTransactionId"]: SubscriptionStatus(t["status"])
                for g in body["data"] for t in g["lastTransactions"]}

    def intro_eligible(self, customer: str, group: str, *, environment: str,
                       at: Instant = None, test_signed: bool = False, by_app_user: bool = False) -> bool:
        """May the customer (or app account) be offered the group's introductory offer?"""
        q = self._query(environment, at, test_signed, by_app_user=by_app_user)
        return check(_intro(self._store.handle, ctypes.byref(q), _native.required_c_string(customer, "customer"),
                            _native.required_c_string(group, "group"))) == 1

    def history(self, customer: Optional[str] = None, *, environment: str, test_signed: bool = False,
                by_app_user: bool = False) -> Dict[str, Any]:
        """Every ingested item (decoded) and status change, oldest first (dict)."""
        q = self._query(environment, None, test_signed, by_app_user=by_app_user)
        out = ctypes.c_void_p()
        check(_history(ctypes.byref(out), self._store.handle, ctypes.byref(q), _native.to_c_string(customer, "customer")))
        document: Dict[str, Any] = json.loads(_native.take_string(out))
        return document
