"""``appstoreserverlibrary.models.Type`` at Apple's path."""
from ...apple_enums import Type

__all__ = ["Type"]
