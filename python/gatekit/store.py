"""The store: one handle with its features as parts, ``store.eula``, ``store.permissions`` and ``store.ledger``."""
from __future__ import annotations

import ctypes
import os
from typing import Any, Optional, Union

from . import _bindings, _native
from ._managed import Managed
from .errors import check, file_path
from .eula import Eula
from .ledger import Ledger
from .permissions import Permissions

__all__ = ["GROUP_SHARED", "PathLike", "Store"]

_open = _bindings.gatekit_store_open_listening
_bindings.gatekit_store_open
_close = _bindings.gatekit_store_close
_path = _bindings.gatekit_store_path
_check = _bindings.gatekit_store_check

#: gatekit_store_open_flags(): a store shared by a group of users (files 0660, folders 0770).
GROUP_SHARED = _bindings.GATEKIT_STORE_GROUP_SHARED

PathLike = Union[str, bytes, "os.PathLike[str]"]


class Store(Managed):
    """An open GateKit store. Safe to share between threads; ``close()`` is idempotent and
    must not race with calls on other threads.

    ``store.eula`` gates EULAs (:class:`gatekit.eula.Eula`), ``store.permissions`` holds the
    permission state (:class:`gatekit.permissions.Permissions`), ``store.ledger`` answers
    entitlement questions from verified App Store data (:class:`gatekit.ledger.Ledger`)."""

    def __init__(self, path: Optional[PathLike] = None, app_id: Optional[str] = None, *,
                 group_shared: bool = False, listen_uri: Optional[str] = None) -> None:
        """Opens (creating if needed) the store at ``path`` (default: ``$GATEKIT_STORE``, else the
        per-app file under the XDG state folder). Only the calling user can read it: a store
        another user owns or can write, or a symbolic link, raises :class:`UnsafeStoreError`.
        ``group_shared=True`` opts into a store shared by a group (see the C header).

        ``path`` may instead be a PostgreSQL connection string (``postgresql://…``,
        ``postgres://…`` or libpq's ``host=… dbname=…``): the same store on a server, in the
        schema ``gatekit/<app_id>``. Network failures raise :class:`ConnectionLostError`
        (nothing written; the next call reconnects) or :class:`CommitUncertainError` (the
        connection broke during COMMIT; retrying is safe). Behind a connection pooler
        (PgBouncer in transaction mode), ``listen_uri`` names a direct connection to the same
        server and database on which other clients' commits are heard (see
        ``gatekit_store_open_listening`` in the C header)."""
        self.eula = Eula(self)
        self.permissions = Permissions(self)
        self.ledger = Ledger(self)
        handle = ctypes.POINTER(_bindings.gatekit_store)()
        encoded = None if path is None else file_path(path, "path")  # a folder is refused; a URI passes
        check(_open(ctypes.byref(handle), encoded, _native.to_c_string(app_id, "app_id"),
                    GROUP_SHARED if group_shared else 0, _native.to_c_string(listen_uri, "listen_uri")))
        self._handle = handle

    def use_portal(self, app_id: Optional[str] = None) -> None:
        """The Linux desktop's permission store as the system state (see
        :meth:`gatekit.permissions.Permissions.use_portal`)."""
        self.permissions.use_portal(app_id)

    @property
    def path(self) -> str:
        raw: bytes = _path(self.handle)
        return raw.decode("utf-8")

    def check(self) -> None:
        """Full integrity check; raises CorruptStoreError when the file is damaged."""
        check(_check(self.handle))

    def _release(self, handle: Any) -> None:
        # The permissions' watcher is stopped before (when_closing): its callbacks need them.
        _close(handle)

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else repr(self.path)
        return f"<gatekit.Store {state}>"
