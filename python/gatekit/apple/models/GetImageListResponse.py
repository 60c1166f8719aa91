"""``appstoreserverlibrary.models.GetImageListResponse`` at Apple's path."""
from ...api_models import GetImageListResponse

__all__ = ["GetImageListResponse"]
