"""The base of the package's integer enumerations: each member prints as its name (or the
name C and the tool print, where a subclass says so: permissions' "camera", "denied").

The numbers are the C header's (stable, compared and stored as ints); ``print(reason)`` and
``f"{outcome}"`` show ``ONLY_TEST_SIGNED`` and ``TRANSFERRED``, not 17 and 2, which say nothing
to a reader (Python's IntEnum prints the number since 3.11)."""
from __future__ import annotations

from enum import IntEnum

__all__ = ["NamedIntEnum"]


class NamedIntEnum(IntEnum):
    def __str__(self) -> str:
        return self.name

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)   # a subclass's own name for it ("camera") too
