"""``appstoreserverlibrary.models.AdvancedCommerceRenewalInfo`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceRenewalInfo

__all__ = ["AdvancedCommerceRenewalInfo"]
