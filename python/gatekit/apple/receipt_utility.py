"""``appstoreserverlibrary.receipt_utility`` at Apple's path."""
from ..appstore import ReceiptUtility

__all__ = ["ReceiptUtility"]
