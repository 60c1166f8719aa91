"""The package itself: loading, versions, and that every C function is declared."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gatekit
from gatekit import _native

from conftest import HEADER, PYTHON_DIR, header_functions, header_text


def test_version_matches_header():
    text = header_text()
    major = int(text.split("#define GATEKIT_VERSION_MAJOR")[1].split()[0])
    minor = int(text.split("#define GATEKIT_VERSION_MINOR")[1].split()[0])
    patch = int(text.split("#define GATEKIT_VERSION_PATCH")[1].split()[0])
    assert gatekit.version() == f"{major}.{minor}.{patch}"
    assert gatekit.version_number() == major * 10000 + minor * 100 + patch


def test_every_header_function_has_its_generated_prototype():
    """_bindings.py is generated from the header (scripts/gen-abi.py; `make check` fails when it
    is stale): every function has its prototype on the loaded library, and no other module
    declares one by hand."""
    from gatekit import _bindings
    declared = header_functions()
    assert len(declared) >= 130
    for name in declared:
        function = getattr(_native.lib, name)
        bound = getattr(_bindings, name)
        assert getattr(bound, "__wrapped__", bound) is function, name  # range-checked when it takes integers
        assert function.argtypes is not None, name
    hand_written = [p.name for p in sorted((PYTHON_DIR / "gatekit").glob("*.py"))
                    if p.name != "_bindings.py" and (".argtypes" in p.read_text() or "ctypes.Structure" in p.read_text())]
    assert hand_written == []


def test_every_exported_name_has_its_areas_prefix():
    """The header's naming rule: each function starts with one of the ten area prefixes."""
    prefixes = ("gatekit_", "eula_", "receipt_", "perm_", "jws_", "ledger_", "appstore_", "play_", "stripe_", "webhook_")
    stray = [name for name in header_functions() if not name.startswith(prefixes)]
    assert stray == []
    assert "(gatekit_, eula_, receipt_, perm_, jws_,\n *     ledger_, appstore_, play_, stripe_, webhook_)" in header_text()


def test_no_module_reaches_into_another_modules_private_names():
    """Modules share through the package's private modules (_bindings, _structs, _native, _time,
    _result, _managed), never by importing or reading another module's private names."""
    import ast
    shared = {"_bindings", "_native", "_time", "_managed", "_result", "_structs"}
    offenders = []
    for path in sorted((PYTHON_DIR / "gatekit").glob("*.py")):
        tree = ast.parse(path.read_text())
        siblings = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module is None:  # from . import x, y as z
                    siblings |= {a.asname or a.name for a in node.names if a.name not in shared}
                elif node.module not in shared:
                    offenders += [f"{path.name}: from .{node.module} import {a.name}" for a in node.names
                                  if a.name.startswith("_")]
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in siblings \
                    and node.attr.startswith("_") and not node.attr.startswith("__"):
                offenders.append(f"{path.name}: {node.value.id}.{node.attr}")
        offenders += [f"{path.name}:{line}: {text}" for line, text in private_reaches(tree)]
    assert offenders == []


def private_reaches(tree: "ast.AST") -> "List[Tuple[int, str]]":
    """`x._name` where x is another object: not self or cls, not a class of the same module (a
    subclass reads its base's class attributes), not a module outside the package (ctypes), and
    not an enum's _sunder_ names. self._store._handle and owner._on_error are such reaches."""
    import ast
    classes = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    foreign_modules = {"ctypes", "sys", "os", "enum", "typing", "dataclasses", "threading"}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")):
            continue
        if node.attr.endswith("_") and not node.attr.endswith("__"):   # enum's _value2member_map_
            continue
        if isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"} | classes | foreign_modules:
            continue
        found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_private_reach_check_finds_reaches():
    import ast
    tree = ast.parse("class A:\n    def f(self, other):\n        return self._x, other._y, self._store._handle, A._z\n")
    assert [text for _, text in private_reaches(tree)] == ["other._y", "self._store._handle"]


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
    for where in ("next to the package", "system"):
        assert where in result.stderr, result.stderr
    # Outside a GateKit checkout there is no build tree to look in; the message says how to install.
    assert "build tree" not in result.stderr
    assert "pip install libgatekit" in result.stderr and "apt-get install libgatekit0" in result.stderr


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


