"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionRevokeRequest`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionRevokeRequest

__all__ = ["AdvancedCommerceSubscriptionRevokeRequest"]
