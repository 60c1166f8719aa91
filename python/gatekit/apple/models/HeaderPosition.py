"""``appstoreserverlibrary.models.HeaderPosition`` at Apple's path."""
from ...apple_enums import HeaderPosition

__all__ = ["HeaderPosition"]
