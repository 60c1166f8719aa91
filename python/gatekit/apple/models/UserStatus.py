"""``appstoreserverlibrary.models.UserStatus`` at Apple's path."""
from ...apple_enums import UserStatus

__all__ = ["UserStatus"]
