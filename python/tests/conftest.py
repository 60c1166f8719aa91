"""Shared fixtures: a fresh store per test, and how to spawn worker processes."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

PYTHON_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = PYTHON_DIR.parent
HEADER = REPO_ROOT / "include" / "gatekit.h"
WORKER = Path(__file__).resolve().parent / "worker.py"

import gatekit  # noqa: E402  (after the path constants, so a failure names the loader's list)


@pytest.fixture
def store(tmp_path: Path):
    with gatekit.Store(tmp_path / "store.sqlite") as s:
        yield s


def child_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(PYTHON_DIR) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("GATEKIT_LIBRARY", gatekit.library_path())
    return env


def worker(*args: str, **popen) -> subprocess.Popen:
    """Starts tests/worker.py in a new interpreter (sys.executable, not the pyenv shim)."""
    return subprocess.Popen([sys.executable, str(WORKER), *args], env=child_env(), **popen)


def header_functions() -> List[str]:
    names = []
    for line in HEADER.read_text().splitlines():
        if line.startswith("GATEKIT_API"):
            names.append(line.split("(")[0].replace("*", " ").split()[-1])
    return names
