"""``appstoreserverlibrary.models.ExtendReasonCode`` at Apple's path."""
from ...apple_enums import ExtendReasonCode

__all__ = ["ExtendReasonCode"]
