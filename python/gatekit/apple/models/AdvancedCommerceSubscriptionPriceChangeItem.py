"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionPriceChangeItem`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionPriceChangeItem

__all__ = ["AdvancedCommerceSubscriptionPriceChangeItem"]
