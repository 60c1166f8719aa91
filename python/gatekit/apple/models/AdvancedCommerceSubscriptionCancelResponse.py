"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionCancelResponse`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionCancelResponse

__all__ = ["AdvancedCommerceSubscriptionCancelResponse"]
