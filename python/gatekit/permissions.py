"""Permission state: may the app ask for this permission now? (docs/permissions.md)

Categories and states keep ISHPermissionKit's numbers. A category's state is the system
provider's answer when it has one, else the state stored from the host's own records.

Callbacks and providers: one module-level ctypes trampoline of each kind (kept alive for the
life of the process) dispatches to the Python objects by a small integer payload, so no
ctypes callback object can be collected while C may still call it. An exception raised in a
callback or provider is never lost: raised on the calling thread when the callback ran
inside a call made from Python (after that call returned: the state change has happened),
otherwise — on the watcher's thread — passed to ``on_error`` given to
:meth:`Permissions.watch_start`, or to ``sys.unraisablehook`` (which prints it),
and kept in ``store.permissions.errors`` (the latest 256) in every case.
"""
from __future__ import annotations

import atexit
import collections
import ctypes
import itertools
import json
import sys
import threading
import weakref
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, Union

from . import _bindings, _native, _time
from ._result import JSONResult
from .errors import GateKitError, InvalidArgumentError, error_for, register
from ._enum_rules import allows_prompt, category_name, state_name
from ._enums import Category, Decision, State
from ._managed import StoreOwner

__all__ = ["ALL", "BlockedCategoryError", "Category", "CategoryConflictError", "CategoryLike", "ChangeSource",
    "Decision", "EPERM_BLOCKED", "EPERM_CATEGORY", "EPERM_CONFLICT", "EPERM_DECISION",
    "EPERM_NOT_PROMPTABLE", "EPERM_NO_USAGE", "EPERM_PROVIDER", "EPERM_REENTRANT", "EPERM_RETIRED",
    "EPERM_PORTAL", "EPERM_TOKEN", "EPERM_WATCHING", "HOST_FIRST", "InvalidCategoryError", "InvalidDecisionError",
    "MissingUsageDescriptionError", "NotPromptableError", "PermissionChange", "PermissionProvider",
    "PermissionStateError", "Permissions", "PortalUnavailableError", "ProviderAnswerError", "ReentrantCallError",
    "RetiredCategoryError", "State", "Subscription", "UnknownSubscriptionError", "WATCH_PROVIDER",
    "WatcherRunningError", "allows_prompt", "category", "category_from_name", "category_name",
    "state_name"]


_STATE_BY_VALUE = {int(s): s for s in State}


#: "Every category", for Permissions.reset() and Permissions.history().
ALL = _bindings.GATEKIT_PERM_ALL
#: First number of host categories.
HOST_FIRST = _bindings.GATEKIT_PERM_HOST_FIRST
#: Permissions.watch_start(provider=True): also ask the provider on every poll.
WATCH_PROVIDER = _bindings.GATEKIT_PERM_WATCH_PROVIDER

CategoryLike = Union[Category, int]


# ---- errors (-200 … -299) ----

class PermissionStateError(GateKitError):
    """Base of the permission errors."""


class InvalidCategoryError(PermissionStateError, ValueError):
    pass


class RetiredCategoryError(InvalidCategoryError):
    pass


class InvalidDecisionError(PermissionStateError, ValueError):
    pass


class NotPromptableError(PermissionStateError):
    """The state is final (only Permissions.reset() leaves it)."""


class BlockedCategoryError(NotPromptableError):
    """Another category's answer rules this one out (location-always)."""


class MissingUsageDescriptionError(PermissionStateError):
    pass


class CategoryConflictError(PermissionStateError):
    pass


class ProviderAnswerError(PermissionStateError):
    pass


class ReentrantCallError(PermissionStateError):
    pass


class UnknownSubscriptionError(PermissionStateError, LookupError):
    pass


class WatcherRunningError(PermissionStateError):
    pass


class PortalUnavailableError(PermissionStateError, ConnectionError):
    """The desktop's permission store cannot be reached (no session bus, xdg-permission-store
    not running), or it is not this store's provider."""