def header_defines() -> dict:
    """Every integer #define of include/gatekit.h: name without GATEKIT_ -> value."""
    found = {}
    for name, value in re.findall(r"^#define GATEKIT_(\w+)\s+\(?(-?(?:0x[0-9A-Fa-f]+|\d+))u?\)?\s*(?:/\*.*)?$",
                                  header_text(), re.M):
        found[name] = int(value, 0)
    return found


def test_every_code_and_number_the_package_spells_is_the_headers():
    """One definition per number: each E* code, receipt attribute, in-app field and flag the
    Python package names exists in the header under that name with that value, and every
    code in the header is spelled the same way somewhere in the package."""
    from gatekit import api_client, appstore, errors, eula, eula_versions, jws, ledger, permissions, play, receipt, store, stripe, webhooks
    header = header_defines()
    assert len(header) > 100
    spelled = {}
    for module in (errors, receipt, jws, permissions, appstore, api_client, eula, eula_versions, play, stripe, webhooks):
        for name, value in vars(module).items():
            if re.fullmatch(r"E[A-Z_0-9]+|RECEIPT_[A-Z_0-9]+|IAP_[A-Z_0-9]+", name) and isinstance(value, int):
                assert header.get(name) == value, f"{module.__name__}.{name} = {value}; the header says {header.get(name)}"
                spelled[name] = value
    codes = {n for n in header if n.startswith("E") and header[n] < 0}
    assert codes - set(spelled) == set(), f"header codes the package does not name: {sorted(codes - set(spelled))}"
    assert header["RECEIPT_OPTIONS_VERSION"] == receipt.OPTIONS_VERSION
    assert header["JWS_OPTIONS_VERSION"] == jws.OPTIONS_VERSION
    assert header["JWS_TEST_PRODUCTION"] == jws.TEST_PRODUCTION
    assert header["STORE_GROUP_SHARED"] == store.GROUP_SHARED
    assert (header["RECEIPT_REQUIRE_SHA256"], header["RECEIPT_PRODUCTION_ONLY"], header["RECEIPT_SANDBOX_ONLY"]) == \
        (receipt.REQUIRE_SHA256, receipt.PRODUCTION_ONLY, receipt.SANDBOX_ONLY)
    assert (header["LEDGER_QUERY_VERSION"], header["ENTITLEMENT_VERSION"], header["LEDGER_TEST_SIGNED"]) == \
        (ledger.QUERY_VERSION, ledger.ENTITLEMENT_VERSION, ledger.TEST_SIGNED)
    # The enumerations (Reason, State, …) are generated from the header (_enums.py, gen-abi):
    # nothing to compare; their behaviour is the library's (test_enumerations_ask_the_library).


def test_enumerations_ask_the_library():
    """Reason.entitles, State.allows_prompt and the names come from C, not a copy of its rules."""
    from gatekit import permissions
    from gatekit._enums import Category, Reason, State
    assert [r.name for r in Reason if r.entitles] == ["SUBSCRIPTION", "GRACE_PERIOD", "NON_CONSUMABLE", "NON_RENEWING"]
    assert Reason.NO_PURCHASE.wire_name == "no-purchase" and Reason.UNKNOWN_NAME.wire_name == "unknown-name"
    assert [s.name for s in State if s.allows_prompt] == ["UNKNOWN", "ASK_AGAIN"] and str(State.DO_NOT_ASK) == "do-not-ask"
    assert str(Category.LOCATION_ALWAYS) == "location-always" and permissions.Category is Category
    assert gatekit.ledger.Reason is Reason and permissions.HOST_FIRST == header_defines()["PERM_HOST_FIRST"]


def test_the_version_has_one_source():
    """include/gatekit.h defines the version; the library, pyproject.toml and the build-tree
    gatekit.pc repeat it and must agree."""
    header = header_text()
    version = re.search(r'#define GATEKIT_VERSION_STRING "([^"]+)"', header).group(1)
    assert gatekit.version() == version
    assert gatekit.__version__ == version
    assert re.search(r'^version = "([^"]+)"', (PYTHON_DIR / "pyproject.toml").read_text(), re.M).group(1) == version
    assert re.search(r"^Version: (\S+)", (PYTHON_DIR.parent / "pkgconfig" / "gatekit.pc").read_text(), re.M).group(1) == version


