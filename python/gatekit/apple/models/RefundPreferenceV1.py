"""``appstoreserverlibrary.models.RefundPreferenceV1`` at Apple's path."""
from ...apple_enums import RefundPreferenceV1

__all__ = ["RefundPreferenceV1"]
