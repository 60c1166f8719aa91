"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionChangeMetadataDescriptors`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionChangeMetadataDescriptors

__all__ = ["AdvancedCommerceSubscriptionChangeMetadataDescriptors"]
