"""The package itself: loading, versions, and that every C function is declared."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import gatekit
from gatekit import _native

from conftest import HEADER, PYTHON_DIR, header_functions


def test_version_matches_header():
    text = HEADER.read_text()
    major = int(text.split("#define GATEKIT_VERSION_MAJOR")[1].split()[0])
    minor = int(text.split("#define GATEKIT_VERSION_MINOR")[1].split()[0])
    patch = int(text.split("#define GATEKIT_VERSION_PATCH")[1].split()[0])
    assert gatekit.version() == f"{major}.{minor}.{patch}"
    assert gatekit.version_number() == major * 10000 + minor * 100 + patch


def test_every_header_function_has_a_prototype():
    declared = header_functions()
    assert len(declared) >= 19
    missing = sorted(set(declared) - _native.DECLARED)
    assert missing == [], f"functions without argtypes/restype in the Python package: {missing}"
    for name in declared:
        function = getattr(_native.lib, name)
        assert function.argtypes is not None, name


def _import_in_child(env: dict, package_parent: Path) -> subprocess.CompletedProcess:
    env = dict(env, PYTHONPATH=str(package_parent))
    return subprocess.run([sys.executable, "-c", "import gatekit"], env=env, capture_output=True, text=True,
                          cwd=package_parent)  # not the checkout: "" on sys.path is the cwd


def test_an_explicit_library_path_is_authoritative_and_reported():
    env = dict(os.environ, GATEKIT_LIBRARY="/nonexistent/libgatekit.so")
    result = _import_in_child(env, PYTHON_DIR)
    assert result.returncode != 0
    assert "$GATEKIT_LIBRARY: /nonexistent/libgatekit.so (no such file)" in result.stderr


def test_a_failed_search_lists_every_place_tried(tmp_path: Path):
    shutil.copytree(PYTHON_DIR / "gatekit", tmp_path / "pkg" / "gatekit")
    env = {k: v for k, v in os.environ.items() if k not in ("GATEKIT_LIBRARY", "LD_LIBRARY_PATH")}
    result = _import_in_child(env, tmp_path / "pkg")
    assert result.returncode != 0
    for where in ("next to the package", "build tree", "system"):
        assert where in result.stderr, result.stderr


def test_the_library_next_to_the_package_is_found(tmp_path: Path):
    shutil.copytree(PYTHON_DIR / "gatekit", tmp_path / "pkg" / "gatekit")
    os.symlink(gatekit.library_path(), tmp_path / "pkg" / "gatekit" / "libgatekit.so.0")
    env = {k: v for k, v in os.environ.items() if k != "GATEKIT_LIBRARY"}
    env["PYTHONPATH"] = str(tmp_path / "pkg")
    out = subprocess.run([sys.executable, "-c", "import gatekit; print(gatekit.library_path())"],
                         env=env, capture_output=True, text=True, check=True, cwd=tmp_path).stdout.strip()
    assert out == str(tmp_path / "pkg" / "gatekit" / "libgatekit.so.0")


def test_strerror_and_error_classes():
    assert gatekit.strerror(-1) == "invalid argument"
    assert gatekit.strerror(-424242) == "unknown error"
    assert issubclass(gatekit.InvalidArgumentError, ValueError)
    assert issubclass(gatekit.StoreError, OSError)