def test_the_store_is_composed_and_every_handle_is_managed(tmp_path):
    """store.eula and store.permissions are parts, not mixins; Store and Receipt share one
    managed-handle base: close() is idempotent, both are context managers, a closed handle
    raises ValueError instead of reaching C."""
    from gatekit._managed import Managed
    from gatekit.eula import Eula
    from gatekit.permissions import Permissions
    store = gatekit.Store(tmp_path / "s.sqlite")
    assert isinstance(store, Managed) and isinstance(store.eula, Eula) and isinstance(store.permissions, Permissions)
    assert not any(name.startswith(("eula_", "perm_")) for name in dir(store))
    store.eula.accept("terms", gatekit.hash_bytes(b"t"))
    store.close()
    store.close()
    assert store.closed
    with pytest.raises(ValueError):
        store.eula.should_present_hash("terms", gatekit.hash_bytes(b"t"))
    with gatekit.Store(tmp_path / "s.sqlite") as again:
        assert not again.eula.should_present_hash("terms", gatekit.hash_bytes(b"t"))
    assert again.closed
    assert issubclass(gatekit.Receipt, Managed)


def test_every_module_declares_what_it_exports():
    import importlib
    for name in ("gatekit", "gatekit.errors", "gatekit.eula", "gatekit.jws", "gatekit.permissions",
                 "gatekit.receipt", "gatekit.store", "gatekit._native", "gatekit._managed", "gatekit.api_client",
                 "gatekit.api_models", "gatekit.testing", "gatekit.ledger", "gatekit.ledger_insight"):
        module = importlib.import_module(name)
        assert isinstance(getattr(module, "__all__", None), list), name
        for exported in module.__all__:
            assert hasattr(module, exported), f"{name}.__all__ names {exported}, which it does not define"


def test_one_name_means_one_class_across_the_package():
    """No two modules of the package define different classes under one name (gatekit.jws's
    verified results and Apple's models once both had an AppTransaction and a ResponseBodyV2),
    and no module re-exports another's whole namespace: each class has one home."""
    import importlib
    import inspect
    import pkgutil
    homes: dict = {}
    for info in pkgutil.walk_packages(gatekit.__path__, "gatekit."):
        if info.name.startswith("gatekit.apple") or info.name.rsplit(".", 1)[-1].startswith("_"):
            continue   # gatekit.apple is Apple's library at Apple's paths and names (subclasses, re-exports)
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if inspect.isclass(value) and value.__module__ == info.name and not name.startswith("_"):
                homes.setdefault(name, set()).add(info.name)
    clashes = {name: sorted(modules) for name, modules in homes.items() if len(modules) > 1}
    assert not clashes, f"one name, several classes: {clashes}"
    assert len(homes) > 100   # the walk found the package's classes
    sources = sorted((PYTHON_DIR / "gatekit").rglob("*.py"))
    starred = [str(p.relative_to(PYTHON_DIR)) for p in sources if re.search(r"^from \.[\w.]* import \*", p.read_text(), re.M)
               and "/apple/" not in str(p)]
    assert starred == [], f"whole namespaces re-exported: {starred}"


def test_renamed_results_still_answer_with_a_warning():
    import warnings
    from gatekit import api_client, api_models, jws
    for old, new in (("AppTransaction", jws.JWSAppTransaction), ("ResponseBodyV2", jws.JWSNotification),
                     ("ExternalPurchaseToken", jws.NotificationExternalPurchaseToken)):
        with pytest.warns(DeprecationWarning, match=new.__name__):
            assert getattr(jws, old) is new
    from gatekit import receipt
    with pytest.warns(DeprecationWarning, match="ReceiptProductType"):
        assert receipt.ProductType is receipt.ReceiptProductType
    with pytest.warns(DeprecationWarning, match="gatekit.api_models.ConsumptionRequest"):
        assert api_client.ConsumptionRequest is api_models.ConsumptionRequest
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError):
            getattr(jws, "NoSuchResult")


