"""Loads libgatekit, and converts strings at the boundary. The prototypes, structs and constants
are generated from the header into _bindings.py."""
from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

__all__ = ["lib", "library_path", "required_c_string", "take_string", "to_c_string"]

_PACKAGE_DIR = Path(__file__).resolve().parent
_REPO_ROOT = _PACKAGE_DIR.parent.parent


def _candidates() -> Iterator[Tuple[str, str]]:
    explicit = os.environ.get("GATEKIT_LIBRARY")
    if explicit:
        # An explicit choice is authoritative: never fall back to a different library.
        yield "$GATEKIT_LIBRARY", explicit
        return
    for name in ("libgatekit.so.0", "libgatekit.so"):
        yield "next to the package", str(_PACKAGE_DIR / name)
    if (_REPO_ROOT / "Package.swift").is_file():  # only when imported from a GateKit checkout
        for build in (".build/debug", ".build/release", ".build-static/release"):
            yield "build tree", str(_REPO_ROOT / build / "libgatekit.so")
    yield "system", "libgatekit.so.0"
    import ctypes.util  # the last resort only: it imports subprocess, slow at start-up
    found = ctypes.util.find_library("gatekit")
    if found:
        yield "system", found


def _load() -> Tuple[ctypes.CDLL, str]:
    tried: List[str] = []
    for where, path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(f"{where}: {path} (no such file)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as error:
            tried.append(f"{where}: {path} ({error})")
    raise ImportError("cannot load libgatekit, the C library this package binds. Install it with the package: "
                      "`pip install libgatekit` (or a wheel from `make wheel`), or system-wide: `apt-get install "
                      "libgatekit0` (or `make install`); or name the file in $GATEKIT_LIBRARY. Tried:\n  " + "\n  ".join(tried))


lib, library_path = _load()

def take_string(pointer: ctypes.c_void_p) -> str:
    """Copies a library-owned C string, then frees it with gatekit_free."""
    if not pointer.value:
        return ""
    try:
        return ctypes.string_at(pointer.value).decode("utf-8")
    finally:
        _bindings.gatekit_free(pointer)


def to_c_string(value: "str | bytes | None", name: str) -> "bytes | None":
    """str as UTF-8 (no NUL inside), bytes as given, None as NULL."""
    if value is None:
        return None
    if isinstance(value, str):
        value = value.encode("utf-8")
    if not isinstance(value, (bytes, bytearray)):
        raise TypeError(f"{name} must be str or bytes, not {type(value).__name__}")
    if b"\0" in value:
        raise ValueError(f"{name} must not contain NUL bytes")
    return bytes(value)


def required_c_string(value: "str | bytes | None", name: str) -> bytes:
    """As to_c_string for an argument that must be given: None names the parameter."""
    encoded = to_c_string(value, name)
    if encoded is None:
        raise TypeError(f"{name} is required: a str, not None")
    return encoded


# Last: _bindings reads `lib` from this module.
from . import _bindings  # noqa: E402
