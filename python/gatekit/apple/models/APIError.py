"""``appstoreserverlibrary.models.APIError`` at Apple's path."""
from ...api_models import APIError

__all__ = ["APIError"]
