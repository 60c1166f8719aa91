"""The store handle: open, close, context manager; feature methods come from mixins."""
from __future__ import annotations

import ctypes
import os
from typing import Optional, Union

from . import _native
from .errors import check
from .eula import EulaMixin
from .permissions import PermissionsMixin

_open = _native.declare("gatekit_store_open_flags", ctypes.c_int,
                        ctypes.POINTER(_native.StorePointer), ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint)
_native.declare("gatekit_store_open", ctypes.c_int,
                ctypes.POINTER(_native.StorePointer), ctypes.c_char_p, ctypes.c_char_p)

#: gatekit_store_open_flags(): a store shared by a group of users (files 0660, folders 0770).
GROUP_SHARED = 0x1
_close = _native.declare("gatekit_store_close", None, _native.StorePointer)
_path = _native.declare("gatekit_store_path", ctypes.c_char_p, _native.StorePointer)
_check = _native.declare("gatekit_store_check", ctypes.c_int, _native.StorePointer)

PathLike = Union[str, bytes, "os.PathLike[str]"]


class Store(EulaMixin, PermissionsMixin):
    """An open GateKit store. Safe to share between threads; ``close()`` is idempotent and
    must not race with calls on other threads."""

    def __init__(self, path: Optional[PathLike] = None, app_id: Optional[str] = None, *,
                 group_shared: bool = False) -> None:
        """Opens (creating if needed) the store at ``path`` (default: ``$GATEKIT_STORE``, else the
        per-app file under the XDG state folder). Only the calling user can read it: a store
        another user owns or can write, or a symbolic link, raises :class:`UnsafeStoreError`.
        ``group_shared=True`` opts into a store shared by a group (see the C header)."""
        self._handle: Optional[_native.StorePointer] = None
        self._perm_init()
        handle = _native.StorePointer()
        encoded = None if path is None else _native.to_c_string(os.fsdecode(path), "path")
        check(_open(ctypes.byref(handle), encoded, _native.to_c_string(app_id, "app_id"),
                    GROUP_SHARED if group_shared else 0))
        self._handle = handle

    @property
    def handle(self) -> "_native.StorePointer":
        if self._handle is None:
            raise ValueError("the store is closed")
        return self._handle

    @property
    def path(self) -> str:
        return _path(self.handle).decode("utf-8")

    def check(self) -> None:
        """Full integrity check; raises CorruptStoreError when the file is damaged."""
        check(_check(self.handle))

    def close(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            self._before_close(handle)
            _close(handle)
            self._perm_forget()

    def _before_close(self, handle: "_native.StorePointer") -> None:
        """Hook for mixins that hold per-handle resources (callbacks, watchers)."""
        self._perm_close(handle)

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # At interpreter shutdown module globals may be gone: never raise from here.
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else repr(self.path)
        return f"<gatekit.Store {state}>"
