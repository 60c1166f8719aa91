"""``appstoreserverlibrary.models.LifetimeDollarsRefunded`` at Apple's path."""
from ...apple_enums import LifetimeDollarsRefunded

__all__ = ["LifetimeDollarsRefunded"]
