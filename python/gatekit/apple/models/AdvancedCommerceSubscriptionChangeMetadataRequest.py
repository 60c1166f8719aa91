"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionChangeMetadataRequest`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionChangeMetadataRequest

__all__ = ["AdvancedCommerceSubscriptionChangeMetadataRequest"]
