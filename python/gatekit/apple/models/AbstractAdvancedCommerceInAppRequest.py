"""``appstoreserverlibrary.models.AbstractAdvancedCommerceInAppRequest`` at Apple's path."""
from ...advanced_commerce import AbstractAdvancedCommerceInAppRequest

__all__ = ["AbstractAdvancedCommerceInAppRequest"]
