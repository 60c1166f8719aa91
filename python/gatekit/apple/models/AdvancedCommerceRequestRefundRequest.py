"""``appstoreserverlibrary.models.AdvancedCommerceRequestRefundRequest`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceRequestRefundRequest

__all__ = ["AdvancedCommerceRequestRefundRequest"]
