"""The consent export at a million rows: wall time and the process's peak memory (RSS) while
`eula_export` writes and `eula_verify_export` checks 1,000,010 decisions, on SQLite and on
PostgreSQL (GATEKIT_TEST_POSTGRES, which `make bench` starts). The export must stream: its
memory may not grow with the rows. Ten decisions are made through GateKit; the million are
inserted with SQL in one transaction (the history's triggers refuse only UPDATE and DELETE),
each with method, address, user agent, locale, a metadata pair and the text's language.

    BENCH=eula make bench            (BENCH_EULA_MILLION_ROWS=N for another size)
"""
from __future__ import annotations

import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "python"))
import gatekit  # noqa: E402

ROWS = int(os.environ.get("BENCH_EULA_MILLION_ROWS", "1000000"))
COLUMNS = ("document_id, user_name, hash, decision, at_ms, method, client_address, user_agent, locale, metadata, language")
CONSENT = "1, '203.0.113.40', 'Mozilla/5.0 (X11; Linux x86_64) Bench/1.0', 'en-GB', '{\"form\":\"signup-v3\"}', 'en'"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def fill(store: "gatekit.Store", backend: str, where: str, app: str) -> None:
    digest = gatekit.hash_bytes(b"terms")
    store.eula.publish("terms", "v1", {"en": b"terms"}, default_language="en")
    for i in range(10):
        store.eula.accept("terms", digest, user=f"gk-{i}")
    if backend == "SQLite":
        db = sqlite3.connect(where)
        with db:
            db.executemany(f"INSERT INTO eula_decisions({COLUMNS}) VALUES ('terms', ?, ?, 1, ?, {CONSENT})",
                           ((f"user-{i}".encode(), digest, 1767225600000 + i) for i in range(ROWS)))
        db.close()
    else:
        subprocess.run(["psql", "-q", where, "-c",
                        f'SET search_path TO "gatekit/{app}"; INSERT INTO eula_decisions({COLUMNS}) '
                        f"SELECT 'terms', convert_to('user-' || i, 'UTF8'), '{digest}', 1, 1767225600000 + i, {CONSENT} "
                        f"FROM generate_series(1, {ROWS}) AS i; ANALYZE eula_decisions;"], check=True)


def measure(backend: str, where: str, folder: Path) -> str:
    app = f"bench-million-{os.getpid()}"
    store = gatekit.Store(path=where, app_id=None if backend == "SQLite" else app)
    fill(store, backend, where, app)
    before = peak_rss_mb()
    out = folder / f"export-{backend}.jsonl"
    start = time.perf_counter()
    with open(out, "wb") as f:
        exported = store.eula.export(f, everyone=True)
    export_s = time.perf_counter() - start
    start = time.perf_counter()
    verified = store.eula.verify_export(out)
    verify_s = time.perf_counter() - start
    size = out.stat().st_size
    out.unlink()
    store.close()
    assert exported == verified == ROWS + 10, (exported, verified)
    return (f"| {backend} | {exported:,} | {export_s:.1f} s ({exported / export_s:,.0f} rows/s) | "
            f"{verify_s:.1f} s ({verified / verify_s:,.0f} rows/s) | {size / 1e6:,.0f} MB | {before:.0f} MB → {peak_rss_mb():.0f} MB |")


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="gatekit-bench-million-"))
    try:
        print(f"\n### EULA: the consent export of a million decisions (one process; peak RSS before → after)\n")
        print("| store | decisions | eula_export to a file | eula_verify_export | file | peak RSS |")
        print("|---|---:|---:|---:|---:|---:|")
        print(measure("SQLite", str(folder / "store.sqlite"), folder), flush=True)
        server = os.environ.get("GATEKIT_TEST_POSTGRES")
        if server and shutil.which("psql"):
            print(measure("PostgreSQL", server, folder), flush=True)
        else:
            print("SKIP: the PostgreSQL row (no GATEKIT_TEST_POSTGRES or no psql; make bench starts a server)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
