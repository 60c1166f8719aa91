"""EULA gating: a document's version is the SHA-256 of its bytes."""
from __future__ import annotations

import ctypes
import json
import enum
import os
from dataclasses import dataclass, field
from datetime import datetime
from datetime import timedelta
from typing import IO, Any, Dict, List, Mapping, Optional, Union

from . import _bindings, _native, _time, eula_versions
from .eula_versions import Presentation, TextSource
from ._result import JSONResult
from .errors import GateKitError, check, file_path, register
from ._managed import StoreOwner

__all__ = ["Consent", "EEULA_HASH_MISMATCH", "Eula", "EulaAnswer", "EulaDecision", "EulaHashMismatchError", "EulaMethod",
           "HASH_HEX_SIZE", "User", "hash_bytes", "hash_file"]

HASH_HEX_SIZE = _bindings.GATEKIT_HASH_HEX_SIZE
#: A headless acceptance named another text of the document (EulaHashMismatchError).
EEULA_HASH_MISMATCH = _bindings.GATEKIT_EEULA_HASH_MISMATCH

_hash_file = _bindings.eula_hash_file
_hash_bytes = _bindings.eula_hash_bytes
_hash_hex_size = _bindings.gatekit_hash_hex_size
_S = ctypes.POINTER(_bindings.gatekit_store)
_should_present = _bindings.eula_should_present
_should_present_hash = _bindings.eula_should_present_hash
_history = _bindings.eula_history
_history_all = _bindings.eula_history_all
_mark_minor = _bindings.eula_mark_minor_revision
_consent_init = _bindings.eula_consent_init
_accept_with = _bindings.eula_accept_with
_decline_with = _bindings.eula_decline_with
_withdraw = _bindings.eula_withdraw
_accept_named = _bindings.eula_accept_named
_accept_from_env = _bindings.eula_accept_from_env

#: A user: a str (bytes are accepted for names that are not UTF-8); None: the app's default user.
User = Union[str, bytes, None]


class EulaAnswer(str, enum.Enum):
    """What the user decided about a document's exact text."""
    ACCEPTED = "accepted"
    DECLINED = "declined"
    #: Consent given before was taken back (Eula.withdraw): every text is presented again.
    WITHDRAWN = "withdrawn"


class EulaMethod(str, enum.Enum):
    """How a decision was given (GATEKIT_EULA_METHOD_*)."""
    CLICK_THROUGH = "click-through"
    CLI_FLAG = "cli-flag"
    ENVIRONMENT = "environment"
    API = "api"
    ADMIN = "admin"

    @property
    def code(self) -> int:
        return _METHOD_CODES[self]


_METHOD_CODES = {EulaMethod.CLICK_THROUGH: _bindings.GATEKIT_EULA_METHOD_CLICK_THROUGH,
                 EulaMethod.CLI_FLAG: _bindings.GATEKIT_EULA_METHOD_CLI_FLAG,
                 EulaMethod.ENVIRONMENT: _bindings.GATEKIT_EULA_METHOD_ENVIRONMENT,
                 EulaMethod.API: _bindings.GATEKIT_EULA_METHOD_API,
                 EulaMethod.ADMIN: _bindings.GATEKIT_EULA_METHOD_ADMIN}


class EulaHashMismatchError(GateKitError, ValueError):
    """A headless acceptance names the document with another text's hash (the text changed
    since the operator read it): nothing was accepted."""


register(EEULA_HASH_MISMATCH, EulaHashMismatchError)


@dataclass(frozen=True)
class Consent:
    """How a decision was given, stored with it in the append-only history and never
    interpreted (GDPR Art. 7(1)). Every part is optional; the library checks shape and size:
    an IPv4/IPv6 literal (kept canonical), a user agent of 1-1024 bytes, a BCP 47 locale, at
    most 32 metadata pairs (keys 1-64 bytes, unique; values up to 1024 bytes)."""
    method: Optional[EulaMethod] = None
    client_address: Optional[str] = None
    user_agent: Optional[str] = None
    locale: Optional[str] = None
    metadata: Mapping[str, str] = field(default_factory=dict)


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
    #: How it was given (what the host said; Consent() when nothing was).
    consent: Consent = field(default_factory=Consent)
    #: The language of the text, when it is a published translation (Eula.publish).
    language: Optional[str] = None

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
        c = self.consent
        if c.method is not None:
            members["method"] = EulaMethod(c.method).value
        for key, value in (("client_address", c.client_address), ("user_agent", c.user_agent), ("locale", c.locale)):
            if value is not None:
                members[key] = value
        if c.metadata:
            members["metadata"] = dict(c.metadata)
        if self.language is not None:
            members["language"] = self.language
        return members

    @classmethod
    def from_dict(cls, entry: Mapping[str, Any]) -> "EulaDecision":
        user: Optional[str] = None
        if "user_hex" in entry:
            user = bytes.fromhex(entry["user_hex"]).decode("utf-8", "surrogateescape")
        elif entry.get("user") is not None:
            user = str(entry["user"])
        consent = Consent(EulaMethod(entry["method"]) if "method" in entry else None, entry.get("client_address"),
                          entry.get("user_agent"), entry.get("locale"), dict(entry.get("metadata", {})))
        return cls(entry["document_id"], entry["hash"], user, EulaAnswer(entry["decision"]), _parse_rfc3339(entry["at"]), consent,
                   entry.get("language"))


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