# Error codes: GATEKIT_EPERM_* without the GATEKIT_ prefix (tests/test_package.py compares them).
EPERM_CATEGORY = _bindings.GATEKIT_EPERM_CATEGORY
EPERM_RETIRED = _bindings.GATEKIT_EPERM_RETIRED
EPERM_DECISION = _bindings.GATEKIT_EPERM_DECISION
EPERM_NOT_PROMPTABLE = _bindings.GATEKIT_EPERM_NOT_PROMPTABLE
EPERM_BLOCKED = _bindings.GATEKIT_EPERM_BLOCKED
EPERM_NO_USAGE = _bindings.GATEKIT_EPERM_NO_USAGE
EPERM_CONFLICT = _bindings.GATEKIT_EPERM_CONFLICT
EPERM_PROVIDER = _bindings.GATEKIT_EPERM_PROVIDER
EPERM_REENTRANT = _bindings.GATEKIT_EPERM_REENTRANT
EPERM_TOKEN = _bindings.GATEKIT_EPERM_TOKEN
EPERM_WATCHING = _bindings.GATEKIT_EPERM_WATCHING
EPERM_PORTAL = _bindings.GATEKIT_EPERM_PORTAL

for _code, _cls in ((EPERM_CATEGORY, InvalidCategoryError), (EPERM_RETIRED, RetiredCategoryError),
                    (EPERM_DECISION, InvalidDecisionError), (EPERM_NOT_PROMPTABLE, NotPromptableError),
                    (EPERM_BLOCKED, BlockedCategoryError), (EPERM_NO_USAGE, MissingUsageDescriptionError),
                    (EPERM_CONFLICT, CategoryConflictError), (EPERM_PROVIDER, ProviderAnswerError),
                    (EPERM_REENTRANT, ReentrantCallError), (EPERM_TOKEN, UnknownSubscriptionError),
                    (EPERM_WATCHING, WatcherRunningError), (EPERM_PORTAL, PortalUnavailableError)):
    register(_code, _cls)


# ---- declarations ----

_S = ctypes.POINTER(_bindings.gatekit_store)
_CHANGED = _bindings.gatekit_perm_changed_fn
_PROVIDER = _bindings.gatekit_perm_provider_fn
_int_p = ctypes.POINTER(ctypes.c_int)

_category_from_name = _bindings.perm_category_from_name
_set_provider = _bindings.perm_set_system_provider
_set_usage = _bindings.perm_set_usage_description
_register = _bindings.perm_register_category
_state = _bindings.perm_state
_record = _bindings.perm_record
_pending = _bindings.perm_pending
_next = _bindings.perm_next
_reset = _bindings.perm_reset
_history = _bindings.perm_history
_list = _bindings.perm_list
_subscribe = _bindings.perm_subscribe
_unsubscribe = _bindings.perm_unsubscribe
_refresh = _bindings.perm_refresh
_watch_start = _bindings.perm_watch_start
_watch_stop = _bindings.perm_watch_stop
_use_portal = _bindings.perm_use_portal
_portal_map = _bindings.perm_portal_map
_portal_status = _bindings.perm_portal_status


# ---- names ----

def category(value: int) -> CategoryLike:
    """A built-in number as Category, any other number as int."""
    try:
        return Category(value)
    except ValueError:
        return int(value)



def category_from_name(name: str) -> Category:
    """The built-in category with this name (host names: store.permissions.category_from_name)."""
    return Category(_check(_category_from_name(None, _native.to_c_string(name, "name"))))




# ---- exceptions from callbacks: raised on the calling thread, or reported ----

_local = threading.local()


def _check(rc: int) -> int:
    if rc < 0:
        raise error_for(rc)
    return rc


_INT_MIN, _INT_MAX = -2**31, 2**31 - 1


