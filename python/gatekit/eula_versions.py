"""Published EULA versions — translations and schedules — and the consent export that proves
the history (``store.eula.publish``, ``should_present_at``, ``export``, ``verify_export``)."""
from __future__ import annotations

import ctypes
import enum
import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import IO, Any, List, Mapping, Optional, Union

from . import _bindings, _native, _time
from .errors import GateKitError, check, file_path, register

__all__ = ["EEULA_EXPORT_ALTERED", "EEULA_VERSION_CONFLICT", "EulaExportAlteredError", "EulaStatus", "EulaVersionConflictError",
           "Presentation"]

#: A consent export does not match the store (EulaExportAlteredError).
EEULA_EXPORT_ALTERED = _bindings.GATEKIT_EEULA_EXPORT_ALTERED
#: A label or text is already published differently (EulaVersionConflictError).
EEULA_VERSION_CONFLICT = _bindings.GATEKIT_EEULA_VERSION_CONFLICT

_publication_init = _bindings.eula_publication_init
_publish = _bindings.eula_publish
_should_present_at = _bindings.eula_should_present_at
_text = _bindings.eula_text
_export = _bindings.eula_export
_verify_export = _bindings.eula_verify_export


class EulaExportAlteredError(GateKitError, ValueError):
    """The export was edited, cut short, or is not what this store holds (the message names
    the first record that differs)."""


class EulaVersionConflictError(GateKitError, ValueError):
    """The label, or one of the texts, is already published differently: a published
    version is never edited; publish a new label."""


register(EEULA_EXPORT_ALTERED, EulaExportAlteredError)
register(EEULA_VERSION_CONFLICT, EulaVersionConflictError)


class EulaStatus(str, enum.Enum):
    """What a launch gate should do about the version in effect."""
    ACCEPTED = "accepted"
    #: Not accepted, but the previous version's acceptance counts until ``required_at``.
    IN_GRACE = "in-grace"
    REQUIRED = "required"


_STATUS = {_bindings.GATEKIT_EULA_ACCEPTED: EulaStatus.ACCEPTED, _bindings.GATEKIT_EULA_IN_GRACE: EulaStatus.IN_GRACE,
           _bindings.GATEKIT_EULA_REQUIRED: EulaStatus.REQUIRED}


@dataclass(frozen=True)
class Presentation:
    """The version in effect for a user at an instant, and the text to show them."""
    status: EulaStatus
    label: str
    language: str
    hash: str
    effective: datetime
    required_at: datetime
    #: The next version's instant of effect, when one is scheduled after the instant asked.
    next_effective: Optional[datetime]

    @property
    def must_present(self) -> bool:
        return self.status is EulaStatus.REQUIRED


#: A translation's text: bytes, or the path of its file.
TextSource = Union[bytes, str, "os.PathLike[str]"]


def publish(handle: Any, document_id: Optional[bytes], label: str, texts: Mapping[str, TextSource], default_language: str,
            effective: Optional[datetime], grace: Optional[timedelta]) -> None:
    p = _bindings.gatekit_eula_publication()
    check(_publication_init(ctypes.byref(p), _bindings.GATEKIT_EULA_PUBLICATION_VERSION))
    items = list(texts.items())
    array = (_bindings.gatekit_eula_text * max(len(items), 1))()
    keep: List[Any] = []
    for i, (language, source) in enumerate(items):
        array[i].language = _native.to_c_string(language, "language")
        if isinstance(source, (bytes, bytearray)):
            data = ctypes.create_string_buffer(bytes(source), len(source))
            keep.append(data)
            array[i].bytes = ctypes.cast(data, ctypes.c_void_p)
            array[i].length = len(source)
        else:
            array[i].path = file_path(source, "texts path")
    p.label = _native.to_c_string(label, "label")
    p.effective_ms = _time.milliseconds(effective, "effective")
    p.grace_ms = 0 if grace is None else _time.span_milliseconds(grace, "grace")
    p.default_language = _native.to_c_string(default_language, "default_language")
    p.texts = array
    p.text_count = len(items)
    check(_publish(handle, document_id, ctypes.byref(p)))


def should_present_at(handle: Any, document_id: Optional[bytes], user: Optional[bytes], language: Optional[str],
                      at: Optional[datetime]) -> Presentation:
    out = _bindings.gatekit_eula_presentation()
    out.version = _bindings.GATEKIT_EULA_PRESENTATION_VERSION
    check(_should_present_at(ctypes.byref(out), handle, document_id, user, _native.to_c_string(language, "language"),
                             _time.milliseconds(at, "at")))
    effective = _time.from_milliseconds(out.effective_ms)
    required_at = _time.from_milliseconds(out.required_at_ms)
    assert effective is not None and required_at is not None
    return Presentation(_STATUS[out.status], out.label.decode("utf-8"), out.language.decode("ascii"), out.hash.decode("ascii"),
                        effective, required_at, _time.from_milliseconds(out.next_effective_ms) if out.next_effective_ms else None)


def text(handle: Any, document_id: Optional[bytes], hash: str) -> bytes:
    data = ctypes.c_void_p()
    length = ctypes.c_size_t()
    check(_text(ctypes.byref(data), ctypes.byref(length), handle, document_id, _native.to_c_string(hash, "hash")))
    try:
        return ctypes.string_at(data.value, length.value) if data.value else b""
    finally:
        _bindings.gatekit_free(data)


def export(handle: Any, out: IO[bytes], document_id: Optional[bytes], user: Optional[bytes], everyone: bool, csv: bool,
           texts: bool) -> int:
    failure: List[BaseException] = []

    def write(_context: Any, data: Any, length: int) -> int:
        try:
            out.write(ctypes.string_at(data, length))
            return 0
        except BaseException as e:  # noqa: BLE001 - handed back after the C call returns
            failure.append(e)
            return 1

    flags = ((_bindings.GATEKIT_EULA_EXPORT_CSV if csv else 0) | (_bindings.GATEKIT_EULA_EXPORT_EVERYONE if everyone else 0)
             | (_bindings.GATEKIT_EULA_EXPORT_TEXTS if texts else 0))
    count = ctypes.c_longlong()
    callback = _bindings.gatekit_write_fn(write)
    rc = _export(ctypes.byref(count), handle, document_id, user, flags, callback, None)
    if failure:
        raise failure[0]
    check(rc)
    return count.value


def verify_export(handle: Any, path: Union[str, "os.PathLike[str]"]) -> int:
    count = ctypes.c_longlong()
    check(_verify_export(ctypes.byref(count), handle, file_path(path, "path")))
    return count.value
