"""``appstoreserverlibrary.models.AdvancedCommerceSubscriptionModifyPeriodChange`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceSubscriptionModifyPeriodChange

__all__ = ["AdvancedCommerceSubscriptionModifyPeriodChange"]