def _c_int(value: object, what: str, error: type = InvalidArgumentError, code: int = -1) -> int:
    """An int that fits a C int (ctypes would silently wrap a larger one)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if not _INT_MIN <= value <= _INT_MAX:
        raise error(code, f"{what} {value} does not fit in a C int")
    return int(value)


def _category_int(value: object) -> int:
    return _c_int(value, "category", InvalidCategoryError, EPERM_CATEGORY)


def _invoke(function: Callable[..., int], *args: object) -> Tuple[int, Optional[GateKitError], List[BaseException]]:
    """Calls into C and collects what callbacks or the provider raised on this thread meanwhile."""
    depth = getattr(_local, "depth", 0)
    if depth == 0:
        _local.pending = []
    _local.depth = depth + 1
    try:
        rc = function(*args)
        error = error_for(rc) if rc < 0 else None  # before anything else can overwrite the detail
    finally:
        _local.depth = depth
    pending: List[BaseException] = []
    if depth == 0:
        pending, _local.pending = _local.pending, []
    return rc, error, pending


def _raise(error: Optional[GateKitError], pending: List[BaseException]) -> None:
    """Raises a callback's exception (the first; the others attached), or the library error
    — from the callback's exception when there is both."""
    if pending:
        first = pending[0]
        if len(pending) > 1:
            first.other_callback_errors = pending[1:]  # type: ignore[attr-defined]
        if error is not None:
            raise error from first
        raise first
    if error is not None:
        raise error


def _call(function: Callable[..., int], *args: object) -> int:
    """Calls into C; exceptions raised on this thread by callbacks or the provider during the
    call are raised once it returned (the call's effect has happened)."""
    rc, error, pending = _invoke(function, *args)
    _raise(error, pending)
    return rc


class _Registry:
    """Python objects C may call, by payload number."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.entries: Dict[int, Tuple[object, "Permissions"]] = {}
        self.numbers = itertools.count(1)

    def add(self, target: object, owner: "Permissions") -> int:
        with self.lock:
            key = next(self.numbers)
            self.entries[key] = (target, owner)
            return key

    def get(self, key: Optional[int]) -> Optional[Tuple[object, "Permissions"]]:
        with self.lock:
            return self.entries.get(key or 0)

    def remove(self, key: int) -> None:
        with self.lock:
            self.entries.pop(key, None)


_callbacks = _Registry()
_providers = _Registry()

# Stores whose watcher thread may still call into Python: stopped before the interpreter
# finalizes (a C thread entering a finalized interpreter would crash the process).
_watching: "weakref.WeakSet[Permissions]" = weakref.WeakSet()


@atexit.register
def _stop_watchers_at_exit() -> None:
    for permissions in list(_watching):
        handle = permissions.store_handle
        if handle is not None:
            _watch_stop(handle)


def _capture(error: BaseException, owner: "Permissions", what: str) -> None:
    owner.errors.append(error)
    if getattr(_local, "depth", 0) > 0:
        _local.pending.append(error)
        return
    handler = owner.error_handler
    if handler is not None:
        try:
            handler(error)
            return
        except BaseException as handler_error:  # the handler failed too: report both
            error = handler_error
    hook_args = type("UnraisableHookArgs", (), {})()
    hook_args.exc_type, hook_args.exc_value, hook_args.exc_traceback = type(error), error, error.__traceback__
    hook_args.err_msg, hook_args.object = f"Exception in a GateKit permission {what} on a watcher thread", owner
    sys.unraisablehook(hook_args)


@_CHANGED  # type: ignore[untyped-decorator]  # ctypes' CFUNCTYPE has no type information
def _changed_trampoline(payload: Optional[int], category_number: int, old: int, new: int) -> None:
    entry = _callbacks.get(payload)
    if entry is None:
        return
    callback, owner = entry
    try:
        callback(category(category_number), _as_state(old), _as_state(new))  # type: ignore[operator]
    except BaseException as error:  # never into C
        _capture(error, owner, "callback")


_INVALID_ANSWER = 0x7FFF  # makes the asking call fail with ProviderAnswerError


@_PROVIDER  # type: ignore[untyped-decorator]
def _provider_trampoline(payload: Optional[int], category_number: int) -> int:
    entry = _providers.get(payload)
    if entry is None:
        return 0
    provider, owner = entry
    try:
        answer = int(provider.system_state(category(category_number)))  # type: ignore[attr-defined]
    except BaseException as error:
        _capture(error, owner, "provider")
        return _INVALID_ANSWER
    return answer if -2**31 <= answer < 2**31 else _INVALID_ANSWER


def _as_state(value: int) -> Union[State, int]:
    try:
        return State(value)
    except ValueError:
        return value


class PermissionProvider:
    """Base class for system-state providers (e.g. one backed by the desktop portal).

    Override :meth:`system_state`. It may be called from several threads at once and must
    answer quickly; it must not call the store's permission methods that consult it
    (they raise ReentrantCallError)."""

    def system_state(self, category: CategoryLike) -> int:
        """State.AUTHORIZED, State.DENIED, State.UNSUPPORTED, or State.UNKNOWN for "not
        determined" (the stored state then decides). A negative number: could not tell."""
        return State.UNKNOWN


