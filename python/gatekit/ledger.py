"""The entitlement ledger: ``store.ledger`` ingests verified App Store data and answers "is this
customer entitled now, and why?" (docs/ledger.md)."""
from __future__ import annotations

import ctypes
import json
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
from ._named_enum import NamedIntEnum

if TYPE_CHECKING:
    from .ledger_insight import CustomerReport, Metrics
    from .api_client import AppStoreServerAPIClient

__all__ = ["CatalogReport", "Change", "ChangePage", "Entitlement", "IngestResult", "Ledger", "LinkOutcome", "Outcome", "Reason", "StatusChange", "SubscriptionStatus",
           "SyncOutcome", "SyncReport"]


class SubscriptionStatus(NamedIntEnum):
    """Apple's subscription status numbers ("Get All Subscription Statuses")."""
    ACTIVE = 1
    EXPIRED = 2
    BILLING_RETRY = 3
    BILLING_GRACE_PERIOD = 4
    REVOKED = 5


class Reason(NamedIntEnum):
    """Why a customer is (SUBSCRIPTION … NON_RENEWING) or is not entitled."""
    SUBSCRIPTION = 1
    GRACE_PERIOD = 2
    NON_CONSUMABLE = 3
    NON_RENEWING = 4
    NO_PURCHASE = 10
    EXPIRED = 11
    BILLING_RETRY = 12
    REVOKED = 13
    NOT_YET_PURCHASED = 14
    CONSUMABLE = 15
    UPGRADED = 16
    ONLY_TEST_SIGNED = 17   # nothing App Store-signed matches, but test-signed data does
    UNKNOWN_TYPE = 18       # a purchase with no end whose type neither the data nor the catalog names
    UNKNOWN_NAME = 19       # the catalog in effect names no such product, group or entitlement (a typo)

    @property
    def entitles(self) -> bool:
        return self.value < 10


class Outcome(NamedIntEnum):
    """What an ingestion did."""
    NEW = 1          # recorded, and it brought something the ledger lacked
    DUPLICATE = 2    # already recorded: nothing written
    SUPERSEDED = 3   # recorded; what it carries was known or older: no state change


_REASONS = {"subscription": Reason.SUBSCRIPTION, "grace-period": Reason.GRACE_PERIOD,
            "non-consumable": Reason.NON_CONSUMABLE, "non-renewing": Reason.NON_RENEWING,
            "no-purchase": Reason.NO_PURCHASE, "expired": Reason.EXPIRED, "billing-retry": Reason.BILLING_RETRY,
            "revoked": Reason.REVOKED, "not-yet-purchased": Reason.NOT_YET_PURCHASED,
            "consumable": Reason.CONSUMABLE, "upgraded": Reason.UPGRADED,
            "only-test-signed": Reason.ONLY_TEST_SIGNED, "unknown-type": Reason.UNKNOWN_TYPE,
            "unknown-name": Reason.UNKNOWN_NAME}
_REASON_NAMES = {reason: name for name, reason in _REASONS.items()}


def _ms(at: Instant) -> int:
    """0 (now) for None; Unix ms of an aware datetime (a plain number is refused: _time)."""
    value = _time.milliseconds(at, "at")
    if at is not None and value <= 0:
        raise ValueError("at must be after 1970-01-01T00:00:00Z")
    return value


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
                   stale=bool(raw.get("stale", False)), did_you_mean=raw.get("didYouMean"))

    def to_dict(self) -> Dict[str, Any]:
        return _present({
            "version": 1, "entitled": self.entitled, "reason": _REASON_NAMES[self.reason], "productId": self.product_id,
            "subscriptionGroupIdentifier": self.group_id, "transactionId": self.transaction_id,
            "originalTransactionId": self.original_transaction_id,
            "status": int(self.status) if self.status is not None else None,
            "familyShared": self.family_shared if self.product_id is not None else None,
            "since": _time.milliseconds(self.since, "since") if self.since else None,
            "until": _time.milliseconds(self.until, "until") if self.until else None,
            "entitlements": list(self.grants) if self.grants else None,
            "stale": True if self.stale else None,
            "didYouMean": self.did_you_mean,
        })


