"""``appstoreserverlibrary.models.PerformanceTestRequest`` at Apple's path."""
from ...api_models import PerformanceTestRequest

__all__ = ["PerformanceTestRequest"]
