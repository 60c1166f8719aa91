"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionChangeMetadataItem`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionChangeMetadataItem

__all__ = ["AdvancedCommerceSubscriptionChangeMetadataItem"]
