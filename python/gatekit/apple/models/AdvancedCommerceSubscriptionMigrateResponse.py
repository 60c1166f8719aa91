"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionMigrateResponse`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionMigrateResponse

__all__ = ["AdvancedCommerceSubscriptionMigrateResponse"]
