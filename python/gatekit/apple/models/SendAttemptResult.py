"""``appstoreserverlibrary.models.SendAttemptResult`` at Apple's path."""
from ...api_models import SendAttemptResult

__all__ = ["SendAttemptResult"]