class ChangeSource(str, Enum):
    """Who changed a permission's state."""
    USER = "user"            # a decision the app recorded
    SYSTEM = "system"        # the system's answer changed (host provider refresh)
    RESET = "reset"          # perm_reset
    PROVIDER = "provider"    # the provider's own answer (e.g. the desktop portal) changed


@dataclass(frozen=True)
class PermissionChange(JSONResult):
    """One entry of the append-only history. For source PROVIDER, from/to are the provider's
    answers (State.UNKNOWN: not determined); otherwise stored states."""
    id: int
    category: CategoryLike
    name: Optional[str]
    from_state: State
    to_state: State
    source: ChangeSource
    at: datetime      # aware, UTC, millisecond precision

    @classmethod
    def from_dict(cls, entry: Mapping[str, Any]) -> "PermissionChange":
        at = _time.from_milliseconds(int(entry["at_ms"]))
        if at is None:
            raise ValueError("a permission change without at_ms")
        return cls(entry["id"], category(entry["category"]), entry["name"], _STATE_BY_VALUE[entry["from"]],
                   _STATE_BY_VALUE[entry["to"]],
                   ChangeSource(entry["source"]), at)

    def to_dict(self) -> Dict[str, Any]:
        """perm_history()'s entry for this change."""
        ms = _time.milliseconds(self.at, "at")
        return {"id": self.id, "category": int(self.category), "name": self.name, "from": int(self.from_state),
                "from_state": str(self.from_state), "to": int(self.to_state), "to_state": str(self.to_state),
                "source": self.source.value, "at": _time.rfc3339_ms(self.at), "at_ms": ms}


class Subscription:
    """Returned by :meth:`Permissions.subscribe`: call it (or ``unsubscribe()``) to
    stop the callback; also a context manager. Idempotent."""

    def __init__(self, store: StoreOwner, token: int, key: int) -> None:
        self._store, self.token, self._key = store, token, key
        self._done = False
        self._lock = threading.Lock()

    def unsubscribe(self) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
        handle = self._store.open_handle
        if handle is not None:
            _call(_unsubscribe, handle, self.token)
        _callbacks.remove(self._key)

    __call__ = unsubscribe

    def __enter__(self) -> "Subscription":
        return self

    def __exit__(self, *exc: object) -> None:
        self.unsubscribe()


def _category_array(categories: Iterable[int]) -> Tuple["ctypes.Array[ctypes.c_int]", int]:
    values = [_category_int(c) for c in categories]
    return (ctypes.c_int * max(1, len(values)))(*values), len(values)


