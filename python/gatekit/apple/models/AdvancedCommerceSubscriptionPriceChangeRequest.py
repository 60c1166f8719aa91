"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionPriceChangeRequest`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionPriceChangeRequest

__all__ = ["AdvancedCommerceSubscriptionPriceChangeRequest"]
