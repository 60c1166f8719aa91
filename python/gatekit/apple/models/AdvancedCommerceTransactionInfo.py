"""``appstoreserverlibrary.models.AdvancedCommerceTransactionInfo`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceTransactionInfo

__all__ = ["AdvancedCommerceTransactionInfo"]
