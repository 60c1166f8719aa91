"""What every App Store Server API model shares, with the semantics of Apple's own models:

- an enumeration member ``x`` has its raw twin ``rawX``, kept in step both ways — when a model is
  built by hand, parsed, or assigned to — so a hand-built model equals a parsed one, and a
  value newer than this package is kept in ``rawX`` while ``x`` is None;
- UUID members are ``uuid.UUID`` and nested data are models, not dicts;
- parsing is strict about JSON types (``appAppleId: "hi"`` raises ValueError) and ignores
  members it does not know, so a newer answer still parses;
- required members and Apple's limits (lengths, ranges) are checked when a model is made.

Subclasses are dataclasses; every member has a default (so this works on Python 3.9), and
``_required`` names those a caller must give. Members fixed by a model (``init=False``, as
Advanced Commerce's ``operation`` and ``version``) are written but never read from JSON.
"""
from __future__ import annotations

import dataclasses
import enum
import math
import typing
import uuid
from typing import Any, Callable, ClassVar, Dict, Tuple, Type, TypeVar, Union

from .apple_enums import member, raw_name

__all__ = ["Model", "ModelError", "each_max_length", "in_range", "max_length", "not_empty"]

M = TypeVar("M", bound="Model")


class ModelError(ValueError):
    """JSON that does not have a model's shape (a member of the wrong type, a bad UUID)."""


class Model:
    #: Enumeration members: name -> enum class (its raw twin is ``raw<Name>``).
    _enums: ClassVar[Dict[str, Any]] = {}
    #: Dict members keyed by an enumeration: name -> enum class (raw twin keyed by raw values).
    _enum_keys: ClassVar[Dict[str, Any]] = {}
    #: Members a caller must give (Apple's required arguments).
    _required: ClassVar[Tuple[str, ...]] = ()
    #: Raw twins that must end up set (given, or derived from their enumeration member).
    _required_raw: ClassVar[Tuple[str, ...]] = ()
    #: Checks of Apple's limits: name -> a function raising ValueError (None is not checked).
    _checks: ClassVar[Dict[str, Callable[[Any], None]]] = {}

    def __post_init__(self) -> None:
        for name in self._required:
            if getattr(self, name) is None:
                raise TypeError(f"{type(self).__name__}: {name} is required")
        for name, enum_cls in self._enums.items():
            raw, value = getattr(self, raw_name(name)), getattr(self, name)
            if raw is not None:
                object.__setattr__(self, name, member(enum_cls, raw))
            elif value is not None:
                object.__setattr__(self, raw_name(name), _raw(value))
        for name, enum_cls in self._enum_keys.items():
            raw, value = getattr(self, raw_name(name)), getattr(self, name)
            if raw is not None:
                object.__setattr__(self, name, _keyed(enum_cls, raw))
            elif value is not None:
                object.__setattr__(self, raw_name(name), {_raw(k): v for k, v in value.items()})
        for name in self._required_raw:
            if getattr(self, name) is None:
                raise ValueError(f"{type(self).__name__}: {name} (or its enumeration member) is required")
        for name, kind in _kinds(type(self)).items():
            value = getattr(self, name)
            if kind is uuid.UUID and isinstance(value, str):
                object.__setattr__(self, name, _uuid(value, type(self), name))
        for name, check in self._checks.items():
            value = getattr(self, name)
            if value is not None:
                check(value)
        object.__setattr__(self, "_ready", True)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if not self.__dict__.get("_ready"):
            return
        cls = type(self)
        if name in cls._enums:
            object.__setattr__(self, raw_name(name), None if value is None else _raw(value))
        elif name in cls._enum_keys:
            object.__setattr__(self, raw_name(name), None if value is None else {_raw(k): v for k, v in value.items()})
        else:
            twin = _twins(cls).get(name)
            if twin is not None:
                enum_cls = cls._enums.get(twin) or cls._enum_keys[twin]
                twin_value = None if value is None else (
                    _keyed(enum_cls, value) if twin in cls._enum_keys else member(enum_cls, value))
                object.__setattr__(self, twin, twin_value)
        if name in cls._checks and value is not None:
            cls._checks[name](value)

    @classmethod
    def from_json(cls: Type[M], raw: Any) -> M:
        """The model from Apple's JSON object (a dict), strict about each member's JSON type."""
        if not isinstance(raw, dict):
            raise ModelError(f"{cls.__name__}: expected a JSON object, not {type(raw).__name__}")
        kinds = _kinds(cls)
        values: Dict[str, Any] = {}
        for name, value in raw.items():
            if name in cls._enums or name in cls._enum_keys:
                values[raw_name(name)] = _parse(kinds.get(raw_name(name), Any), value, cls, name)
            elif name in kinds:
                values[name] = _parse(kinds[name], value, cls, name)
        try:
            return cls(**values)
        except TypeError as error:
            raise ModelError(str(error)) from None

    def to_json(self) -> Dict[str, Any]:
        """Apple's JSON for the model: members that are set, enumerations by their raw value."""
        out: Dict[str, Any] = {}
        twins = _twins(type(self))
        for field in dataclasses.fields(self):  # type: ignore[arg-type]
            name = field.name
            if name in twins or not field.compare:  # GateKit's own members (``decoded``) are not Apple's JSON
                continue
            value = getattr(self, raw_name(name)) if name in self._enums or name in self._enum_keys else getattr(self, name)
            if value is not None:
                out[name] = _json(value)
        return out


