"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionChangeMetadataResponse`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionChangeMetadataResponse

__all__ = ["AdvancedCommerceSubscriptionChangeMetadataResponse"]
