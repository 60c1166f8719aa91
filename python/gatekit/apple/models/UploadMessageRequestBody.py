"""``appstoreserverlibrary.models.UploadMessageRequestBody`` at Apple's path."""
from ...api_models import UploadMessageRequestBody

__all__ = ["UploadMessageRequestBody"]