class Permissions:
    """Permission state on one store: ``store.permissions``."""

    def __init__(self, store: StoreOwner) -> None:
        self._store = store
        #: The latest exceptions callbacks or providers raised (each also raised or reported).
        self.errors: "collections.deque[BaseException]" = collections.deque(maxlen=256)
        self._keys: List[int] = []
        self._provider_key: Optional[int] = None
        self._on_error: Optional[Callable[[BaseException], None]] = None
        store.when_closing(self._before_close, self._forget)

    @property
    def error_handler(self) -> Optional[Callable[[BaseException], None]]:
        """What watch_start(on_error=…) or set_provider(on_error=…) gave: called with an exception
        a callback or provider raised on the watcher's thread (None: the unraisable hook)."""
        return self._on_error

    @property
    def store_handle(self) -> Optional[Any]:
        """The store's C handle, None once it is closed."""
        return self._store.open_handle

    # -- configuration --

    def set_usage_description(self, category: CategoryLike, text: str) -> None:
        """Required before a prompt may be asked or recorded for the category."""
        _check(_set_usage(self._store.handle, _category_int(category), _native.to_c_string(text, "text")))

    def register_category(self, category: int, name: str, usage_description: str) -> None:
        """A host category: number from HOST_FIRST, name [a-z0-9._-]{1,64}."""
        _check(_register(self._store.handle, _category_int(category), _native.to_c_string(name, "name"),
                         _native.to_c_string(usage_description, "usage_description")))

    def category_from_name(self, name: str) -> CategoryLike:
        """A built-in or registered host category by name."""
        return category(_check(_category_from_name(self._store.handle, _native.to_c_string(name, "name"))))

    def set_provider(self, provider: Optional[PermissionProvider]) -> None:
        """Installs (None: removes) the system-state provider. Changes it causes are reported
        to subscribers on this thread."""
        handle = self._store.handle
        if provider is not None and not callable(getattr(provider, "system_state", None)):
            raise TypeError("provider must have a system_state(category) method")
        key = None if provider is None else _providers.add(provider, self)
        if key is None:
            rc, error, pending = _invoke(_set_provider, handle, _PROVIDER(), None)
        else:
            rc, error, pending = _invoke(_set_provider, handle, _provider_trampoline, ctypes.c_void_p(key))
        if rc < 0:  # refused: the old provider stays
            if key is not None:
                _providers.remove(key)
        else:       # C no longer calls the old one (it waited for calls in flight)
            if self._provider_key is not None:
                _providers.remove(self._provider_key)
            self._provider_key = key
        _raise(error, pending)

    # -- reading --

    def state(self, category: CategoryLike) -> State:
        """The effective state: the provider's answer when it has one, else the stored one."""
        handle = self._store.handle
        if type(category) is not Category:   # enum members are known to fit; others are checked
            category = _category_int(category)
        if self._provider_key is None:  # the hot path: no Python code can run inside
            rc = _state(handle, category)
            if rc >= 0:
                return _STATE_BY_VALUE[rc]
            raise error_for(rc)
        return _STATE_BY_VALUE[_call(_state, handle, category)]

    def pending(self, categories: Iterable[CategoryLike]) -> List[CategoryLike]:
        """In order and each once, the categories that still allow a prompt."""
        array, count = _category_array(categories)
        out_count = ctypes.c_size_t()
        _call(_pending, array, ctypes.byref(out_count), self._store.handle, array, count)
        return [category(array[i]) for i in range(out_count.value)]

    def next(self, categories: Iterable[CategoryLike], after: int = 0) -> Optional[CategoryLike]:
        """The first category after ``after`` (0: from the start) that allows a prompt now."""
        array, count = _category_array(categories)
        out = ctypes.c_int()
        _call(_next, ctypes.byref(out), self._store.handle, array, count, _category_int(after))
        return category(out.value) if out.value else None

    def walk(self, categories: Iterable[CategoryLike]) -> Iterator[CategoryLike]:
        """Yields the categories to prompt for, one at a time, re-evaluated after each: record
        the user's answer before asking for the next. Never yields a category twice, nor one
        an earlier answer made unpromptable."""
        sequence = list(categories)
        after = 0
        while True:
            nxt = self.next(sequence, after)
            if nxt is None:
                return
            yield nxt
            after = int(nxt)

    def history(self, category: CategoryLike = ALL) -> List[PermissionChange]:
        out = ctypes.c_void_p()
        _check(_history(ctypes.byref(out), self._store.handle, _category_int(category)))
        return [PermissionChange.from_json(e) for e in json.loads(_native.take_string(out))["changes"]]

    def list(self) -> List[Dict[str, Any]]:
        """Every category with name, state, usage description (see perm_list in gatekit.h)."""
        out = ctypes.c_void_p()
        _call(_list, ctypes.byref(out), self._store.handle)
        categories: List[Dict[str, Any]] = json.loads(_native.take_string(out))["categories"]
        return categories

    # -- changing --

    def record(self, category: CategoryLike, decision: Union[Decision, int]) -> None:
        """The user's pre-prompt answer or the system dialog's result (durable on return)."""
        _call(_record, self._store.handle, _category_int(category), _c_int(decision, "decision", InvalidDecisionError, EPERM_DECISION))

    def reset(self, category: CategoryLike = ALL) -> None:
        """Back to unknown: one category, or every one (ALL)."""
        _call(_reset, self._store.handle, _category_int(category))

    def refresh(self) -> None:
        """Re-reads the store and the provider; callbacks fire on this thread."""
        _call(_refresh, self._store.handle)

    # -- notifications --

    def subscribe(self, callback: Callable[[CategoryLike, Union[State, int], Union[State, int]], None]) -> Subscription:
        """callback(category, old_state, new_state) for every change of an effective state."""
        if not callable(callback):
            raise TypeError("callback must be callable")
        key = _callbacks.add(callback, self)
        token = ctypes.c_int()
        try:
            _check(_subscribe(ctypes.byref(token), self._store.handle, _changed_trampoline, ctypes.c_void_p(key)))
        except BaseException:
            _callbacks.remove(key)
            raise
        self._keys.append(key)
        return Subscription(self._store, token.value, key)

    def watch_start(self, interval_ms: int = 250, provider: bool = False,
                         on_error: Optional[Callable[[BaseException], None]] = None) -> None:
        """Starts the background watcher: changes by other processes reach callbacks ON THE
        WATCHER'S THREAD within ``interval_ms``. Exceptions there go to ``on_error`` (else
        sys.unraisablehook) and ``errors``."""
        self._on_error = on_error
        _watching.add(self)
        _check(_watch_start(self._store.handle, _c_int(interval_ms, "interval_ms"), WATCH_PROVIDER if provider else 0))

    def watch_stop(self) -> bool:
        """Stops the watcher; False when none was running."""
        return _call(_watch_stop, self._store.handle) == 1

    # -- the desktop's permission store --

    def use_portal(self, app_id: Optional[str] = None, *,
                   on_error: Optional[Callable[[BaseException], None]] = None) -> None:
        """Answers the system state from the Linux desktop's permission store (xdg-desktop-portal)
        for ``app_id`` (None: the sandboxed app's own id from /.flatpak-info). Changes arrive
        through the store's D-Bus signal: callbacks run ON GATEKIT'S LISTENER THREAD, their
        exceptions go to ``on_error`` (else sys.unraisablehook). Raises
        :class:`PortalUnavailableError` when the bus or the store cannot be reached now."""
        self._on_error = on_error
        _call(_use_portal, self._store.handle, _native.to_c_string(app_id, "app_id"))

    def portal_map(self, category: CategoryLike, table: Optional[str], id: Optional[str]) -> None:
        """Maps a category to the permission store's entry ``table``/``id`` (both None: no
        portal answer for it)."""
        _call(_portal_map, self._store.handle, _category_int(category), _native.to_c_string(table, "table"),
              _native.to_c_string(id, "id"))

    def portal_status(self) -> Optional[str]:
        """None while answers come from the desktop's permission store; else why they fall back
        to the stored state now. Raises :class:`PortalUnavailableError` when the portal is not
        this store's provider."""
        rc = _portal_status(self._store.handle)
        if rc == 0:
            return None
        error = error_for(rc)
        if "fall back" not in error.detail:
            raise error
        return error.detail

    def _before_close(self, handle: Any) -> None:
        """Before the C handle closes: stop the watcher (its callbacks need this object)."""
        _watch_stop(handle)

    def _forget(self) -> None:
        """After the C handle closed: C can no longer call the callbacks or the provider."""
        for key in self._keys:
            _callbacks.remove(key)
        if self._provider_key is not None:
            _providers.remove(self._provider_key)
