"""Subscription metrics from the ledger and its report (``<gatekit/ledger_insight.h>``):
``store.ledger.metrics(...)``, ``store.ledger.refresh_metrics(...)``, ``store.ledger.report(...)`` and
``store.ledger.customer_report(...)``. Plain structures (lists and dicts, no pandas); money is
in milliunits of each currency as Apple signed it, never converted. docs/ledger.md, "Metrics",
defines every figure."""
from __future__ import annotations

import ctypes
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Dict, List, Mapping, Optional, Tuple

from . import _bindings, _native, _time
from ._ledger_query import query
from ._managed import StoreOwner
from ._result import JSONResult
from ._time import Instant
from .errors import check

__all__ = ["BY", "Cohort", "CustomerReport", "DAY", "GRANULARITIES", "LedgerInsight", "METRICS", "MONTH", "Metrics",
           "MetricSeries", "WEEK"]

#: gatekit_ledger_insight.h's bucket sizes.
DAY, WEEK, MONTH = _bindings.GATEKIT_METRICS_DAY, _bindings.GATEKIT_METRICS_WEEK, _bindings.GATEKIT_METRICS_MONTH
GRANULARITIES = {"day": DAY, "week": WEEK, "month": MONTH}
#: What the series are split by (GATEKIT_METRICS_ALL, GATEKIT_METRICS_BY_*).
BY = {"all": _bindings.GATEKIT_METRICS_ALL, "product": _bindings.GATEKIT_METRICS_BY_PRODUCT,
      "group": _bindings.GATEKIT_METRICS_BY_GROUP, "entitlement": _bindings.GATEKIT_METRICS_BY_ENTITLEMENT,
      "storefront": _bindings.GATEKIT_METRICS_BY_STOREFRONT, "currency": _bindings.GATEKIT_METRICS_BY_CURRENCY,
      "store": _bindings.GATEKIT_METRICS_BY_STORE}
_metrics = _bindings.ledger_metrics
_refresh = _bindings.ledger_metrics_refresh
_report = _bindings.ledger_report
#: The per-bucket counts of a series, in the order the library writes them.
METRICS = ("activeSubscriptions", "activeTrials", "inGracePeriod", "inBillingRetry", "familyShared", "paidSubscribers",
           "new", "newTrials", "conversions", "renewals", "recoveries", "reactivations", "productChanges",
           "expiredVoluntary", "expiredBilling", "expiredOther", "trialsExpired", "refunded", "revoked", "pricesExcluded")


@dataclass(frozen=True)
class MetricSeries:
    """One series: ``key`` is what it is split by (None for the whole environment, or a value
    the data did not name). ``counts[name]`` has one number per bucket; money per currency."""
    key: Optional[str]
    counts: Dict[str, List[int]]
    revenue: Dict[str, List[int]]
    refunds: Dict[str, List[int]]
    net_revenue: Dict[str, List[int]]
    #: Per currency: each paid period's price × 30.436875 days ÷ its length, to the nearest milliunit.
    mrr: Dict[str, List[int]]

    def __getitem__(self, name: str) -> List[int]:
        return self.counts[name]


@dataclass(frozen=True)
class Cohort:
    """Subscriptions whose first paid period began in ``month`` on ``product``; ``retained[k]``:
    how many held a paid period (or grace) at the end of the k-th month after."""
    product: str
    month: datetime
    subscribers: int
    retained: List[int]


@dataclass(frozen=True)
class Metrics(JSONResult):
    """``to_dict()`` is ``ledger_metrics()``' document (what ``gatekit ledger metrics`` prints);
    ``from_json()`` reads it back."""
    environment: str
    test_signed: bool
    as_of: datetime
    granularity: str
    dimension: str
    #: Each bucket's start (UTC); the last ends at ``end``.
    buckets: List[datetime]
    end: Optional[datetime]
    series: List[MetricSeries]
    cohorts: List[Cohort]
    #: Asked about App Store data of a ledger whose every item of the environment is
    #: test-signed: ask with ``test_signed=True`` to see the test data's metrics.
    only_test_signed: bool
    #: The library's document, as it came.
    raw: Dict[str, Any] = field(repr=False, compare=False)

    def to_dict(self) -> Dict[str, Any]:
        return dict(self.raw)

    def __getitem__(self, key: Optional[str]) -> MetricSeries:
        """The series of ``key`` (None: the whole environment, with ``by="all"``)."""
        for s in self.series:
            if s.key == key:
                return s
        raise KeyError(key)

    def keys(self) -> List[Optional[str]]:
        """The series' keys, in the document's order, as a mapping's ``keys()``: ``metrics[key]``
        for each (``by="store"``: "app-store", "play")."""
        return [s.key for s in self.series]

    def __contains__(self, key: object) -> bool:
        return any(s.key == key for s in self.series)

    def __len__(self) -> int:
        return len(self.series)

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "Metrics":
        def when(ms: Optional[int]) -> Optional[datetime]:
            return _time.from_milliseconds(ms)
        series = [MetricSeries(key=s["key"], counts={name: list(s[name]) for name in METRICS},
                               revenue=dict(s["revenue"]), refunds=dict(s["refunds"]), net_revenue=dict(s["netRevenue"]),
                               mrr=dict(s["mrr"])) for s in raw["series"]]
        cohorts = [Cohort(product=c["product"], month=_time.from_milliseconds(c["month"]) or datetime.min,
                          subscribers=c["subscribers"], retained=list(c["retained"])) for c in raw["cohorts"]]
        return cls(environment=raw["environment"], test_signed=raw["testSigned"],
                   as_of=_time.from_milliseconds(raw["asOf"]) or datetime.min, granularity=raw["granularity"],
                   dimension=raw["dimension"], buckets=[_time.from_milliseconds(b) or datetime.min for b in raw["buckets"]],
                   end=when(raw["end"]), series=series, cohorts=cohorts, only_test_signed=bool(raw.get("onlyTestSigned", False)),
                   raw=dict(raw))