def _json(value: Any) -> Any:
    if isinstance(value, Model):
        return value.to_json()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_json(v) for v in value]
    if isinstance(value, dict):
        return {(_json(k) if isinstance(k, enum.Enum) else k): _json(v) for k, v in value.items() if v is not None}
    return value


def _raw(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


def _keyed(enum_cls: Any, raw: Dict[Any, Any]) -> Dict[Any, Any]:
    """A raw-keyed dict with enumeration keys; keys newer than the enumeration are left out."""
    out = {}
    for key, value in raw.items():
        known = member(enum_cls, key)
        if known is not None:
            out[known] = value
    return out


def _uuid(text: str, cls: type, name: str) -> uuid.UUID:
    try:
        return uuid.UUID(text)
    except ValueError:
        raise ModelError(f"{cls.__name__}.{name}: {text!r} is not a UUID") from None


_KINDS: Dict[type, Dict[str, Any]] = {}
_TWINS: Dict[type, Dict[str, str]] = {}


def _kinds(cls: type) -> Dict[str, Any]:
    """Each member's type, Optional unwrapped (cached per class)."""
    kinds = _KINDS.get(cls)
    if kinds is None:
        hints = typing.get_type_hints(cls)  # each class's annotations in its own module
        kinds = {f.name: _unwrap(hints.get(f.name, Any)) for f in dataclasses.fields(cls) if f.init}
        _KINDS[cls] = kinds
    return kinds


def _twins(cls: Any) -> Dict[str, str]:
    """raw twin name -> its enumeration member's name."""
    twins = _TWINS.get(cls)
    if twins is None:
        twins = {raw_name(name): name for name in list(cls._enums) + list(cls._enum_keys)}
        _TWINS[cls] = twins
    return twins


def _unwrap(kind: Any) -> Any:
    if typing.get_origin(kind) is Union:
        args = [a for a in typing.get_args(kind) if a is not type(None)]
        return args[0] if len(args) == 1 else Any
    return kind


def _parse(kind: Any, value: Any, cls: type, name: str) -> Any:
    """A JSON value as the member's type; the wrong JSON type raises ModelError."""
    if value is None or kind is Any:
        return value
    origin = typing.get_origin(kind)
    if origin in (list, typing.List):
        if not isinstance(value, list):
            raise ModelError(f"{cls.__name__}.{name}: expected a list, not {type(value).__name__}")
        (item,) = typing.get_args(kind) or (Any,)
        return [_parse(item, v, cls, name) for v in value]
    if origin in (dict, typing.Dict):
        if not isinstance(value, dict):
            raise ModelError(f"{cls.__name__}.{name}: expected an object, not {type(value).__name__}")
        args = typing.get_args(kind)
        item = args[1] if len(args) == 2 else Any
        return {k: _parse(item, v, cls, name) for k, v in value.items()}
    if isinstance(kind, type):
        if issubclass(kind, Model):
            return kind.from_json(value)
        if kind is uuid.UUID:
            if not isinstance(value, str):
                raise ModelError(f"{cls.__name__}.{name}: expected a UUID string, not {type(value).__name__}")
            return _uuid(value, cls, name)
        if issubclass(kind, enum.Enum):
            return member(kind, value) if value in kind else value
        if kind is bool:
            ok = isinstance(value, bool)
        elif kind is int:
            if isinstance(value, float) and math.isfinite(value):
                return int(value)  # Xcode writes fractional milliseconds; Apple's converter truncates them
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif kind is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        else:
            ok = isinstance(value, kind)
        if not ok:
            raise ModelError(f"{cls.__name__}.{name}: expected {kind.__name__}, not {type(value).__name__} {value!r}")
    return value


# ---- Apple's limits -----------------------------------------------------------------------

def max_length(limit: int, what: str) -> Callable[[Any], None]:
    def check(value: Any) -> None:
        if len(value) > limit:
            raise ValueError(f"{what} length cannot exceed {limit}, not {len(value)}")
    return check


def in_range(low: int, high: int, what: str) -> Callable[[Any], None]:
    def check(value: Any) -> None:
        if not low <= value <= high:
            raise ValueError(f"{what} must be between {low} and {high}, not {value}")
    return check


def not_empty(what: str) -> Callable[[Any], None]:
    def check(value: Any) -> None:
        if not value or any(v is None for v in value):
            raise ValueError(f"{what} must be a non-empty list without None")
    return check


def each_max_length(limit: int, what: str) -> Callable[[Any], None]:
    def check(value: Any) -> None:
        for item in value:
            if len(item) > limit:
                raise ValueError(f"each of {what} is at most {limit} characters, not {len(item)}")
    return check
