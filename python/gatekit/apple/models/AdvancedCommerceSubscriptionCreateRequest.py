"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionCreateRequest`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionCreateRequest

__all__ = ["AdvancedCommerceSubscriptionCreateRequest"]
