"""``appstoreserverlibrary.models.ExpirationIntent`` at Apple's path."""
from ...apple_enums import ExpirationIntent

__all__ = ["ExpirationIntent"]