@dataclass(frozen=True)
class CatalogReport(JSONResult):
    """What declaring a catalog changes, against the purchases the ledger holds
    (ledger_declare_catalog_report's JSON): products it names that nobody bought (each with the
    purchased product id it is likely a typo of), purchased products it no longer names, and
    the entitlement names purchased products gain and lose."""
    declared: bool                                    # False for a check: nothing was declared
    effective: datetime
    unseen_products: Tuple[Tuple[str, Optional[str]], ...]   # (product id, did you mean)
    unnamed_products: Tuple[str, ...]
    warnings: Tuple[str, ...]      # a sentence per likely mistake: look before relying on the catalog
    entitlement_changes: Tuple[Tuple[str, Tuple[str, ...], Tuple[str, ...]], ...]  # (product, gained, lost)

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "CatalogReport":
        effective = _time.from_milliseconds(raw["effective"])
        assert effective is not None
        return cls(declared=bool(raw["declared"]), effective=effective,
                   unseen_products=tuple((u["product"], u.get("didYouMean")) for u in raw["unseenProducts"]),
                   unnamed_products=tuple(raw["unnamedProducts"]), warnings=tuple(raw["warnings"]),
                   entitlement_changes=tuple((c["product"], tuple(c["gained"]), tuple(c["lost"])) for c in raw["entitlementChanges"]))

    def to_dict(self) -> Dict[str, Any]:
        return {"version": 1, "declared": self.declared, "effective": _time.milliseconds(self.effective, "effective"),
                "unseenProducts": [_present({"product": p, "didYouMean": d}) for p, d in self.unseen_products],
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

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "IngestResult":
        return cls(outcome=Outcome[raw["outcome"].upper()], kind=raw["kind"], environment=raw["environment"],
                   test_signed=bool(raw["testSigned"]), identity=raw["identity"], customer=raw.get("customer"),
                   app_account_token=raw.get("appAccountToken"),
                   original_transaction_ids=tuple(raw.get("originalTransactionIds", [])),
                   notification_type=raw.get("notificationType"), notification_uuid=raw.get("notificationUUID"),
                   status_changes=tuple(StatusChange.from_dict(c) for c in raw.get("statusChanges", [])),
                   subtype=raw.get("subtype"))

    def to_dict(self) -> Dict[str, Any]:
        members = _present({
            "version": 1, "outcome": self.outcome.name.lower(), "kind": self.kind, "environment": self.environment,
            "testSigned": self.test_signed, "identity": self.identity, "notificationType": self.notification_type,
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
    (``at``) and why (``cause`` "ingest", with the history's ``item``, or "time")."""
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
                   until=_time.from_milliseconds(raw.get("until")), item=raw.get("item"))

    def to_dict(self) -> Dict[str, Any]:
        return _present({
            "seq": self.seq, "environment": self.environment, "testSigned": self.test_signed,
            "originalTransactionId": self.original_transaction_id, "appAccountToken": self.app_account_token,
            "appUserIds": list(self.app_user_ids), "productId": self.product_id,
            "entitlements": list(self.entitlements) if self.entitlements else None, "entitled": self.entitled,
            "reason": _REASON_NAMES[self.reason], "status": int(self.status) if self.status is not None else None,
            "until": _time.milliseconds(self.until, "until") if self.until else None,
            "at": _time.milliseconds(self.at, "at"), "cause": self.cause, "item": self.item,
            "recorded": _time.milliseconds(self.recorded, "recorded"),
        })


class ChangePage(NamedTuple):
    """Ledger.changes(): the changes read, and the cursor to read after next."""
    changes: List[Change]
    last: int


class LinkOutcome(NamedIntEnum):
    """What Ledger.link() did."""
    UNCHANGED = 0    # already linked to this app account
    LINKED = 1
    TRANSFERRED = 2  # it was linked to another app account, which lost it


class SyncOutcome(NamedIntEnum):
    """What ledger_sync_notifications() did (GATEKIT_LEDGER_SYNC_*)."""
    DONE = _bindings.GATEKIT_LEDGER_SYNC_DONE        # caught up
    PARTIAL = _bindings.GATEKIT_LEDGER_SYNC_PARTIAL  # stopped by the budget or page limit: call again
    BUSY = _bindings.GATEKIT_LEDGER_SYNC_BUSY        # another process or host is syncing: nothing done


@dataclass(frozen=True)
class SyncReport(JSONResult):
    """What one sync (or refresh) did: pages read, items ingested by outcome, items refused
    (``rejections``: their errors), and the checkpoint. ``to_dict()`` is the C JSON."""
    outcome: Optional[SyncOutcome]
    #: Why a sync stopped: "caught-up", "budget", "max-pages" or "busy" (None for a refresh).
    stopped_by: Optional[str]
    pages: int
    items: int
    new: int
    duplicate: int
    superseded: int
    rejected: int
    rejections: Tuple[GateKitError, ...]
    synced_until: Optional[datetime]
    raw: Mapping[str, Any]

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "SyncReport":
        outcome = raw.get("outcome")
        return cls(outcome=SyncOutcome[outcome.upper()] if outcome else None, stopped_by=raw.get("stoppedBy"),
                   pages=int(raw.get("pages", 0)),
                   items=raw["items"], new=raw["new"], duplicate=raw["duplicate"], superseded=raw["superseded"],
                   rejected=raw["rejected"], rejections=tuple(error_for(r["error"], r["message"]) for r in raw["rejections"]),
                   synced_until=_time.from_milliseconds(raw.get("syncedUntil")), raw=dict(raw))

    def to_dict(self) -> Dict[str, Any]:
        return dict(self.raw)


QUERY_VERSION = _bindings.GATEKIT_LEDGER_QUERY_VERSION
ENTITLEMENT_VERSION = _bindings.GATEKIT_ENTITLEMENT_VERSION
TEST_SIGNED = _bindings.GATEKIT_LEDGER_TEST_SIGNED
APP_USER = _bindings.GATEKIT_LEDGER_APP_USER

_S = ctypes.POINTER(_bindings.gatekit_store)
_Query = _bindings.gatekit_ledger_query
_Entitlement = _bindings.gatekit_entitlement
_Q = ctypes.POINTER(_Query)
_O = ctypes.POINTER(JWSOptions)
_out = _bindings.c_char_p_p
_query_init = _bindings.ledger_query_init
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
_sync_options_init = _bindings.ledger_sync_options_init
_sync = _bindings.ledger_sync_notifications
_sync_state = _bindings.ledger_sync_state
_refresh = _bindings.ledger_refresh
_set_refresher = _bindings.ledger_set_refresher
_declare_catalog_report = _bindings.ledger_declare_catalog_report
_CATALOG_CHECK_ONLY = _bindings.GATEKIT_CATALOG_CHECK_ONLY
_catalog = _bindings.ledger_catalog
_metrics = _bindings.ledger_metrics
_report = _bindings.ledger_report


class Ledger:
    """``store.ledger``. Ingestion verifies in the same call (with a
    :class:`gatekit.jws.SignedDataVerifier` and an optional ``verify_time`` in Unix seconds for
    the certificate checks, default the payload's signedDate; or receipt options) and is
    durable when it returns.
    Questions name the environment; ``test_signed=True`` asks about data accepted under a test
    anchor (kept apart from App Store data). ``at``: None for now, else an aware datetime (or
    Unix ms): the answer the ledger would have given then, from what Apple had signed by then.
    Safe from many threads and processes."""

    def __init__(self, store: "_native.StoreOwner") -> None:
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

    @staticmethod
    def _query(environment: str, at: Instant, test_signed: bool, refresh_within: Optional[timedelta] = None,
               by_app_user: bool = False) -> _Query:
        q = _Query()
        check(_query_init(ctypes.byref(q), QUERY_VERSION))
        q.environment = _native.required_c_string(environment, "environment")
        q.at_ms = _ms(at)
        q.flags = (TEST_SIGNED if test_signed else 0) | (APP_USER if by_app_user else 0)
        q.refresh_budget_ms = 0 if refresh_within is None else max(1, _time.span_milliseconds(refresh_within, "refresh_within"))
        return q

    # ---- syncing from Apple ----------------------------------------------------------------

    def sync_notifications(self, client: "AppStoreServerAPIClient", verifier: SignedDataVerifier, *,
                           since: Instant = None, until: Instant = None, overlap: timedelta = timedelta(hours=1),
                           budget: Optional[timedelta] = None, max_pages: Optional[int] = None,
                           lease: timedelta = timedelta(minutes=2), verify_time: Instant = None) -> SyncReport:
        """Ingests every notification Apple attempted to send since the last sync (Get
        Notification History), each verified with ``verifier``: lost ones are recovered, the
        rest are duplicates. Resumable (a checkpoint per page), one process or host at a time
        (``outcome`` BUSY otherwise). ``since``: the first sync's start (default: as far back
        as Apple keeps); ``until``: the end (default now); ``budget`` (default 10 minutes, at
        most a day; it bounds each request too) / ``max_pages``: stop early (PARTIAL,
        ``stopped_by`` says which) and go on at the next call; ``verify_time`` as for the ingest
        methods. docs/ledger.md, "Syncing from Apple"."""
        options = _bindings.gatekit_ledger_sync_options()
        check(_sync_options_init(ctypes.byref(options), _bindings.GATEKIT_LEDGER_SYNC_OPTIONS_VERSION))
        verify = verifier.c_options(verify_time)
        options.verify = ctypes.pointer(verify)
        options.since_ms = _ms(since)
        options.until_ms = _ms(until)
        options.overlap_ms = _time.span_milliseconds(overlap, "overlap")
        options.budget_ms = 0 if budget is None else max(1, _time.span_milliseconds(budget, "budget"))
        options.max_pages = 0 if max_pages is None else int(max_pages)
        options.lease_ms = _time.span_milliseconds(lease, "lease")
        out = ctypes.c_void_p()
        check(_sync(ctypes.byref(out), self._store.handle, client.handle, ctypes.byref(options)))
        return SyncReport.from_json(json.loads(_native.take_string(out)))

    def sync_state(self, environment: str) -> Dict[str, Any]:
        """Where the environment's sync stands: ``syncedUntil`` (Unix ms or None), the window
        part-way (``window``) and the lease (``leaseUntil``) when there is one."""
        out = ctypes.c_void_p()
        check(_sync_state(ctypes.byref(out), self._store.handle, _native.required_c_string(environment, "environment")))
        document: Dict[str, Any] = json.loads(_native.take_string(out))
        return document

    def refresh(self, client: "AppStoreServerAPIClient", customer: str, verifier: SignedDataVerifier,
                verify_time: Instant = None) -> SyncReport:
        """One customer (an original transaction id, or an app account token the ledger knows)
        from Apple's transaction history and subscription statuses, verified and ingested,
        within the client's ``timeout`` for the whole refresh."""
        verify = verifier.c_options(verify_time)
        out = ctypes.c_void_p()
        check(_refresh(ctypes.byref(out), self._store.handle, client.handle, ctypes.byref(verify),
                       _native.required_c_string(customer, "customer")))
        return SyncReport.from_json(json.loads(_native.take_string(out)))

    def set_refresher(self, client: Optional["AppStoreServerAPIClient"], verifier: Optional[SignedDataVerifier] = None,
                      verify_time: Instant = None) -> None:
        """Lets questions with ``refresh_within`` ask Apple before saying no (None: stop)."""
        if client is None:
            check(_set_refresher(self._store.handle, None, None))
            return
        if verifier is None:
            raise TypeError("set_refresher needs the verifier the refreshed data is checked with")
        verify = verifier.c_options(verify_time)
        check(_set_refresher(self._store.handle, client.handle, ctypes.byref(verify)))

    # ---- the change feed -------------------------------------------------------------------

    def changes(self, after: int = 0, limit: int = 100) -> ChangePage:
        """The changes after the cursor ``after`` (0: from the first), oldest first, at most
        ``limit``, and the cursor to pass next. Time's due changes are appended first."""
        out = ctypes.c_void_p()
        check(_changes(ctypes.byref(out), self._store.handle, int(after), int(limit)))
        document = json.loads(_native.take_string(out))
        return ChangePage([Change.from_json(c) for c in document["changes"]], document["last"])

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
        return CatalogReport.from_dict(json.loads(_native.take_string(out)))

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

    # ---- metrics and the report (gatekit.ledger_insight) --------------------------------------

    @staticmethod
    def _interval(start: datetime, end: datetime, granularity: str) -> Tuple[int, int, int]:
        from .ledger_insight import GRANULARITIES
        if granularity not in GRANULARITIES:
            raise ValueError(f"granularity must be one of {', '.join(GRANULARITIES)}, not {granularity!r}")
        return _time.milliseconds(start, "start"), _time.milliseconds(end, "end"), GRANULARITIES[granularity]

    def metrics(self, *, environment: str, start: datetime, end: datetime, granularity: str = "month", by: str = "all",
                at: Instant = None, test_signed: bool = False) -> "Metrics":
        """Subscription metrics for [start, end) in UTC days, ISO weeks or months, split ``by``
        product, group, entitlement, storefront or currency, from what Apple had signed by
        ``at`` (None: now). One snapshot of the store."""
        from .ledger_insight import BY, Metrics
        if by not in BY:
            raise ValueError(f"by must be one of {', '.join(BY)}, not {by!r}")
        first, last, size = self._interval(start, end, granularity)
        q = self._query(environment, at, test_signed)
        out = ctypes.c_void_p()
        check(_metrics(ctypes.byref(out), self._store.handle, ctypes.byref(q), first, last, size, BY[by]))
        return Metrics.from_dict(json.loads(_native.take_string(out)))

    def report(self, *, environment: str, start: datetime, end: datetime, granularity: str = "month",
               at: Instant = None, test_signed: bool = False) -> str:
        """The app view as one self-contained HTML page (what ``gatekit ledger report`` writes)."""
        return self._report_html(None, environment, start, end, granularity, at, test_signed, False)

    def customer_report(self, customer: str, *, environment: str, start: datetime, end: datetime, granularity: str = "month",
                        at: Instant = None, test_signed: bool = False, by_app_user: bool = False) -> "CustomerReport":
        """A customer's timelines, events linked to their signed items, and "entitled now? why?"
        (``by_app_user``: ``customer`` is the host's user id). Jupyter shows it inline."""
        from .ledger_insight import CustomerReport
        html = self._report_html(customer, environment, start, end, granularity, at, test_signed, by_app_user)
        return CustomerReport(customer=customer, html=html)

    def _report_html(self, customer: Optional[str], environment: str, start: datetime, end: datetime, granularity: str,
                     at: Instant, test_signed: bool, by_app_user: bool) -> str:
        first, last, size = self._interval(start, end, granularity)
        q = self._query(environment, at, test_signed, by_app_user=by_app_user)
        out = ctypes.c_void_p()
        check(_report(ctypes.byref(out), self._store.handle, ctypes.byref(q), first, last, size,
                      _native.to_c_string(customer, "customer")))
        return _native.take_string(out)

