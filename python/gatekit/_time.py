"""One convention for instants and spans: aware ``datetime`` in and out, ``timedelta`` for
spans. The library speaks Unix seconds or milliseconds; a plain number is refused here rather
than guessed at, since a number in the wrong unit would only surface later as a certificate or
date error far from the call."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Optional

__all__ = ["Instant", "from_milliseconds", "milliseconds", "rfc3339_ms", "seconds", "span_milliseconds"]

#: What GateKit's own time parameters take: an aware datetime, or None for the default.
Instant = Optional[datetime]


def _aware(value: object, name: str, unit: str) -> datetime:
    if not isinstance(value, datetime):
        raise TypeError(f"{name} takes an aware datetime, not {type(value).__name__} (for Unix {unit} n: "
                        f"datetime.fromtimestamp(n{' / 1000' if unit == 'milliseconds' else ''}, timezone.utc))")
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise ValueError(f"{name} must be an aware datetime: a naive one names no instant (add tzinfo=timezone.utc)")
    return value


def seconds(value: Instant, name: str) -> int:
    """Unix seconds of an aware datetime; 0 (the library's default) for None."""
    return 0 if value is None else int(_aware(value, name, "seconds").timestamp())


def milliseconds(value: Instant, name: str) -> int:
    """Unix milliseconds of an aware datetime; 0 (now) for None."""
    if value is None:
        return 0
    moment = _aware(value, name, "milliseconds")
    return (moment - datetime(1970, 1, 1, tzinfo=timezone.utc)) // timedelta(milliseconds=1)


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
#: The instants a datetime holds (years 1 to 9999), in Unix milliseconds.
_EARLIEST_MS = (datetime.min.replace(tzinfo=timezone.utc) - _EPOCH) // timedelta(milliseconds=1)
_LATEST_MS = (datetime.max.replace(tzinfo=timezone.utc) - _EPOCH) // timedelta(milliseconds=1)


def from_milliseconds(ms: Optional[int]) -> Optional[datetime]:
    """The aware UTC datetime of Unix milliseconds (None stays None). Signed data may carry any
    instant: one before year 1 or after 9999 is the calendar's first or last instant a datetime
    holds, never an OverflowError that would stop a feed consumer for good."""
    if ms is None:
        return None
    return _EPOCH + timedelta(milliseconds=min(max(ms, _EARLIEST_MS), _LATEST_MS))


def span_milliseconds(span: timedelta, name: str) -> int:
    if not isinstance(span, timedelta):
        raise TypeError(f"{name} takes a datetime.timedelta, not {type(span).__name__}")
    return max(0, span // timedelta(milliseconds=1))


def rfc3339_ms(value: datetime) -> str:
    """As the library writes instants: "2026-11-25T08:30:00.123Z" (UTC, milliseconds)."""
    moment = _aware(value, "at", "milliseconds").astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
