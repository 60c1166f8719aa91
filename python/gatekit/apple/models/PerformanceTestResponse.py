"""``appstoreserverlibrary.models.PerformanceTestResponse`` at Apple's path."""
from ...api_models import PerformanceTestResponse

__all__ = ["PerformanceTestResponse"]
