"""Store faults through the Python package: damaged files raise the right exception and stay
byte-for-byte untouched, a store deleted while open refuses writes, `gatekit store check`
exits 5 for damage. (The full fault matrix — disk full, read-only, SIGKILL across processes —
is Tests/c/test_store_faults.c.)"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import gatekit
from conftest import REPO_ROOT, child_env

TOOL = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))


def sound_store(path: Path, decisions: int = 200) -> bytes:
    with gatekit.Store(path) as store:
        for i in range(decisions):
            store.eula.accept(f"doc-{i}", gatekit.hash_bytes(str(i).encode()))
    return path.read_bytes()


def tool_check(path: Path) -> int:
    if not os.access(TOOL, os.X_OK):
        pytest.skip(f"the gatekit tool is not built at {TOOL} (make tool)")
    return subprocess.run([TOOL, "--store", str(path), "store", "check"], env=child_env(),
                          capture_output=True, text=True).returncode


@pytest.mark.parametrize("cut", ["half", "one page", "one byte short"])
def test_a_truncated_store_is_corrupt_and_untouched(tmp_path, cut):
    path = tmp_path / "s.sqlite"
    data = sound_store(path)
    size = {"half": len(data) // 2 // 4096 * 4096, "one page": 4096, "one byte short": len(data) - 1}[cut]
    path.write_bytes(data[:size])
    with pytest.raises(gatekit.CorruptStoreError) as info:
        gatekit.Store(path)
    assert info.value.code == gatekit.errors.ECORRUPT and "untouched" in info.value.detail
    assert path.read_bytes() == data[:size]
    assert tool_check(path) == 5
    assert path.read_bytes() == data[:size]


def test_a_flipped_page_header_is_corrupt_and_untouched(tmp_path):
    path = tmp_path / "s.sqlite"
    data = bytearray(sound_store(path))
    data[4096] ^= 0x40  # page 2's b-tree page type
    path.write_bytes(bytes(data))
    with pytest.raises(gatekit.CorruptStoreError):
        gatekit.Store(path)
    assert path.read_bytes() == bytes(data)
    assert tool_check(path) == 5


def test_a_foreign_file_is_not_a_store(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes(b"just some notes\n" * 10)
    with pytest.raises(gatekit.NotAStoreError):
        gatekit.Store(path)
    assert path.read_bytes() == b"just some notes\n" * 10
    assert tool_check(path) == 5


def test_a_store_deleted_while_open_refuses_writes(tmp_path):
    path = tmp_path / "s.sqlite"
    h = gatekit.hash_bytes(b"terms")
    with gatekit.Store(path) as store:
        store.eula.accept("terms", h)
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        with pytest.raises(gatekit.StoreError) as info:
            store.eula.accept("terms", h, user="later")
        assert info.value.code == gatekit.errors.EIO and "deleted or replaced" in info.value.detail
        assert not store.eula.should_present_hash("terms", h)  # reads still answer
    assert not path.exists()


def test_a_sound_store_checks_clean(tmp_path):
    path = tmp_path / "s.sqlite"
    sound_store(path, 20)
    with gatekit.Store(path) as store:
        store.check()
    assert tool_check(path) == 0
