"""Shared fixtures: a fresh store per test, and how to spawn worker processes."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import pytest

PYTHON_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = PYTHON_DIR.parent
HEADER = REPO_ROOT / "include" / "gatekit.h"
#: The umbrella and the domain headers it includes: the whole contract.
HEADERS = [HEADER, *sorted((REPO_ROOT / "include" / "gatekit").glob("*.h"))]


def header_text() -> str:
    return "\n".join(h.read_text() for h in HEADERS)
WORKER = Path(__file__).resolve().parent / "worker.py"

import gatekit  # noqa: E402  (after the path constants, so a failure names the loader's list)


#: "pgbouncer": the PostgreSQL store through Debian's PgBouncer in transaction mode (a pool of 4
#: server connections; no listen connection, so nothing is cached across processes).
BACKENDS = ["sqlite", "postgresql", "pgbouncer"]


def _service(variable: str, what: str) -> str:
    """A service scripts/with-postgres.sh started, by its variable; `make test` must have it."""
    conninfo = os.environ.get(variable)
    if conninfo:
        return conninfo
    if os.environ.get("GATEKIT_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"GATEKIT_REQUIRE_POSTGRES=1 but no {what}: run the suite through scripts/with-postgres.sh")
    pytest.skip(f"no {what} ({variable} unset): run `make test`, which starts one")


def postgres_server() -> str:
    """The test server's libpq string."""
    return _service("GATEKIT_TEST_POSTGRES", "PostgreSQL test server")


def pooled_server() -> str:
    """The test database through the test PgBouncer (transaction mode, a pool of 4)."""
    return _service("GATEKIT_TEST_POSTGRES_POOLED", "test PgBouncer")


# Where a test's store lives: (path or connection string, app id). The same name in one test
# is the same store, on either backend; PostgreSQL stores get a fresh app id (schema) per test.
StoreLocation = Tuple[str, Optional[str]]


#: The contract suites that run through the pooler too (Issue 48: EULA, permissions, ledger,
#: feed, metrics, grants; the sync's contract runs through it in the Swift and C suites, LedgerSyncTests
#: and test_ledger_sync); the others' PostgreSQL concerns (faults, hosting, hardening) are the
#: direct server's, and test_pooler.py has the pooler's own.
POOLED_MODULES = {"test_eula", "test_permissions", "test_ledger", "test_ledger_feed", "test_ledger_insight", "test_ledger_grants"}


def pytest_generate_tests(metafunc) -> None:
    """Every test that uses a store location runs once per backend of its module (unless it
    names its own)."""
    chosen = any(m.args and m.args[0] == "backend" for m in metafunc.definition.iter_markers("parametrize"))
    if "backend" in metafunc.fixturenames and not chosen:
        module = metafunc.module.__name__.rsplit(".", 1)[-1]
        metafunc.parametrize("backend", BACKENDS if module in POOLED_MODULES else BACKENDS[:2])


@pytest.fixture
def store_location(backend: str, tmp_path: Path) -> Callable[[str], StoreLocation]:
    run = uuid.uuid4().hex[:12]

    def location(name: str = "store") -> StoreLocation:
        if backend == "sqlite":
            return str(tmp_path / f"{name}.sqlite"), None
        return (pooled_server() if backend == "pgbouncer" else postgres_server()), f"test.{run}.{name}"
    return location


# Each open store's location, for handing it to another process.
_LOCATIONS: Dict[int, StoreLocation] = {}


@pytest.fixture
def open_store(store_location) -> Callable[..., "gatekit.Store"]:
    def opener(name: str = "store") -> gatekit.Store:
        where, app_id = store_location(name)
        s = gatekit.Store(where, app_id=app_id)
        _LOCATIONS[id(s)] = (where, app_id)
        return s
    return opener


def location_of(store: "gatekit.Store") -> StoreLocation:
    return _LOCATIONS.get(id(store), (store.path, None))


@pytest.fixture
def store(open_store):
    with open_store() as s:
        yield s


def utc(seconds: Optional[float] = None, *, ms: Optional[int] = None) -> datetime:
    """An aware UTC datetime from Unix seconds or milliseconds (the package takes no bare numbers)."""
    if ms is not None:
        return datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=ms)
    assert seconds is not None
    return datetime.fromtimestamp(seconds, timezone.utc)


