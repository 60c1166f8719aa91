"""``appstoreserverlibrary.models.SendAttemptItem`` at Apple's path."""
from ...api_models import SendAttemptItem

__all__ = ["SendAttemptItem"]
