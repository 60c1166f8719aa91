"""``appstoreserverlibrary.models.Platform`` at Apple's path."""
from ...apple_enums import Platform

__all__ = ["Platform"]
