"""``appstoreserverlibrary.models.DefaultConfigurationRequest`` at Apple's path."""
from ...api_models import DefaultConfigurationRequest

__all__ = ["DefaultConfigurationRequest"]
