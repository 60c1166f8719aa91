"""scripts/apple-suite.py, the measure of the drop-in (issue 27): it renames Apple's imports
mechanically and counts, per test file of Apple's own suite, what imports and what passes."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT

SUITE = Path(os.environ.get("GATEKIT_FIXTURES", REPO_ROOT.parent / "shared" / "fixtures")) / "apple-library-tests"


def run(*args: str) -> str:
    done = subprocess.run([sys.executable, str(REPO_ROOT / "scripts" / "apple-suite.py"), *args],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_harness_counts_apples_own_library_passing_its_suite():
    if not SUITE.is_dir():
        pytest.skip(f"Apple's suite is not at {SUITE} (GATEKIT_FIXTURES)")
    out = run("--apple", "-k", "AppData or ReceiptUtility")
    assert "test_app_data: 1 passed, 0 failed, 0 skipped" in out
    assert "test_receipt_utility: 3 passed, 0 failed, 0 skipped" in out


def test_the_harness_renames_the_imports_and_reports_what_does_not_import():
    if not SUITE.is_dir():
        pytest.skip(f"Apple's suite is not at {SUITE} (GATEKIT_FIXTURES)")
    out = run("-k", "ReceiptUtility")
    assert "against gatekit.apple" in out
    assert "test_receipt_utility:" in out
    assert "appstoreserverlibrary" not in out  # every import was renamed
