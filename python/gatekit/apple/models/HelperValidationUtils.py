"""``appstoreserverlibrary.models.HelperValidationUtils`` at Apple's path: Apple's limits on
Advanced Commerce members, as attrs-style validators ``(instance, attribute, value)``. GateKit's
models apply the same checks themselves (gatekit._model)."""
from __future__ import annotations

from typing import Any

from ..._model import each_max_length, in_range, max_length, not_empty

__all__ = ["HelperValidationUtils"]


class HelperValidationUtils:
    MAXIMUM_DESCRIPTION_LENGTH = 45
    MAXIMUM_DISPLAY_NAME_LENGTH = 30
    MAXIMUM_SKU_LENGTH = 128
    MIN_PERIOD = 1
    MAX_PERIOD = 12

    @staticmethod
    def description_validator(instance: Any, attribute: Any, value: Any) -> None:
        max_length(HelperValidationUtils.MAXIMUM_DESCRIPTION_LENGTH, "description")(value)

    @staticmethod
    def display_name_validator(instance: Any, attribute: Any, value: Any) -> None:
        max_length(HelperValidationUtils.MAXIMUM_DISPLAY_NAME_LENGTH, "displayName")(value)

    @staticmethod
    def sku_validator(instance: Any, attribute: Any, value: Any) -> None:
        max_length(HelperValidationUtils.MAXIMUM_SKU_LENGTH, "SKU")(value)

    @staticmethod
    def period_count_validator(instance: Any, attribute: Any, value: Any) -> None:
        in_range(HelperValidationUtils.MIN_PERIOD, HelperValidationUtils.MAX_PERIOD, "periodCount")(value)

    @staticmethod
    def items_validator(instance: Any, attribute: Any, value: Any) -> None:
        not_empty("items")(value)

    @staticmethod
    def dependent_skus_validator(instance: Any, attribute: Any, value: Any) -> None:
        each_max_length(HelperValidationUtils.MAXIMUM_SKU_LENGTH, "dependentSKUs")(value)
