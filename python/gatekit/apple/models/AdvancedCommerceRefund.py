"""``appstoreserverlibrary.models.AdvancedCommerceRefund`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceRefund

__all__ = ["AdvancedCommerceRefund"]