@dataclass(frozen=True)
class CustomerReport:
    """A customer's view as one HTML page; shown inline by Jupyter (``_repr_html_``)."""
    customer: str
    html: str

    def _repr_html_(self) -> str:
        return self.html

    def save(self, path: str) -> None:
        """Writes the page to a new file (mode 0600; an existing file is refused)."""
        import os
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(self.html)


class LedgerInsight:
    """The ledger's metrics and report: a part of :class:`gatekit.ledger.Ledger`."""
    _store: StoreOwner

    @staticmethod
    def _interval(start: datetime, end: datetime, granularity: str) -> Tuple[int, int, int]:
        if granularity not in GRANULARITIES:
            raise ValueError(f"granularity must be one of {', '.join(GRANULARITIES)}, not {granularity!r}")
        return _time.milliseconds(start, "start"), _time.milliseconds(end, "end"), GRANULARITIES[granularity]

    def metrics(self, *, environment: str, start: datetime, end: datetime, granularity: str = "month", by: str = "all",
                at: Instant = None, test_signed: bool = False) -> Metrics:
        """Subscription metrics for [start, end) in UTC days, ISO weeks or months, split ``by``
        product, group, entitlement, storefront, currency or store ("app-store", "play", "stripe"), from what the stores had signed or answered by
        ``at`` (None: now). One snapshot of the store."""
        if by not in BY:
            raise ValueError(f"by must be one of {', '.join(BY)}, not {by!r}")
        first, last, size = self._interval(start, end, granularity)
        q = query(environment, at, test_signed)
        out = ctypes.c_void_p()
        check(_metrics(ctypes.byref(out), self._store.handle, ctypes.byref(q), first, last, size, BY[by]))
        return Metrics.from_dict(json.loads(_native.take_string(out)))

    def refresh_metrics(self, *, environment: str, test_signed: bool = False) -> bool:
        """Brings the environment's day roll-up up to date with what was ingested since it last
        counted (``ledger_metrics_refresh``), so no question pays for it; True when it counted
        new items. Run it after ingesting, or as a worker (``gatekit ledger metrics-refresh
        --follow``)."""
        q = query(environment, None, test_signed)
        return check(_refresh(self._store.handle, ctypes.byref(q))) == 1

    def report(self, *, environment: str, start: datetime, end: datetime, granularity: str = "month",
               at: Instant = None, test_signed: bool = False) -> str:
        """The app view as one self-contained HTML page (what ``gatekit ledger report`` writes)."""
        return self._report_html(None, environment, start, end, granularity, at, test_signed, False)

    def customer_report(self, customer: str, *, environment: str, start: datetime, end: datetime, granularity: str = "month",
                        at: Instant = None, test_signed: bool = False, by_app_user: bool = False) -> CustomerReport:
        """A customer's timelines, events linked to their signed items, and "entitled now? why?"
        (``by_app_user``: ``customer`` is the host's user id). Jupyter shows it inline."""
        html = self._report_html(customer, environment, start, end, granularity, at, test_signed, by_app_user)
        return CustomerReport(customer=customer, html=html)

    def _report_html(self, customer: Optional[str], environment: str, start: datetime, end: datetime, granularity: str,
                     at: Instant, test_signed: bool, by_app_user: bool) -> str:
        first, last, size = self._interval(start, end, granularity)
        q = query(environment, at, test_signed, by_app_user=by_app_user)
        out = ctypes.c_void_p()
        check(_report(ctypes.byref(out), self._store.handle, ctypes.byref(q), first, last, size,
                      _native.to_c_string(customer, "customer")))
        return _native.take_string(out)
