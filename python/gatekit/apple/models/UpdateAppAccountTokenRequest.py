"""``appstoreserverlibrary.models.UpdateAppAccountTokenRequest`` at Apple's path."""
from ...api_models import UpdateAppAccountTokenRequest

__all__ = ["UpdateAppAccountTokenRequest"]
