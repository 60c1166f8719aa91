"""What the header's enumerations do (python/gatekit/_enums.py is generated from the headers):
each rule asks the library — perm_state_name, perm_allows_prompt, perm_category_name,
ledger_reason_name, ledger_reason_entitles — so none is written twice."""
from __future__ import annotations

from typing import Callable, Optional, SupportsInt, cast

from . import _bindings

__all__ = ["CategoryRules", "ReasonRules", "StateRules", "allows_prompt", "category_name", "reason_entitles", "reason_name",
           "state_name"]

_INT_MIN, _INT_MAX = -2**31, 2**31 - 1


def _c_int(value: object) -> Optional[int]:
    """value when it is an int a C int holds (never a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, int) or not _INT_MIN <= value <= _INT_MAX:
        return None
    return value


def _name(function: Callable[[int], Optional[bytes]], value: object) -> Optional[str]:
    """What a C name function (static storage, NULL for an unknown number) says of value."""
    number = _c_int(value)
    raw = None if number is None else function(number)
    return raw.decode("ascii") if raw else None


def category_name(value: int) -> Optional[str]:
    """"camera" for a built-in category, None for any other number."""
    return _name(_bindings.perm_category_name, value)


def state_name(value: int) -> Optional[str]:
    return _name(_bindings.perm_state_name, value)


def allows_prompt(state: int) -> bool:
    """True only for unknown and ask again."""
    number = _c_int(state)
    return number is not None and _bindings.perm_allows_prompt(number) == 1


def reason_name(reason: int) -> Optional[str]:
    """"no-purchase": the name the ledger's JSON answers give; None for a number that is no reason."""
    return _name(_bindings.ledger_reason_name, reason)


def reason_entitles(reason: int) -> bool:
    number = _c_int(reason)
    return number is not None and _bindings.ledger_reason_entitles(number) == 1


def _number(member: object) -> int:
    return int(cast(SupportsInt, member))


class CategoryRules:
    def __str__(self) -> str:
        """The name C and the tool print: "camera", "location-always"."""
        return category_name(_number(self)) or str(_number(self))


class StateRules:
    @property
    def allows_prompt(self) -> bool:
        """The library's rule (perm_allows_prompt), not a copy of it."""
        return allows_prompt(_number(self))

    def __str__(self) -> str:
        """The name C and the tool print: "unknown", "authorized", "do-not-ask"."""
        return state_name(_number(self)) or str(_number(self))


class ReasonRules:
    @property
    def entitles(self) -> bool:
        """The library's rule (ledger_reason_entitles): a subscription, grace, non-consumable or
        non-renewing period covers the instant."""
        return reason_entitles(_number(self))

    @property
    def wire_name(self) -> str:
        """The name the JSON answers give it ("no-purchase")."""
        return reason_name(_number(self)) or str(_number(self))
