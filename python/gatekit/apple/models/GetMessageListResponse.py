"""``appstoreserverlibrary.models.GetMessageListResponse`` at Apple's path."""
from ...api_models import GetMessageListResponse

__all__ = ["GetMessageListResponse"]
