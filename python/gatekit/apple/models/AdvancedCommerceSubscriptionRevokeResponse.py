"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionRevokeResponse`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionRevokeResponse

__all__ = ["AdvancedCommerceSubscriptionRevokeResponse"]
