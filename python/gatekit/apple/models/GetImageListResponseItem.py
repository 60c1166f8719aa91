"""``appstoreserverlibrary.models.GetImageListResponseItem`` at Apple's path."""
from ...api_models import GetImageListResponseItem

__all__ = ["GetImageListResponseItem"]
