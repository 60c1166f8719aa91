"""``appstoreserverlibrary.models.AdvancedCommerceRefundType`` at Apple's path."""
from ...apple_enums import AdvancedCommerceRefundType

__all__ = ["AdvancedCommerceRefundType"]
