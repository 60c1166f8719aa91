"""`gatekit eula check` on a terminal (a pseudo-terminal here): only "yes" or "no" decides,
anything else asks again, nobody answering records nothing, and a long text goes through
$PAGER."""
from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import termios
import time
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

import gatekit
from conftest import REPO_ROOT, child_env

TOOL = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))


def on_terminal(args: List[str], env: Dict[str, str], answers: List[str], rows: int = 24) -> Tuple[int, str]:
    """Runs the tool with a pseudo-terminal as stdin/stdout/stderr; writes each answer after
    the question appears. Returns the exit code and everything it printed."""
    if not os.path.exists(TOOL):
        pytest.skip(f"the gatekit tool is not built at {TOOL} (make tool)")
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, 80, 0, 0))
    proc = subprocess.Popen([TOOL, *args], stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    out = b""
    pending = list(answers)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the terminal closed: the tool exited
                break
            if not chunk:
                break
            out += chunk
            if pending and out.rstrip().endswith(b"(yes/no)"):
                os.write(master, pending.pop(0).encode() + b"\n")
        elif proc.poll() is not None:
            break
    os.close(master)
    return proc.wait(timeout=30), out.decode("utf-8", "replace")


def setup(tmp_path: Path, text: str) -> Tuple[Path, Dict[str, str], List[str]]:
    eula = tmp_path / "EULA.txt"
    eula.write_text(text)
    env = {k: v for k, v in child_env().items() if k not in ("GATEKIT_ACCEPT_EULA", "PAGER")}
    env["GATEKIT_STORE"] = str(tmp_path / "store.sqlite")
    return eula, env, ["eula", "check", "--doc", "terms", "--file", str(eula)]


def decisions(tmp_path: Path) -> List[str]:
    with gatekit.Store(tmp_path / "store.sqlite") as s:
        return [d.decision for d in s.eula.history("terms")]


def test_an_unclear_answer_asks_again_and_yes_accepts(tmp_path: Path):
    eula, env, check = setup(tmp_path, "Terms\n")
    code, out = on_terminal(check, env, ["maybe", "", "Yes"])
    assert code == 0, out
    assert out.count("(yes/no)") == 3 and out.count('Please answer "yes" or "no"') == 2
    assert decisions(tmp_path) == ["accepted"]


def test_no_declines(tmp_path: Path):
    eula, env, check = setup(tmp_path, "Terms\n")
    code, out = on_terminal(check, env, ["n"])
    assert code == 4, out
    assert decisions(tmp_path) == ["declined"]


def test_nobody_answering_records_nothing(tmp_path: Path):
    eula, env, check = setup(tmp_path, "Terms\n")
    code, out = on_terminal(check, dict(env, GATEKIT_EULA_TIMEOUT="1"), [])
    assert code == 4 and "no answer within 1 s" in out
    assert decisions(tmp_path) == []


def test_a_text_longer_than_the_terminal_goes_through_the_pager(tmp_path: Path):
    long_text = "".join(f"clause {i}\n" for i in range(200))
    eula, env, check = setup(tmp_path, long_text)
    paged = tmp_path / "paged.txt"
    code, out = on_terminal(check, dict(env, PAGER=f"cat > {paged}"), ["yes"], rows=24)
    assert code == 0, out
    assert long_text in paged.read_text() and "clause 150" not in out
    # A text that fits is printed directly.
    short, env2, check2 = setup(tmp_path / "s" if (tmp_path / "s").mkdir() is None else tmp_path, "Short terms\n")
    code, out = on_terminal(check2, dict(env2, PAGER=f"cat > {tmp_path / 'unused.txt'}"), ["yes"])
    assert code == 0 and "Short terms" in out and not (tmp_path / "unused.txt").exists()
