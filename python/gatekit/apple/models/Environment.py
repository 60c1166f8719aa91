"""``appstoreserverlibrary.models.Environment`` at Apple's path."""
from ...apple_enums import Environment

__all__ = ["Environment"]
