"""``appstoreserverlibrary.api_client`` at Apple's path: the client, its errors and the request
and response models Apple's module names."""
from ..api_client import *  # noqa: F401,F403
from ..api_client import __all__  # noqa: F401