# The examples/ programs run in their own interpreter: by default this one with the package
# from python/; under `make test-dist` (GATEKIT_EXAMPLE_PYTHON) the interpreter of a fresh
# virtualenv that holds nothing but the libgatekit wheel, with a clean environment — no
# PYTHONPATH, no GATEKIT_LIBRARY, no Swift toolchain on PATH — as after `pip install`.
EXAMPLE_PYTHON = os.environ.get("GATEKIT_EXAMPLE_PYTHON")


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "example: runs a README program from examples/ (make test-dist runs these "
                                       "again from the installed wheel)")
    config.addinivalue_line("markers", "alone: changes what every test shares (restarts the PostgreSQL server): "
                                       "`make test` runs these after the parallel run, one by one")


#: Modules whose tests set the one world of a stand-in that `make test` starts (the Play and
#: Stripe stand-ins keep a single world; the App Store stand-in's are per bundle id). Under
#: pytest-xdist (`make test` runs two workers) each group's tests run on one worker, in turn.
SHARED_WORLDS = {
    "play-standin": {"test_play", "test_play_hostile", "test_play_second_hour", "test_ledger_play", "test_ledger_play_hostile"},
    "stripe-standin": {"test_stripe_api", "test_endpoints"},
}


#: The modules that hold tests marked `alone`: `make test` runs these files by themselves
#: (Makefile, ALONE_TESTS) after the parallel run, which leaves every `alone` test out.
ALONE_MODULES = {"test_postgres"}


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups off the markers
def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if item.module else ""
        if item.get_closest_marker("alone") and module not in ALONE_MODULES:
            raise pytest.UsageError(f"{item.nodeid} is marked alone: add {module} to ALONE_MODULES (conftest.py) and ALONE_TESTS (Makefile)")
        for group, modules in SHARED_WORLDS.items():
            if module in modules:
                item.add_marker(pytest.mark.xdist_group(group))


def example(name: str) -> List[str]:
    """The command that runs examples/<name>."""
    return [EXAMPLE_PYTHON or sys.executable, str(REPO_ROOT / "examples" / name)]


def example_env(**extra: str) -> Dict[str, str]:
    if EXAMPLE_PYTHON:
        env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/"), "LANG": "C.UTF-8"}
    else:
        env = child_env()
    env.update(extra)
    return env


def child_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(PYTHON_DIR) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("GATEKIT_LIBRARY", gatekit.library_path())
    return env


def worker(command: str, location: StoreLocation, *args: str, **popen) -> subprocess.Popen:
    """Starts tests/worker.py in a new interpreter (sys.executable, not the pyenv shim) on the
    store at `location`."""
    where, app_id = location
    return subprocess.Popen([sys.executable, str(WORKER), command, where, app_id or "", *args], env=child_env(), **popen)


def header_functions() -> List[str]:
    names = []
    for line in header_text().splitlines():
        if line.startswith("GATEKIT_API"):
            names.append(line.split("(")[0].replace("*", " ").split()[-1])
    return names


SYSTEMD = REPO_ROOT / "examples" / "systemd"


def systemd_exec_start(unit: str, variables: Dict[str, str]) -> List[str]:
    """examples/systemd/<unit>'s ExecStart as systemd runs it: ${VAR} is one word, $VAR splits
    on white space."""
    line = next(l for l in (SYSTEMD / unit).read_text().splitlines() if l.startswith("ExecStart="))
    words: List[str] = []
    for word in line[len("ExecStart="):].split():
        whole, split = re.fullmatch(r"\$\{(\w+)\}", word), re.fullmatch(r"\$(\w+)", word)
        if whole:
            words.append(variables[whole.group(1)])
        elif split:
            words.extend(variables[split.group(1)].split())
        else:
            words.append(word)
    return words


def systemd_environment(env_file: str) -> Dict[str, str]:
    """The variables examples/systemd/<env_file> documents."""
    return dict(line.split("=", 1) for line in (SYSTEMD / env_file).read_text().splitlines() if line and not line.startswith("#"))
