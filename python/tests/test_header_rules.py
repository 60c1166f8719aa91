"""The conventions gatekit.h states are checked (issue 45): scripts/gen-abi.py's rules() runs in
`make test` (test-abi, first) over the real headers, and here over copies of them with one
convention broken at a time — each break must be named."""
from __future__ import annotations

import runpy
import shutil
from pathlib import Path
from typing import Callable, Dict, List

import pytest

from conftest import REPO_ROOT


def rules_over(tmp_path: Path, edit: Callable[[Path], None]) -> List[str]:
    include = tmp_path / "include"
    shutil.copytree(REPO_ROOT / "include", include)
    symbols = tmp_path / "libgatekit0.symbols"
    shutil.copy(REPO_ROOT / "packaging" / "debian" / "libgatekit0.symbols", symbols)
    edit(tmp_path)
    rules = runpy.run_path(str(REPO_ROOT / "scripts" / "gen-abi.py"), run_name="gen_abi")["rules"]
    module: Dict[str, object] = rules.__globals__   # run_path returns a copy; the functions read these
    module.update(HEADERS=[include / "gatekit.h", *sorted((include / "gatekit").glob("*.h"))], SYMBOLS=symbols, ROOT=tmp_path)
    return rules()  # type: ignore[no-any-return]


def replace(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def test_the_real_headers_keep_every_rule(tmp_path: Path):
    assert rules_over(tmp_path, lambda root: None) == []


@pytest.mark.parametrize("header, old, new, named", [
    ("perm.h", "GATEKIT_API GATEKIT_WARN_UNUSED int perm_portal_status", "GATEKIT_API int perm_portal_status",
     "perm_portal_status reports failures"),
    ("ledger.h", "int ledger_catalog(char **out_json,", "int ledger_catalog(char **out,", "ledger_catalog: text comes out as out_<what>"),
    ("ledger.h", "int ledger_catalog(char **out_json, gatekit_store *store, long long at_ms)",
     "int ledger_catalog(gatekit_store *store, char **out_json, long long at_ms)", "ledger_catalog: output parameters come first"),
    ("store.h", "gatekit_store **out,", "gatekit_store **out_store,", "the one handle or struct a function fills is named out"),
    ("jws.h", "#define GATEKIT_JWS_OPTIONS_VERSION 2u", "#define GATEKIT_JWS_OPTIONS_VERSION 2", "GATEKIT_JWS_OPTIONS_VERSION 2: struct versions are unsigned"),
    ("ledger_sync.h", "Since 0.2.0. ", "", "ledger_sync_options_init: the header says since 0.1.0"),
    ("../gatekit.h", ", gatekit_eula_presentation)", ")", "list of output structs"),
])
def test_each_broken_convention_is_named(tmp_path: Path, header: str, old: str, new: str, named: str):
    broken = rules_over(tmp_path, lambda root: replace(root / "include" / "gatekit" / header, old, new))
    assert any(named in rule for rule in broken), broken


def test_a_since_mark_must_match_the_symbols_file(tmp_path: Path):
    def release_it_earlier(root: Path) -> None:
        replace(root / "libgatekit0.symbols", " ledger_metrics@Base 0.2.0", " ledger_metrics@Base 0.1.0")
    assert any("ledger_metrics: the header says since 0.2.0" in rule for rule in rules_over(tmp_path, release_it_earlier))
