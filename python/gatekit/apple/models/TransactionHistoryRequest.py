"""``appstoreserverlibrary.models.TransactionHistoryRequest`` at Apple's path (with ``Order``
and ``ProductType``, as Apple's module has them)."""
from ...api_models import Order, ProductType, TransactionHistoryRequest

__all__ = ["Order", "ProductType", "TransactionHistoryRequest"]
