"""``appstoreserverlibrary.models.DefaultConfigurationResponse`` at Apple's path."""
from ...api_models import DefaultConfigurationResponse

__all__ = ["DefaultConfigurationResponse"]
