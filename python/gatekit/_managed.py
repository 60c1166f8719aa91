"""One owned C handle per Python object: the base of Store, Receipt and every handle to come."""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Protocol, Tuple, TypeVar

__all__ = ["Managed", "StoreOwner"]

M = TypeVar("M", bound="Managed")


class Managed:
    """Owns one C handle: ``close()`` is idempotent, the object is a context manager, and
    ``__del__`` releases the handle without ever raising (at interpreter shutdown module
    globals may already be gone). Subclasses set ``_handle`` and implement ``_release``."""

    _handle: Optional[Any] = None
    _closing: Optional[List[Tuple[Callable[[Any], None], Callable[[], None]]]] = None

    def _release(self, handle: Any) -> None:
        raise NotImplementedError

    def when_closing(self, before: Callable[[Any], None], after: Callable[[], None]) -> None:
        """A part of this object (a store's permissions) is told around the release: ``before``
        with the handle still open (stop a watcher whose callbacks need the part), ``after``
        once it is gone (nothing in C can call the part's callbacks any more)."""
        if self._closing is None:
            self._closing = []
        self._closing.append((before, after))

    @property
    def open_handle(self) -> Optional[Any]:
        """The C handle, or None once closed (``handle`` raises instead)."""
        return self._handle

    @property
    def handle(self) -> Any:
        """The C handle; ValueError once closed."""
        if self._handle is None:
            raise ValueError(f"the {type(self).__name__} is closed")
        return self._handle

    @property
    def closed(self) -> bool:
        return self._handle is None

    def close(self) -> None:
        handle, self._handle = self._handle, None
        if handle is None:
            return
        for before, _ in self._closing or ():
            before(handle)
        self._release(handle)
        for _, after in self._closing or ():
            after()

    def __enter__(self: M) -> M:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


class StoreOwner(Protocol):
    """What the store's feature objects (Eula, Permissions, Ledger) need of their Store."""

    @property
    def handle(self) -> Any: ...

    @property
    def open_handle(self) -> Optional[Any]: ...

    def when_closing(self, before: Callable[[Any], None], after: Callable[[], None]) -> None: ...