def _consent_struct(consent: Consent) -> "tuple[_bindings.gatekit_eula_consent, List[Any]]":
    """The C struct, and the buffers it points into (kept alive by the caller)."""
    c = _bindings.gatekit_eula_consent()
    check(_consent_init(ctypes.byref(c), _bindings.GATEKIT_EULA_CONSENT_VERSION))
    c.method = EulaMethod(consent.method).code if consent.method is not None else 0
    c.client_address = _text(consent.client_address, "client_address")
    c.user_agent = _text(consent.user_agent, "user_agent")
    c.locale = _text(consent.locale, "locale")
    pairs = list(consent.metadata.items())
    keys = (ctypes.c_char_p * max(len(pairs), 1))(*[_text(k, "metadata key") for k, _ in pairs])
    values = (ctypes.c_char_p * max(len(pairs), 1))(*[_text(v, "metadata value") for _, v in pairs])
    c.metadata_keys = ctypes.cast(keys, type(c.metadata_keys))
    c.metadata_values = ctypes.cast(values, type(c.metadata_values))
    c.metadata_count = len(pairs)
    return c, [keys, values]


def _consent_argument(consent: Optional[Consent]) -> "tuple[Any, List[Any]]":
    """The C argument for a consent (None: NULL, nothing said), and what must outlive the call."""
    if consent is None:
        return None, []
    native, keep = _consent_struct(consent)
    return ctypes.byref(native), [native, *keep]


def _history_list(raw: str) -> List[EulaDecision]:
    return [EulaDecision.from_json(entry) for entry in json.loads(raw)["decisions"]]


class Eula:
    """EULA gating on one store: ``store.eula``. A document's version is the SHA-256 of its
    bytes; a user is a str or bytes (need not be UTF-8), None for the app's default user."""

    def __init__(self, store: StoreOwner) -> None:
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

    def accept(self, document_id: str, hash: str, user: User = None, consent: Optional[Consent] = None) -> None:
        """Records acceptance of exactly the text whose hash is given (the text shown), with
        how it was given."""
        self._record(_accept_with, document_id, hash, user, consent)

    def decline(self, document_id: str, hash: str, user: User = None, consent: Optional[Consent] = None) -> None:
        """Records a decline: the document is presented again."""
        self._record(_decline_with, document_id, hash, user, consent)

    def _record(self, function: Any, document_id: str, hash: str, user: User, consent: Optional[Consent]) -> None:
        how, _keep = _consent_argument(consent)
        check(function(self._store.handle, _text(document_id, "document_id"), _text(hash, "hash"), _user(user), how))

    def withdraw(self, document_id: str, user: User = None, consent: Optional[Consent] = None) -> None:
        """Withdraws the user's consent: every text of the document is presented again until
        accepted anew. NotFoundError when no acceptance is in force."""
        how, _keep = _consent_argument(consent)
        check(_withdraw(self._store.handle, _text(document_id, "document_id"), _user(user), how))

    def accept_named(self, document_id: str, hash: str, names: str, user: User = None,
                     consent: Optional[Consent] = None) -> bool:
        """Headless acceptance bound to one text: True when ``names`` ("terms@3fa1b2c4,...")
        names the document with a prefix of ``hash`` (recorded), False when it does not name
        the document. EulaHashMismatchError when it names another text."""
        how, _keep = _consent_argument(consent)
        return check(_accept_named(self._store.handle, _text(document_id, "document_id"), _text(hash, "hash"),
                                   _user(user), _text(names, "names"), how)) == 1

    def accept_from_env(self, document_id: str, hash: str, variable: str = "GATEKIT_ACCEPT", user: User = None,
                        consent: Optional[Consent] = None) -> bool:
        """accept_named() with the value of the environment variable ``variable`` (unset or
        empty: False), recorded with method ENVIRONMENT and the variable's name."""
        how, _keep = _consent_argument(consent)
        return check(_accept_from_env(self._store.handle, _text(document_id, "document_id"), _text(hash, "hash"),
                                      _user(user), _text(variable, "variable"), how)) == 1

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

    def publish(self, document_id: str, label: str, texts: Mapping[str, TextSource], default_language: str,
                effective: Optional[datetime] = None, grace: Optional[timedelta] = None) -> None:
        """Publishes a version: its texts by language (bytes, or a file's path), the language
        shown when a user's has none, the instant it takes effect (None: now) and the grace
        period during which the previous version's acceptance still counts.
        EulaVersionConflictError when the label or a text is already published differently."""
        eula_versions.publish(self._store.handle, _text(document_id, "document_id"), label, texts, default_language,
                              effective, grace)

    def should_present_at(self, document_id: str, user: User = None, language: Optional[str] = None,
                          at: Optional[datetime] = None) -> Presentation:
        """The published version in effect at ``at`` (None: now), the text to show ``user``
        in ``language`` (fallback "de-AT" -> "de" -> the default), and whether its acceptance
        is there, may wait (in grace) or is required. NotFoundError when none is in effect."""
        return eula_versions.should_present_at(self._store.handle, _text(document_id, "document_id"), _user(user), language, at)

    def text(self, document_id: str, hash: str) -> bytes:
        """The bytes of a published text, by its hash."""
        return eula_versions.text(self._store.handle, _text(document_id, "document_id"), hash)

    def export(self, out: IO[bytes], document_id: Optional[str] = None, user: User = None, everyone: bool = False,
               csv: bool = False, texts: bool = False) -> int:
        """Writes the consent record of ``user`` (or of everyone) to the binary file ``out``
        as JSON lines (or CSV), with each published text when ``texts``; returns the number
        of decisions. Streams: any number of rows in bounded memory. The store records the
        export (its digest) for verify_export; a read-only store cannot export."""
        return eula_versions.export(self._store.handle, out, _text(document_id, "document_id"), _user(user), everyone, csv, texts)

    def verify_export(self, path: Union[str, "os.PathLike[str]"]) -> int:
        """Checks an export against the store: its number of decisions when it matches;
        EulaExportAlteredError naming the first record that differs otherwise."""
        return eula_versions.verify_export(self._store.handle, path)
