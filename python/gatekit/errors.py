"""GateKit's error codes as exceptions that carry the code and the library's detail."""
from __future__ import annotations

import importlib
import os
from typing import Dict, Type

from . import _bindings, _native

__all__ = ["CommitUncertainError", "ConnectionLostError", "CorruptStoreError", "EBUSY",
    "ECONNECTION", "ECORRUPT", "EFORKED", "EINTERNAL", "ForkedStoreError", "EINVAL", "EIO", "ENEWER", "ENOMEM", "ENOTFOUND",
    "ENOTSTORE", "EREADONLY", "ETOOLARGE", "EUNCERTAIN", "EUNSAFE", "EVERSION", "GateKitError", "InvalidArgumentError", "IsAFolderError", "NewerStoreError", "NotAStoreError", "NotFoundError",
    "OK", "StoreError", "UnsafeStoreError", "check", "error_for", "file_path", "register", "strerror"]

OK = _bindings.GATEKIT_OK
EINVAL = _bindings.GATEKIT_EINVAL
ENOTFOUND = _bindings.GATEKIT_ENOTFOUND
EIO = _bindings.GATEKIT_EIO
EBUSY = _bindings.GATEKIT_EBUSY
ECORRUPT = _bindings.GATEKIT_ECORRUPT
ENEWER = _bindings.GATEKIT_ENEWER
ENOMEM = _bindings.GATEKIT_ENOMEM
EINTERNAL = _bindings.GATEKIT_EINTERNAL
ENOTSTORE = _bindings.GATEKIT_ENOTSTORE
EREADONLY = _bindings.GATEKIT_EREADONLY
EVERSION = _bindings.GATEKIT_EVERSION
ETOOLARGE = _bindings.GATEKIT_ETOOLARGE
EUNSAFE = _bindings.GATEKIT_EUNSAFE
ECONNECTION = _bindings.GATEKIT_ECONNECTION
EUNCERTAIN = _bindings.GATEKIT_EUNCERTAIN
EFORKED = _bindings.GATEKIT_EFORKED


class GateKitError(Exception):
    """A failed call: ``code`` is the negative GATEKIT_E* value, ``detail`` is
    gatekit_last_error() at the time of the failure, ``summary`` is gatekit_strerror()."""

    def __init__(self, code: int, detail: str) -> None:
        self.code = code
        self.detail = detail
        raw = _bindings.gatekit_strerror(code)
        self.summary = raw.decode("utf-8") if raw else "unknown error"
        super().__init__(f"{detail or self.summary} [{self.summary}, code {code}]")


class InvalidArgumentError(GateKitError, ValueError):
    pass


class NotFoundError(GateKitError, FileNotFoundError, LookupError):
    """A file or record does not exist: ``except FileNotFoundError`` (and ``OSError``) catch it
    as they would the built-in's, ``except LookupError`` as before."""


class StoreError(GateKitError, OSError):
    """The store could not be opened, read or written (I/O, busy, corrupt, foreign, newer)."""


class IsAFolderError(StoreError, IsADirectoryError):
    """A folder was given where a file is needed (a EULA, a receipt, the store):
    ``except IsADirectoryError`` catches it as it would the built-in's."""


def file_path(path: "str | bytes | os.PathLike[str]", name: str) -> bytes:
    """A file argument for the library: a folder is refused here with IsAFolderError."""
    text = os.fsdecode(path)
    if os.path.isdir(text):
        raise IsAFolderError(EIO, f"{name} {text!r} is a folder, not a file")
    encoded = _native.to_c_string(text, name)
    assert encoded is not None
    return encoded


class CorruptStoreError(StoreError):
    pass


class NewerStoreError(StoreError):
    pass


class NotAStoreError(StoreError):
    pass


class UnsafeStoreError(StoreError, PermissionError):
    """The store, a companion file or its folder is a symbolic link, or another user owns or
    can write it: GateKit refused it and left it untouched (``detail`` names file, owner, mode)."""


class ConnectionLostError(StoreError, ConnectionError):
    """PostgreSQL store: the server cannot be reached, refused the login, or the connection
    broke before anything was committed. The next call reconnects."""


class CommitUncertainError(StoreError, ConnectionError):
    """PostgreSQL store: the connection broke during COMMIT, so the write may or may not be
    recorded. Retrying it is safe: every GateKit write is idempotent or append-only."""


class ForkedStoreError(StoreError):
    """The Store was opened before this process forked (a prefork server's master, a
    multiprocessing fork): its connection belongs to the parent. Open the store in the child
    (docs/hosting.md)."""


_CLASSES: Dict[int, Type[GateKitError]] = {
    EINVAL: InvalidArgumentError,
    EVERSION: InvalidArgumentError,
    ETOOLARGE: InvalidArgumentError,
    ENOTFOUND: NotFoundError,
    EIO: StoreError,
    EBUSY: StoreError,
    EREADONLY: StoreError,
    ECORRUPT: CorruptStoreError,
    ENEWER: NewerStoreError,
    ENOTSTORE: NotAStoreError,
    EUNSAFE: UnsafeStoreError,
    ECONNECTION: ConnectionLostError,
    EUNCERTAIN: CommitUncertainError,
    EFORKED: ForkedStoreError,
}


def register(code: int, cls: Type[GateKitError]) -> None:
    """Lets each binding module map its own codes to its exception classes."""
    _CLASSES[code] = cls


#: Which module registers each family of codes (the package imports its modules lazily, so a
#: code can come back before the module that names its exception was imported).
_FAMILIES = ((-199, -100, "receipt"), (-299, -200, "permissions"), (-399, -300, "jws"),
             (-401, -400, "appstore"), (-499, -402, "api_client"), (-599, -500, "eula"), (-799, -700, "play"),
             (-899, -800, "stripe"), (-999, -900, "webhooks"))


def _class_for(code: int) -> Type[GateKitError]:
    known = _CLASSES.get(code)
    if known is not None:
        return known
    for low, high, module in _FAMILIES:
        if low <= code <= high:
            importlib.import_module(f"{__package__}.{module}")
            return _CLASSES.get(code, GateKitError)
    return GateKitError


def error_for(code: int, detail: "str | None" = None) -> GateKitError:
    """The exception for a code, with the calling thread's last error (or the given detail)."""
    if detail is None:
        detail = (_bindings.gatekit_last_error() or b"").decode("utf-8", "replace")
    return _class_for(code)(code, detail)


def check(code: int) -> int:
    """Returns a non-negative result, raises the matching exception for a negative one."""
    if code < 0:
        raise error_for(code)
    return code


def strerror(code: int) -> str:
    raw = _bindings.gatekit_strerror(code)
    return raw.decode("utf-8") if raw else ""
