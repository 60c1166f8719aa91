"""One owned C handle per Python object: the base of Store, Receipt and every handle to come."""
from __future__ import annotations

from typing import Any, Optional, TypeVar

__all__ = ["Managed"]

M = TypeVar("M", bound="Managed")


class Managed:
    """Owns one C handle: ``close()`` is idempotent, the object is a context manager, and
    ``__del__`` releases the handle without ever raising (at interpreter shutdown module
    globals may already be gone). Subclasses set ``_handle`` and implement ``_release``."""

    _handle: Optional[Any] = None

    def _release(self, handle: Any) -> None:
        raise NotImplementedError

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
        if handle is not None:
            self._release(handle)

    def __enter__(self: M) -> M:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass
