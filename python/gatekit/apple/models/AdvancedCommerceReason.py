"""``appstoreserverlibrary.models.AdvancedCommerceReason`` at Apple's path."""
from ...apple_enums import AdvancedCommerceReason

__all__ = ["AdvancedCommerceReason"]
