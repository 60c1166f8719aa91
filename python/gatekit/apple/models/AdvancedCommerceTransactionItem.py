"""``appstoreserverlibrary.models.AdvancedCommerceTransactionItem`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceTransactionItem

__all__ = ["AdvancedCommerceTransactionItem"]
