"""``appstoreserverlibrary.models.AbstractAdvancedCommerceBaseItem`` at Apple's path."""
from ...advanced_commerce import AbstractAdvancedCommerceBaseItem

__all__ = ["AbstractAdvancedCommerceBaseItem"]
