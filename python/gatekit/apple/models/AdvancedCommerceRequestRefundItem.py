"""``appstoreserverlibrary.models.AdvancedCommerceRequestRefundItem`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceRequestRefundItem

__all__ = ["AdvancedCommerceRequestRefundItem"]
