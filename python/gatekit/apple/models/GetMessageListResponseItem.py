"""``appstoreserverlibrary.models.GetMessageListResponseItem`` at Apple's path."""
from ...api_models import GetMessageListResponseItem

__all__ = ["GetMessageListResponseItem"]
