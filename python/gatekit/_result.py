"""Result types as JSON: ``to_dict()`` gives the C library's JSON for the same answer (the same
member names and values), ``to_json()`` its text, and ``from_json()`` / ``from_dict()`` read
either back into an equal object."""
from __future__ import annotations

import json
from typing import Any, Dict, Mapping, Type, TypeVar, Union

T = TypeVar("T", bound="JSONResult")


class JSONResult:
    __slots__ = ()

    def to_dict(self) -> Dict[str, Any]:
        raise NotImplementedError

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls: Type[T], raw: Mapping[str, Any]) -> T:
        raise NotImplementedError

    @classmethod
    def from_json(cls: Type[T], raw: Union[str, bytes, Mapping[str, Any]]) -> T:
        """From JSON text, or from the dict ``json.loads`` made of it."""
        return cls.from_dict(json.loads(raw) if isinstance(raw, (str, bytes, bytearray)) else raw)
