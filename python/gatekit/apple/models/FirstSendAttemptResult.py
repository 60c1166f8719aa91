"""``appstoreserverlibrary.models.FirstSendAttemptResult`` at Apple's path."""
from ...apple_enums import FirstSendAttemptResult

__all__ = ["FirstSendAttemptResult"]
