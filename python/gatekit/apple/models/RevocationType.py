"""``appstoreserverlibrary.models.RevocationType`` at Apple's path."""
from ...apple_enums import RevocationType

__all__ = ["RevocationType"]
