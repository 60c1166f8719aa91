"""``appstoreserverlibrary.models.AlternateProduct`` at Apple's path."""
from ...retention_models import AlternateProduct

__all__ = ["AlternateProduct"]
