"""ctypes.CDLL + first call, each in a fresh interpreter, vs. libsqlite3 as the reference."""
from __future__ import annotations

import statistics
import subprocess
import sys

CHILD = """
import ctypes, time
t0 = time.perf_counter_ns()
lib = ctypes.CDLL({path!r})
assert getattr(lib, {symbol!r})() > 0
print(time.perf_counter_ns() - t0)
"""


def sample(path: str, symbol: str, runs: int) -> list:
    code = CHILD.format(path=path, symbol=symbol)
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)  # warm caches
    return sorted(int(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                                     text=True).stdout) for _ in range(runs))


def row(name: str, values: list) -> None:
    n = len(values)
    print(f"| {name} | {statistics.median(values) / 1e3:.1f} µs | {values[n // 10] / 1e3:.1f} µs | "
          f"{values[n * 9 // 10] / 1e3:.1f} µs | {n} |")


def main() -> None:
    library = sys.argv[1]
    print("\n### Load: ctypes.CDLL + first call from Python, fresh interpreter each run\n")
    print("| measurement | median | p10 | p90 | runs |\n|---|---:|---:|---:|---:|")
    ref = sample("libsqlite3.so.0", "sqlite3_libversion_number", 30)
    gk = sample(library, "gatekit_version_number", 30)
    row("libsqlite3.so.0 (reference)", ref)
    row("libgatekit.so (toolchain-free)", gk)
    print(f"| ratio libgatekit / libsqlite3 | **{statistics.median(gk) / statistics.median(ref):.2f}×** | | | |")


if __name__ == "__main__":
    main()