def test_submodules_load_on_first_use():
    """A launch check pays only for what it uses: `from gatekit import receipt` loads neither the
    ledger, the permissions nor the API client; every lazy name still resolves; a code of a
    family whose module is not loaded yet still raises that module's exception class."""
    script = (
        "import sys\n"
        "from gatekit import receipt\n"
        "heavy = [m for m in ('gatekit.ledger', 'gatekit.permissions', 'gatekit.api_client', 'gatekit.apple',\n"
        "                     'gatekit.jws', 'gatekit.store', 'gatekit.eula') if m in sys.modules]\n"
        "assert heavy == [], heavy\n"
        "from gatekit import errors\n"
        "e = errors.error_for(-307, 'x')\n"
        "assert type(e).__name__ == 'SignatureError' and 'gatekit.jws' in sys.modules, type(e)\n"
        "e = errors.error_for(-403, 'x')\n"
        "assert type(e).__name__ == 'APITransportError', type(e)\n"
        "import gatekit\n"
        "for name in gatekit.__all__:\n"
        "    assert getattr(gatekit, name) is not None, name\n"
        "assert gatekit.Store is gatekit.store.Store and 'Store' in dir(gatekit)\n"
        "try:\n"
        "    gatekit.NoSuchThing\n"
        "except AttributeError as e:\n"
        "    assert 'NoSuchThing' in str(e)\n"
        "else:\n"
        "    raise AssertionError('a missing name resolved')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], env=os.environ.copy(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_one_convention_for_instants(tmp_path: Path):
    """GateKit's own time parameters take aware datetimes; a bare number is refused with the
    unit it would have meant, never guessed at; a naive datetime names no instant."""
    import datetime as dt
    from gatekit import jws, receipt
    verifier = jws.SignedDataVerifier("com.example", "Sandbox")
    with pytest.raises(TypeError, match=r"verify_time takes an aware datetime, not int \(for Unix seconds"):
        verifier.verify_transaction("a.b.c", verify_time=1761962975)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"at takes an aware datetime, not int \(for Unix milliseconds"):
        verifier.is_entitled("a.b.c", at=1761962975000)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="naive"):
        verifier.verify_transaction("a.b.c", verify_time=dt.datetime(2026, 1, 1))
    with pytest.raises(TypeError, match="milliseconds"):
        gatekit.Store(tmp_path / "s.sqlite").ledger.is_entitled("c", "p", environment="Sandbox", at=5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="seconds"):
        receipt.validate(b"\x30\x00", "com.example", verify_time=5)  # type: ignore[arg-type]
    # History rows give aware datetimes back.
    with gatekit.Store(tmp_path / "t.sqlite") as s:
        s.eula.accept("terms", gatekit.hash_bytes(b"x"))
        at = s.eula.history("terms")[0].at
    assert at.tzinfo is not None and abs(dt.datetime.now(dt.timezone.utc) - at) < dt.timedelta(minutes=1)


def test_a_folder_where_a_file_belongs_is_an_is_a_directory_error(tmp_path: Path):
    from gatekit import receipt
    for call in (lambda: gatekit.hash_file(tmp_path), lambda: receipt.validate_file(tmp_path, "com.example"),
                 lambda: gatekit.Store(tmp_path)):
        with pytest.raises(IsADirectoryError) as e:
            call()
        assert isinstance(e.value, gatekit.GateKitError) and "is a folder, not a file" in str(e.value)
    with gatekit.Store(tmp_path / "s.sqlite") as s:
        with pytest.raises(IsADirectoryError):
            s.eula.should_present("terms", tmp_path)


def test_receipt_validate_points_a_path_to_validate_file(tmp_path: Path):
    import inspect
    from gatekit import receipt
    path = tmp_path / "receipt"
    path.write_bytes(b"\x30\x00")
    for wrong in (str(path), "receipts/this-one.der"):
        with pytest.raises(ValueError, match=r"for a file, use validate_file\(path, bundle_id"):
            receipt.validate(wrong, "com.example")
    # validate_file shows the same keyword arguments as validate in its signature.
    def keywords(f: Any) -> List[str]:
        return [p.name for p in inspect.signature(f).parameters.values() if p.kind is p.KEYWORD_ONLY]
    assert keywords(receipt.validate_file) == keywords(receipt.validate) and "verify_time" in keywords(receipt.validate_file)
