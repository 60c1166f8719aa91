"""Hardening III, the tool's inputs (docs/hardening.md): every file it reads is bounded, a key
file is judged as a store file is, and an instant that overflows is a usage error."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import REPO_ROOT

TOOL = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))
FIXTURES = Path(os.environ.get("GATEKIT_FIXTURES", REPO_ROOT.parent / "shared" / "fixtures"))
KEY = FIXTURES / "jws" / "apple-test" / "certs" / "testSigningKey.p8"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=60)


def token(key: str) -> subprocess.CompletedProcess:
    return run("appstore", "token", "--key", key, "--key-id", "KEYID", "--issuer-id", "issuer", "--bundle-id", "com.example")


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    if not KEY.is_file():
        pytest.skip(f"Apple's test signing key not found at {KEY} (set GATEKIT_FIXTURES)")
    path = tmp_path / "AuthKey.p8"
    path.write_bytes(KEY.read_bytes())
    path.chmod(0o600)
    return path


def test_a_private_key_file_is_judged_like_a_store_file(key_file: Path, tmp_path: Path):
    ok = token(str(key_file))
    assert ok.returncode == 0 and ok.stdout.count(".") == 2 and ok.stderr == ""
    key_file.chmod(0o644)
    readable = token(str(key_file))
    assert readable.returncode == 0 and "can be read by other users" in readable.stderr and "chmod 600" in readable.stderr
    key_file.chmod(0o666)
    writable = token(str(key_file))
    assert writable.returncode != 0 and "other users can write it" in writable.stderr and writable.stdout == ""
    key_file.chmod(0o600)
    link = tmp_path / "link.p8"
    link.symlink_to(key_file)
    linked = token(str(link))
    assert linked.returncode != 0 and "symbolic link" in linked.stderr
    endless = token("/dev/zero")
    assert endless.returncode != 0 and "not a regular file" in endless.stderr


def test_every_file_input_is_bounded():
    """/dev/zero as a receipt, a certificate or a request: a message, not memory exhausted."""
    receipt = run("receipt", "verify", "--bundle-id", "com.example", "/dev/zero")
    assert receipt.returncode != 0 and "larger than 67108864 bytes" in receipt.stderr
    anchor = run("jws", "verify", "--type", "transaction", "--bundle-id", "com.example", "--environment", "Sandbox",
                 "--test-anchor", "/dev/zero", "/dev/null")
    assert anchor.returncode != 0 and "larger than 1048576 bytes" in anchor.stderr


def test_an_instant_that_overflows_is_a_usage_error(tmp_path: Path):
    for at in ("--at=99999999999999999", "--at-ms=99999999999999999999"):
        r = run("--store", str(tmp_path / "s.sqlite"), "ledger", "entitled", "--environment", "Sandbox", at, "1000", "pro")
        assert r.returncode == 2, (at, r.stdout, r.stderr)
        assert "--at" in r.stderr
    assert not (tmp_path / "s.sqlite").exists()
