"""``appstoreserverlibrary.models.AbstractAdvancedCommerceResponse`` at Apple's path."""
from ...advanced_commerce import AbstractAdvancedCommerceResponse

__all__ = ["AbstractAdvancedCommerceResponse"]
