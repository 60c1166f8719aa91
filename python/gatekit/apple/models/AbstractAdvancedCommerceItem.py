"""``appstoreserverlibrary.models.AbstractAdvancedCommerceItem`` at Apple's path."""
from ...advanced_commerce import AbstractAdvancedCommerceItem

__all__ = ["AbstractAdvancedCommerceItem"]
