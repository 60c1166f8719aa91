"""GateKit: EULA gating, App Store receipt validation and permission state.

A typed ctypes binding of libgatekit.so. Every failing call raises a
:class:`GateKitError` subclass carrying the library's code and detail.
"""
from __future__ import annotations

from . import _native, receipt
from .errors import (CommitUncertainError, ConnectionLostError, CorruptStoreError, GateKitError, InvalidArgumentError, NewerStoreError,
                     NotAStoreError, NotFoundError, StoreError, UnsafeStoreError, strerror)
from .eula import EulaAnswer, EulaDecision, hash_bytes, hash_file
from . import permissions
from .permissions import (Category, ChangeSource, Decision, PermissionChange, PermissionProvider, State,
                          Subscription)
from .receipt import InAppPurchase, Receipt, ReceiptError
from .store import Store
from . import jws  # noqa: E402,F401  (StoreKit 2 signed data: gatekit.jws.SignedDataVerifier)
from . import ledger  # noqa: E402,F401  (the entitlement ledger: store.ledger)
from . import appstore  # noqa: E402,F401  (Apple's signature creators and ReceiptUtility)
from . import api_client  # noqa: E402,F401  (the App Store Server API client)
from . import apple  # noqa: E402,F401  (Apple's library by Apple's names and constructors)
from .ledger import Entitlement, SubscriptionStatus  # noqa: E402

__all__ = [
    "Category", "ChangeSource", "CommitUncertainError", "ConnectionLostError", "CorruptStoreError", "Decision", "EulaAnswer", "EulaDecision", "InAppPurchase", "PermissionChange",
    "PermissionProvider", "Receipt", "ReceiptError", "State", "Subscription", "permissions",
    "GateKitError", "InvalidArgumentError", "NewerStoreError",
    "NotAStoreError", "NotFoundError", "Store", "StoreError", "UnsafeStoreError", "hash_bytes", "hash_file",
    "__version__", "clear_caches", "library_path", "receipt", "ledger", "appstore", "api_client", "apple", "Entitlement", "SubscriptionStatus", "strerror", "version", "version_number",
]


_clear_caches = _native.declare("gatekit_clear_caches", None)


def clear_caches() -> None:
    """Drops every process-wide cache (verified chains, decoded JWS headers): for benchmarks
    of cold paths; never needed for correctness."""
    _clear_caches()


#: The package's version: the same as the library's and the header's (tests/test_package.py).
__version__ = "0.1.0"


def version() -> str:
    return str(_native.gatekit_version().decode("ascii"))


def version_number() -> int:
    return int(_native.gatekit_version_number())


def library_path() -> str:
    """The libgatekit file this package loaded."""
    return _native.library_path
