"""Who can read a store, through the Python package: private modes, UnsafeStoreError (also a
PermissionError) for links and other users' files, the group-shared opt-in, and an unusable
$GATEKIT_STORE that is an error rather than another file. (The full matrix, other users and
read-only file systems included, is Tests/c/test_store_access.c.)"""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import gatekit
from conftest import child_env

HASH = gatekit.hash_bytes(b"terms v1")


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_files_are_private_whatever_the_umask(tmp_path):
    old = os.umask(0)
    try:
        path = tmp_path / "new" / "s.sqlite"
        with gatekit.Store(path) as store:
            store.eula.accept("terms", HASH, "alice")
            assert mode(path) == 0o600 and mode(Path(f"{path}-wal")) == 0o600
        assert mode(tmp_path / "new") == 0o700
        shared = tmp_path / "team" / "s.sqlite"
        gatekit.Store(shared, group_shared=True).close()
        assert mode(shared) == 0o660 and mode(tmp_path / "team") == 0o770
    finally:
        os.umask(old)


def test_links_and_writable_stores_are_refused_untouched(tmp_path):
    target = tmp_path / "real.sqlite"
    gatekit.Store(target).close()
    link = tmp_path / "link.sqlite"
    link.symlink_to(target)
    with pytest.raises(gatekit.UnsafeStoreError) as info:
        gatekit.Store(link)
    assert isinstance(info.value, PermissionError) and "symbolic link" in info.value.detail
    before = target.read_bytes()
    target.chmod(0o666)
    with pytest.raises(gatekit.UnsafeStoreError) as info:
        gatekit.Store(target, group_shared=True)
    assert "writable by every user" in info.value.detail and "0666" in info.value.detail
    assert target.read_bytes() == before
    target.chmod(0o660)
    with pytest.raises(gatekit.UnsafeStoreError):
        gatekit.Store(target)
    gatekit.Store(target, group_shared=True).close()


def test_an_unusable_gatekit_store_is_an_error_not_another_file(tmp_path):
    code = ("import gatekit, sys\n"
            "try:\n    gatekit.Store(app_id='com.example.env')\n"
            "except gatekit.InvalidArgumentError as e:\n    print(e.detail); sys.exit(3)\n")
    env = child_env()
    env["XDG_STATE_HOME"] = str(tmp_path)
    env_bytes = {k.encode(): v.encode() for k, v in env.items()}
    env_bytes[b"GATEKIT_STORE"] = b"/tmp/\xff\xfe.sqlite"
    result = subprocess.run([sys.executable, "-c", code], env=env_bytes, capture_output=True, text=True)
    assert result.returncode == 3, result.stderr
    assert "GATEKIT_STORE" in result.stdout and "not valid UTF-8" in result.stdout
    assert not (tmp_path / "gatekit" / "com.example.env.sqlite").exists()
