"""What every module of the ledger (ledger, ledger_sync, ledger_insight) passes with a question:
the instant asked about, and the gatekit_ledger_query struct (include/gatekit/ledger.h)."""
from __future__ import annotations

import ctypes
from datetime import timedelta
from typing import Optional

from . import _bindings, _native, _time
from ._time import Instant
from .errors import check

__all__ = ["APP_USER", "QUERY_VERSION", "TEST_SIGNED", "Query", "instant_ms", "query"]

QUERY_VERSION = _bindings.GATEKIT_LEDGER_QUERY_VERSION
TEST_SIGNED = _bindings.GATEKIT_LEDGER_TEST_SIGNED
APP_USER = _bindings.GATEKIT_LEDGER_APP_USER
Query = _bindings.gatekit_ledger_query


def instant_ms(at: Instant) -> int:
    """0 (now) for None; Unix ms of an aware datetime (a plain number is refused: _time)."""
    value = _time.milliseconds(at, "at")
    if at is not None and value <= 0:
        raise ValueError("at must be after 1970-01-01T00:00:00Z")
    return value


def query(environment: str, at: Instant, test_signed: bool, refresh_within: Optional[timedelta] = None,
          by_app_user: bool = False) -> "_bindings.gatekit_ledger_query":
    q = Query()
    check(_bindings.ledger_query_init(ctypes.byref(q), QUERY_VERSION))
    q.environment = _native.required_c_string(environment, "environment")
    q.at_ms = instant_ms(at)
    q.flags = (TEST_SIGNED if test_signed else 0) | (APP_USER if by_app_user else 0)
    q.refresh_budget_ms = 0 if refresh_within is None else max(1, _time.span_milliseconds(refresh_within, "refresh_within"))
    return q
