"""``appstoreserverlibrary.models.AdvancedCommerceRequestRefundResponse`` at Apple's path."""
from ...advanced_commerce import AdvancedCommerceRequestRefundResponse

__all__ = ["AdvancedCommerceRequestRefundResponse"]
