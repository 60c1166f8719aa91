"""``appstoreserverlibrary.models.PerformanceTestResponseTimes`` at Apple's path."""
from ...api_models import PerformanceTestResponseTimes

__all__ = ["PerformanceTestResponseTimes"]
