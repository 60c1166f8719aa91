"""Support grants in the ledger (``<gatekit/ledger_grant.h>``): an entitlement given by hand —
a goodwill month, a reviewer's access — answered like a purchase with ``store == "grant"``,
in the feed, the history and the customer report, and never counted in the metrics
(docs/ledger.md, "Support grants")."""
from __future__ import annotations

import ctypes
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Union

from . import _bindings, _native, _time
from ._result import JSONResult
from ._time import Instant
from .errors import check

if TYPE_CHECKING:
    from ._managed import StoreOwner

__all__ = ["Grant", "LedgerGrants"]


@dataclass(frozen=True)
class Grant(JSONResult):
    """One grant as given (``to_dict()`` is ledger_grant()'s JSON): to exactly one of an app
    account (``app_user_id``) and a ledger customer; ``until`` None: for good."""
    grant_id: str
    environment: str
    entitlement: str
    start: datetime
    until: Optional[datetime]
    granted_by: str
    note: Optional[str] = None
    app_user_id: Optional[str] = None
    customer: Optional[str] = None
    revoked_at: Optional[datetime] = None

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "Grant":
        start = _time.from_milliseconds(raw["from"])
        assert start is not None  # the library always says when a grant starts
        return cls(grant_id=raw["grantId"], environment=raw["environment"], entitlement=raw["entitlement"], start=start,
                   until=_time.from_milliseconds(raw.get("until")), granted_by=raw["grantedBy"], note=raw.get("note"),
                   app_user_id=raw.get("appUserId"), customer=raw.get("customer"),
                   revoked_at=_time.from_milliseconds(raw.get("revokedAt")))

    def to_dict(self) -> Dict[str, Any]:
        members: Dict[str, Any] = {"version": 1, "grantId": self.grant_id, "environment": self.environment,
                                   "entitlement": self.entitlement}
        if self.app_user_id is not None:
            members["appUserId"] = self.app_user_id
        else:
            members["customer"] = self.customer
        members.update({"from": _time.milliseconds(self.start, "start"),
                        "until": _time.milliseconds(self.until, "until") if self.until else None, "grantedBy": self.granted_by})
        if self.note is not None:
            members["note"] = self.note
        members["revokedAt"] = _time.milliseconds(self.revoked_at, "revoked_at") if self.revoked_at else None
        return members


class LedgerGrants:
    """``store.ledger``'s grant calls. ``granted_by``: who gives or revokes it, as your team
    names its people ("support:jane"); ``note``: why."""

    _store: "StoreOwner"

    def grant(self, entitlement: str, *, environment: str, granted_by: str, app_user_id: Optional[str] = None,
              customer: Optional[str] = None, start: Instant = None, until: Union[datetime, timedelta, None] = None,
              note: Optional[str] = None) -> Grant:
        """Gives ``entitlement`` to exactly one of ``app_user_id`` (your own user id: the grant
        follows the account) and ``customer`` (an app account token or an original transaction
        id), from ``start`` (an aware datetime; None: now) until ``until`` (an aware datetime, a
        timedelta after the start, or None: for good). With a catalog in effect the name must be
        one of its entitlements (a typo raises ``InvalidArgumentError`` naming the nearest)."""
        start_ms = _time.milliseconds(start, "start")
        if isinstance(until, timedelta):
            base = start_ms or _time.milliseconds(datetime.now().astimezone(), "now")
            start_ms = base
            until_ms = base + int(until.total_seconds() * 1000)
        else:
            until_ms = _time.milliseconds(until, "until")
        out = ctypes.c_void_p()
        check(_bindings.ledger_grant(ctypes.byref(out), self._store.handle, _native.required_c_string(environment, "environment"),
                                     _native.required_c_string(entitlement, "entitlement"), _native.to_c_string(app_user_id, "app_user_id"),
                                     _native.to_c_string(customer, "customer"), start_ms, until_ms,
                                     _native.required_c_string(granted_by, "granted_by"), _native.to_c_string(note, "note")))
        return Grant.from_dict(json.loads(_native.take_string(out)))

    def revoke_grant(self, grant_id: str, *, environment: str, granted_by: str, at: Instant = None,
                     note: Optional[str] = None) -> "tuple[Grant, bool]":
        """Revokes the grant from ``at`` (None: now): ``(grant, True)``, or ``(grant, False)``
        when it was revoked before (nothing recorded). An unknown id raises ``NotFoundError``."""
        out = ctypes.c_void_p()
        revoked = check(_bindings.ledger_revoke_grant(ctypes.byref(out), self._store.handle,
                                                      _native.required_c_string(environment, "environment"),
                                                      _native.required_c_string(grant_id, "grant_id"), _time.milliseconds(at, "at"),
                                                      _native.required_c_string(granted_by, "granted_by"), _native.to_c_string(note, "note")))
        return Grant.from_dict(json.loads(_native.take_string(out))), revoked == 1
