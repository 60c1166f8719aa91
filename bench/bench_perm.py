"""perm_state from Python: the ctypes overhead separated from the library's own cost.

Rows (median ns per call over batches, all in this run):
  - ctypes floor: perm_allows_prompt(0), a trivial export (argument conversion + FFI call),
  - raw ctypes perm_state(store, camera): the floor plus the library's work,
  - Store.permissions.state(Category.CAMERA): the binding (checks, State enum) on top,
  - the stdlib sqlite3 module running the equivalent SELECT on the same file (reference),
  - Store.perm_record durable write (median µs of single calls).
"""
from __future__ import annotations

import ctypes
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import gatekit
from gatekit import Category, Decision
from gatekit import permissions

BATCH = 2000
SAMPLES = 101


def per_call_ns(body) -> list:
    for _ in range(5):
        body()
    out = []
    for _ in range(SAMPLES):
        t0 = time.perf_counter_ns()
        body()
        out.append((time.perf_counter_ns() - t0) / BATCH)
    return sorted(out)


def row(name: str, values: list, unit: str = "ns", scale: float = 1.0, runs: str = "") -> None:
    n = len(values)
    fmt = (lambda v: f"{v / scale:.0f} {unit}") if unit == "ns" else (lambda v: f"{v / scale:.1f} {unit}")
    print(f"| {name} | {fmt(statistics.median(values))} | {fmt(values[n // 10])} | {fmt(values[n * 9 // 10])} | "
          f"{runs or n} |")


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="gatekit-bench-perm-py-"))
    path = folder / "store.sqlite"
    store = gatekit.Store(path)
    store.permissions.set_usage_description(Category.CAMERA, "bench")
    store.permissions.set_usage_description(Category.MICROPHONE, "bench")
    store.permissions.record(Category.CAMERA, Decision.DONT_ASK)

    writes = []
    for i in range(105):
        t0 = time.perf_counter_ns()
        store.permissions.record(Category.MICROPHONE, Decision.ASK_LATER)
        if i >= 5:
            writes.append(time.perf_counter_ns() - t0)
    writes.sort()
    allows = permissions._allows_prompt
    raw_state = permissions._state
    handle = store.handle
    camera = int(Category.CAMERA)
    db = sqlite3.connect(str(path))
    query = "SELECT state FROM perm_states WHERE category = ?"

    def floor():
        for _ in range(BATCH):
            allows(0)

    def raw():
        for _ in range(BATCH):
            raw_state(handle, camera)

    def binding():
        for _ in range(BATCH):
            store.permissions.state(Category.CAMERA)

    def sqlite_module():
        for _ in range(BATCH):
            db.execute(query, (camera,)).fetchone()

    floor_ns, raw_ns, binding_ns, sqlite_ns = per_call_ns(floor), per_call_ns(raw), per_call_ns(binding), per_call_ns(sqlite_module)
    print("\n### Permissions from Python: perm_state and its ctypes overhead\n")
    print("| measurement | median | p10 | p90 | runs |\n|---|---:|---:|---:|---:|")
    runs = f"{SAMPLES}×{BATCH}"
    row("ctypes floor: perm_allows_prompt(0) (trivial export)", floor_ns, runs=runs)
    row("raw ctypes perm_state(store, camera)", raw_ns, runs=runs)
    row("Store.permissions.state(Category.CAMERA) (binding)", binding_ns, runs=runs)
    row("stdlib sqlite3: SELECT state ... WHERE category = ? (reference)", sqlite_ns, runs=runs)
    m = statistics.median
    print(f"| raw ctypes perm_state − floor (store-pointer argument + library work) | **{m(raw_ns) - m(floor_ns):.0f} ns** | | | |")
    print(f"| binding overhead (Store.perm_state − raw ctypes) | **{m(binding_ns) - m(raw_ns):.0f} ns** | | | |")
    print(f"| ratio Store.perm_state / sqlite3 SELECT | **{m(binding_ns) / m(sqlite_ns):.2f}×** | | | |")

    db.close()
    row("Store.permissions.record(MICROPHONE, ASK_LATER), durable", writes, unit="µs", scale=1000.0)
    store.close()
    for f in folder.iterdir():
        f.unlink()
    folder.rmdir()


if __name__ == "__main__":
    sys.exit(main())
