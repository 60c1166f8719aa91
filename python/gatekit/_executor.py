"""The bounded pool of threads every GateKit async client runs its blocking libgatekit calls
on: ctypes releases the GIL while libcurl waits, so the event loop never blocks and no thread
is made per call."""
from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import threading
from typing import Any, Callable, Optional, TypeVar

__all__ = ["POOL_SIZE", "run_blocking", "shared_pool"]

T = TypeVar("T")
POOL_SIZE = 16
_pool: Optional[concurrent.futures.ThreadPoolExecutor] = None
_lock = threading.Lock()


def shared_pool() -> concurrent.futures.ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = concurrent.futures.ThreadPoolExecutor(max_workers=POOL_SIZE, thread_name_prefix="gatekit-async")
        return _pool


async def run_blocking(call: Callable[..., T], *args: Any) -> T:
    """``call(*args)`` on the shared pool, awaited."""
    return await asyncio.get_running_loop().run_in_executor(shared_pool(), functools.partial(call, *args))
