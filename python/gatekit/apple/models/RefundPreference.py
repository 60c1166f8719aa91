"""``appstoreserverlibrary.models.RefundPreference`` at Apple's path."""
from ...apple_enums import RefundPreference

__all__ = ["RefundPreference"]
