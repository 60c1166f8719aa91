"""What a core layer shares upward is `package` unless the export layer uses it (issue 45):
scripts/check-access.py finds public declarations of Sources/GateKitCore that
Sources/GateKit never needs. It runs over the tree here, and over a copy with one public
declaration too many, which it must name."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT


def check(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(root / "scripts" / "check-access.py")], capture_output=True, text=True)


def test_the_core_shares_upward_only_what_the_export_layer_uses():
    done = check(REPO_ROOT)
    assert done.returncode == 0, done.stdout[-3000:]


def test_a_public_declaration_no_one_needs_is_named(tmp_path: Path):
    for folder in ("scripts", "Sources"):
        shutil.copytree(REPO_ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("*.o", ".build*"))
    quoted = tmp_path / "Sources" / "GateKitCore" / "Support" / "Quoted.swift"
    text = quoted.read_text()
    assert "public enum Quoted" in text
    quoted.write_text(text + "\npublic enum NobodyNeedsThis { case one }\n")
    done = check(tmp_path)
    assert done.returncode == 1 and "NobodyNeedsThis is public but the export layer never needs it" in done.stdout, done.stdout[-2000:]
