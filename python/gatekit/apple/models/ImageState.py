"""``appstoreserverlibrary.models.ImageState`` at Apple's path."""
from ...apple_enums import ImageState

__all__ = ["ImageState"]
