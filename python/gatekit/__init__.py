"""GateKit: EULA gating, App Store receipt validation and permission state.

A typed ctypes binding of libgatekit.so. Every failing call raises a
:class:`GateKitError` subclass carrying the library's code and detail.

Submodules load on first use (PEP 562): a host that only validates a receipt at launch
imports ``gatekit.receipt`` and nothing of the ledger, the permissions or the API client.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Dict, List

from . import _bindings, _native
from .errors import (CommitUncertainError, ConnectionLostError, CorruptStoreError, ForkedStoreError, GateKitError, InvalidArgumentError, NewerStoreError,
                     NotAStoreError, NotFoundError, StoreError, UnsafeStoreError, strerror)

if TYPE_CHECKING:  # what the lazy names below resolve to, for type checkers
    from . import api_client, api_models, apple, appstore, eula, eula_versions, jws, ledger, permissions, receipt, store, testing
    from .eula import Consent, EulaAnswer, EulaDecision, EulaMethod, hash_bytes, hash_file
    from .eula_versions import EulaStatus, Presentation
    from .ledger import Entitlement, SubscriptionStatus
    from .permissions import Category, ChangeSource, Decision, PermissionChange, PermissionProvider, State, Subscription
    from .receipt import InAppPurchase, Receipt, ReceiptError
    from .store import Store

_SUBMODULES = frozenset({"api_client", "api_models", "apple", "appstore", "eula", "eula_versions", "jws", "ledger", "permissions", "play", "play_models", "receipt", "store", "testing"})

#: Names the package re-exports from a submodule, imported when first asked for.
_LAZY_NAMES: Dict[str, str] = {
    "Consent": "eula", "EulaAnswer": "eula", "EulaDecision": "eula", "EulaMethod": "eula", "hash_bytes": "eula", "hash_file": "eula",
    "EulaStatus": "eula_versions", "Presentation": "eula_versions",
    "Entitlement": "ledger", "SubscriptionStatus": "ledger",
    "Category": "permissions", "ChangeSource": "permissions", "Decision": "permissions", "PermissionChange": "permissions",
    "PermissionProvider": "permissions", "State": "permissions", "Subscription": "permissions",
    "InAppPurchase": "receipt", "Receipt": "receipt", "ReceiptError": "receipt",
    "Store": "store",
}


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    module = _LAZY_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "Category", "ChangeSource", "CommitUncertainError", "Consent", "ConnectionLostError", "CorruptStoreError", "ForkedStoreError", "Decision", "EulaAnswer", "EulaDecision", "EulaMethod", "EulaStatus", "InAppPurchase", "PermissionChange",
    "PermissionProvider", "Receipt", "ReceiptError", "State", "Subscription", "permissions",
    "GateKitError", "InvalidArgumentError", "NewerStoreError",
    "NotAStoreError", "NotFoundError", "Store", "StoreError", "UnsafeStoreError", "hash_bytes", "hash_file",
    "__version__", "clear_caches", "library_path", "receipt", "ledger", "appstore", "api_client", "api_models", "apple", "eula", "eula_versions", "jws", "play", "play_models", "store", "testing",
    "Entitlement", "Presentation", "SubscriptionStatus", "strerror", "version", "version_number",
]


_clear_caches = _bindings.gatekit_clear_caches


def clear_caches() -> None:
    """Drops every process-wide cache (verified chains, decoded JWS headers): for benchmarks
    of cold paths; never needed for correctness."""
    _clear_caches()


#: The package's version: the same as the library's and the header's (tests/test_package.py).
__version__ = "0.2.0"


def version() -> str:
    return str(_bindings.gatekit_version().decode("ascii"))


def version_number() -> int:
    return int(_bindings.gatekit_version_number())


def library_path() -> str:
    """The libgatekit file this package loaded."""
    return _native.library_path
