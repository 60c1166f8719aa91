"""EULA gating: a document's version is the SHA-256 of its bytes."""
from __future__ import annotations

import ctypes
import json
import enum
import os
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Dict, List, Mapping, Optional, Union

from . import _bindings, _native, _time
from ._result import JSONResult
from .errors import check, file_path

__all__ = ["Eula", "EulaAnswer", "EulaDecision", "HASH_HEX_SIZE", "User", "hash_bytes", "hash_file"]

HASH_HEX_SIZE = _bindings.GATEKIT_HASH_HEX_SIZE

_hash_file = _bindings.eula_hash_file
_hash_bytes = _bindings.eula_hash_bytes
_hash_hex_size = _bindings.gatekit_hash_hex_size
_S = ctypes.POINTER(_bindings.gatekit_store)
_should_present = _bindings.eula_should_present
_should_present_hash = _bindings.eula_should_present_hash
_accept = _bindings.eula_accept
_decline = _bindings.eula_decline
_history = _bindings.eula_history
_history_all = _bindings.eula_history_all
_mark_minor = _bindings.eula_mark_minor_revision

#: A user: a str (bytes are accepted for names that are not UTF-8); None: the app's default user.
User = Union[str, bytes, None]


class EulaAnswer(str, enum.Enum):
    """What the user decided about a document's exact text."""
    ACCEPTED = "accepted"
    DECLINED = "declined"


@dataclass(frozen=True)
class EulaDecision(JSONResult):
    """One entry of the append-only history."""
    document_id: str
    hash: str
    #: None: the app's default user. A str; a name that is not UTF-8 keeps its bytes as
    #: surrogate escapes (os.fsdecode's rule), so passing it back names the same user.
    user: Optional[str]
    decision: EulaAnswer
    at: datetime             # aware, UTC, millisecond precision

    @property
    def accepted(self) -> bool:
        return self.decision is EulaAnswer.ACCEPTED

    def to_dict(self) -> Dict[str, Any]:
        """eula_history()'s entry for this decision."""
        members: Dict[str, Any] = {"document_id": self.document_id, "hash": self.hash}
        raw = None if self.user is None else self.user.encode("utf-8", "surrogateescape")
        try:
            members["user"] = None if raw is None else raw.decode("utf-8")
        except UnicodeDecodeError:  # not UTF-8: shown with replacement characters, exact in hex
            members["user"] = raw.decode("utf-8", "replace") if raw is not None else None
            members["user_hex"] = raw.hex() if raw is not None else None
        members["decision"] = self.decision.value
        members["at"] = _time.rfc3339_ms(self.at)
        return members

    @classmethod
    def from_dict(cls, entry: Mapping[str, Any]) -> "EulaDecision":
        user: Optional[str] = None
        if "user_hex" in entry:
            user = bytes.fromhex(entry["user_hex"]).decode("utf-8", "surrogateescape")
        elif entry.get("user") is not None:
            user = str(entry["user"])
        return cls(entry["document_id"], entry["hash"], user, EulaAnswer(entry["decision"]), _parse_rfc3339(entry["at"]))


def _parse_rfc3339(text: str) -> datetime:
    """The history's "2026-11-25T08:30:00.123Z" as an aware datetime."""
    return datetime.strptime(text.replace("Z", "+0000"), "%Y-%m-%dT%H:%M:%S.%f%z")


def hash_file(path: Union[str, "os.PathLike[str]"]) -> str:
    """SHA-256 of a file as 64 lowercase hex digits."""
    out = ctypes.create_string_buffer(HASH_HEX_SIZE)
    check(_hash_file(out, file_path(path, "path")))
    return out.value.decode("ascii")


def hash_bytes(data: bytes) -> str:
    """SHA-256 of bytes as 64 lowercase hex digits."""
    out = ctypes.create_string_buffer(HASH_HEX_SIZE)
    buffer = bytes(data)
    check(_hash_bytes(out, buffer, len(buffer)))
    return out.value.decode("ascii")


def _user(user: User) -> Optional[bytes]:
    if isinstance(user, str):
        return _native.to_c_string(user.encode("utf-8", "surrogateescape"), "user")
    return _native.to_c_string(user, "user")


def _text(value: Optional[str], name: str) -> Optional[bytes]:
    return _native.to_c_string(value, name)


def _history_list(raw: str) -> List[EulaDecision]:
    return [EulaDecision.from_json(entry) for entry in json.loads(raw)["decisions"]]


class Eula:
    """EULA gating on one store: ``store.eula``. A document's version is the SHA-256 of its
    bytes; a user is a str or bytes (need not be UTF-8), None for the app's default user."""

    def __init__(self, store: "_native.StoreOwner") -> None:
        self._store = store

    def should_present(self, document_id: str, path: Union[str, "os.PathLike[str]"], user: User = None) -> bool:
        """True when the document at ``path`` must be shown to ``user``."""
        rc = _should_present(self._store.handle, _text(document_id, "document_id"),
                             file_path(path, "path"), _user(user))
        return check(rc) == 1

    def should_present_hash(self, document_id: str, hash: str, user: User = None) -> bool:
        """should_present() for a text whose hash the host computed (hash_bytes())."""
        return check(_should_present_hash(self._store.handle, _text(document_id, "document_id"),
                                          _text(hash, "hash"), _user(user))) == 1

    def accept(self, document_id: str, hash: str, user: User = None) -> None:
        """Records acceptance of exactly the text whose hash is given (the text shown)."""
        check(_accept(self._store.handle, _text(document_id, "document_id"), _text(hash, "hash"), _user(user)))

    def decline(self, document_id: str, hash: str, user: User = None) -> None:
        """Records a decline: the document is presented again."""
        check(_decline(self._store.handle, _text(document_id, "document_id"), _text(hash, "hash"), _user(user)))

    def mark_minor_revision(self, document_id: str, from_hash: str, to_hash: str) -> None:
        """An acceptance of ``from_hash`` then covers ``to_hash``."""
        check(_mark_minor(self._store.handle, _text(document_id, "document_id"),
                          _text(from_hash, "from_hash"), _text(to_hash, "to_hash")))

    def history(self, document_id: Optional[str] = None, user: User = None) -> List[EulaDecision]:
        """This user's decisions, oldest first (document_id None: every document)."""
        out = ctypes.c_void_p()
        check(_history(ctypes.byref(out), self._store.handle, _text(document_id, "document_id"), _user(user)))
        return _history_list(_native.take_string(out))

    def history_all(self, document_id: Optional[str] = None) -> List[EulaDecision]:
        """Every user's decisions, oldest first."""
        out = ctypes.c_void_p()
        check(_history_all(ctypes.byref(out), self._store.handle, _text(document_id, "document_id")))
        return _history_list(_native.take_string(out))
