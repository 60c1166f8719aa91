"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionPriceChangeResponse`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionPriceChangeResponse

__all__ = ["AdvancedCommerceSubscriptionPriceChangeResponse"]
