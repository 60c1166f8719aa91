"""``appstoreserverlibrary.models.PerformanceTestResultResponse`` at Apple's path."""
from ...api_models import PerformanceTestResultResponse

__all__ = ["PerformanceTestResultResponse"]
