"""Keeping the ledger in step with Apple (``<gatekit/ledger_sync.h>``): the notifications Apple
attempted to send, recovered from its notification history (``store.ledger.sync_notifications``),
one customer refreshed from the App Store Server API (``store.ledger.refresh``), and questions
that ask Apple before saying no (``store.ledger.set_refresher``). docs/ledger.md, "Syncing from
Apple"."""
from __future__ import annotations

import ctypes
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Tuple

from . import _bindings, _native, _time
from ._enums import SyncOutcome
from ._ledger_query import instant_ms
from ._managed import StoreOwner
from ._result import JSONResult
from ._time import Instant
from .errors import GateKitError, check, error_for
from .jws import SignedDataVerifier

if TYPE_CHECKING:
    from .api_client import AppStoreServerAPIClient

__all__ = ["LedgerSync", "SyncOutcome", "SyncReport"]

_sync_options_init = _bindings.ledger_sync_options_init
_sync = _bindings.ledger_sync_notifications
_sync_state = _bindings.ledger_sync_state
_refresh = _bindings.ledger_refresh
_set_refresher = _bindings.ledger_set_refresher


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


class LedgerSync:
    """The ledger's part that talks to Apple: a part of :class:`gatekit.ledger.Ledger`."""
    _store: StoreOwner

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
        options.since_ms = instant_ms(since)
        options.until_ms = instant_ms(until)
        options.overlap_ms = _time.span_milliseconds(overlap, "overlap")
        options.budget_ms = 0 if budget is None else max(1, _time.span_milliseconds(budget, "budget"))
        options.max_pages = 0 if max_pages is None else int(max_pages)
        options.lease_ms = _time.span_milliseconds(lease, "lease")
        out = ctypes.c_void_p()
        check(_sync(ctypes.byref(out), self._store.handle, client.handle, ctypes.byref(options)))
        return SyncReport.from_json(json.loads(_native.take_string(out)))

    def sync_state(self, environment: str) -> Dict[str, Any]:
        """Where the environment's sync stands (an App Store environment, or a Play sync's
        ``"play:<package>"``, the name its report prints): ``syncedUntil`` (Unix ms or None), the
        window part-way (``window``) and the lease (``leaseUntil``) when there is one."""
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
