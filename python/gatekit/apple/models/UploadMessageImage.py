"""``appstoreserverlibrary.models.UploadMessageImage`` at Apple's path."""
from ...api_models import UploadMessageImage

__all__ = ["UploadMessageImage"]
