"""``appstoreserverlibrary.models.PerformanceTestStatus`` at Apple's path."""
from ...apple_enums import PerformanceTestStatus

__all__ = ["PerformanceTestStatus"]
