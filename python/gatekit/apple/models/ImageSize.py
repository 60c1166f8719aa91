"""``appstoreserverlibrary.models.ImageSize`` at Apple's path."""
from ...api_models import ImageSize

__all__ = ["ImageSize"]
