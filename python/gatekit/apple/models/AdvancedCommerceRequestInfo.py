"""``appstoreserverlibrary.models.AdvancedCommerceRequestInfo`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceRequestInfo

__all__ = ["AdvancedCommerceRequestInfo"]
