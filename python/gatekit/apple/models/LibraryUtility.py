"""``appstoreserverlibrary.models.LibraryUtility`` at Apple's path: ``_get_cattrs_converter(cls)``,
whose ``structure(json, cls)`` and ``unstructure(model)`` are, for GateKit's models,
``cls.from_json`` and ``model.to_json`` (gatekit._model). Apple's tests call it by name."""
from __future__ import annotations

from typing import Any, Dict, Type, TypeVar

from ..._model import Model

__all__ = ["Converter", "_get_cattrs_converter"]

M = TypeVar("M", bound=Model)


class Converter:
    """The two calls of a cattrs converter Apple's code makes, for GateKit's models."""

    def structure(self, value: Any, cls: Type[M]) -> M:
        return cls.from_json(value)

    def unstructure(self, model: Model) -> Dict[str, Any]:
        return model.to_json()


_converter = Converter()


def _get_cattrs_converter(destination_class: type) -> Converter:
    return _converter
