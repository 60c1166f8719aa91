"""``appstoreserverlibrary.models.AdvancedCommerceRefundReason`` at Apple's path."""
from ...apple_enums import AdvancedCommerceRefundReason

__all__ = ["AdvancedCommerceRefundReason"]
