"""``appstoreserverlibrary.models.PerformanceTestConfig`` at Apple's path."""
from ...api_models import PerformanceTestConfig

__all__ = ["PerformanceTestConfig"]
