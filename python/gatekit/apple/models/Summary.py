"""``appstoreserverlibrary.models.Summary`` at Apple's path."""
from ...payload_models import Summary

__all__ = ["Summary"]
