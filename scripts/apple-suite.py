"""Apple's own test suite for its App Store Server Library (release 3.1.1, in
../shared/fixtures/apple-library-tests/), run against ``gatekit.apple`` with the imports
renamed mechanically (``appstoreserverlibrary`` -> ``gatekit.apple``, nothing else), or
against Apple's library itself as the reference. It measures issue 27 (the drop-in): per
test file, whether it imports and how many of its tests pass.

    python3 scripts/apple-suite.py [--apple] [-k EXPR] [--show]

It prints one line per file and the totals, and exits 0 (a measurement, not a gate: make test
will run the suite once it passes). GATEKIT_FIXTURES names the fixtures folder.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(os.environ.get("GATEKIT_FIXTURES", ROOT.parent / "shared" / "fixtures"))
SUITE = FIXTURES / "apple-library-tests"

#: Apple's test helpers that reach into private members of Apple's classes, each replaced by its
#: public equivalent (docs/appstore.md lists them). Never a test's logic or expected values.
HELPERS = [
    # get_signed_data_verifier() turns off the strict checks of Apple's private _ChainVerifier
    # ("We don't have authority identifiers on test certs"); GateKit's verifier needs no switch
    # for Apple's test root, so the helper builds the verifier and returns it as it is.
    ("util.py", "    verifier._chain_verifier.enable_strict_checks = False", ""),
] + [
    # get_client_with_body() patches the client's private _execute_request with a function that
    # asserts the request and returns a canned answer. GateKit's requests are made by libcurl, so
    # the client is pointed (public base_url / ca_file) at an HTTPS stand-in on loopback that
    # hands each request, as it arrived, to the same function (Tests/standin/apple_suite_standin.py).
    (name, f"        client = {cls}(signing_key, 'keyId', 'issuerId', 'com.example', Environment.LOCAL_TESTING)",
     "        from tests.gatekit_standin import standin\n"
     f"        client = {cls}(signing_key, 'keyId', 'issuerId', 'com.example', Environment.LOCAL_TESTING, **standin().client_options())")
    for name, cls in (("test_api_client.py", "AppStoreServerAPIClient"), ("test_api_client_async.py", "AsyncAppStoreServerAPIClient"))
] + [
    (name, "        client._execute_request = fake_execute_and_validate_inputs",
     "        client = standin().route(fake_execute_and_validate_inputs, client)")
    for name in ("test_api_client.py", "test_api_client_async.py")
] + [
    # test_x509_verifiction.py tests Apple's private _ChainVerifier directly: the same
    # constructor and verify_chain, made by GateKit's public gatekit.jws.verify_chain
    # (Tests/standin/apple_suite_chain.py).
    ("test_x509_verifiction.py",
     "from gatekit.apple.signed_data_verifier import _ChainVerifier, VerificationException, VerificationStatus",
     "from gatekit.apple.signed_data_verifier import VerificationException, VerificationStatus\n"
     "from tests.gatekit_chain import _ChainVerifier"),
    # Two decoded-payload tests replace the verifier's private _verify_notification (its check of
    # the app and environment) with their own: GateKit's public notification_subject feeds it
    # instead (Tests/standin/apple_suite_subject.py).
    ("test_decoded_payloads.py", "        signed_data_verifier._verify_notification = check_environment_and_bundle_id",
     "        from tests.gatekit_subject import SubjectCheckedVerifier\n"
     "        signed_data_verifier = SubjectCheckedVerifier(signed_data_verifier, check_environment_and_bundle_id)"),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apple", action="store_true", help="run the suite unchanged against Apple's library")
    parser.add_argument("-k", default=None, help="a pytest -k expression")
    parser.add_argument("--show", action="store_true", help="print pytest's own report too (what failed, and why)")
    args = parser.parse_args()
    if not (SUITE / "tests").is_dir():
        print(f"apple-suite: {SUITE} not found: set GATEKIT_FIXTURES", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="gatekit-apple-suite-") as scratch:
        tests = Path(scratch) / "tests"
        shutil.copytree(SUITE / "tests", tests)
        shutil.copy(ROOT / "Tests" / "standin" / "apple_suite_standin.py", tests / "gatekit_standin.py")
        shutil.copy(ROOT / "Tests" / "standin" / "apple_suite_chain.py", tests / "gatekit_chain.py")
        shutil.copy(ROOT / "Tests" / "standin" / "apple_suite_subject.py", tests / "gatekit_subject.py")
        if not args.apple:
            for path in tests.glob("*.py"):
                path.write_text(re.sub(r"\bappstoreserverlibrary\b", "gatekit.apple", path.read_text()))
            for name, line, replacement in HELPERS:
                path = tests / name
                text = path.read_text()
                if line not in text:
                    print(f"apple-suite: {name} no longer has the helper line {line.strip()!r}", file=sys.stderr)
                    return 2
                path.write_text(text.replace(line, replacement))
        path = [str(ROOT / "python"), str(ROOT / "Tests" / "standin"), os.environ.get("PYTHONPATH", "")]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in path if p))
        command = [sys.executable, "-m", "pytest", "-q", "-rN", "--no-header", "-p", "no:cacheprovider", "--continue-on-collection-errors", "tests",
                   "--junitxml", str(Path(scratch) / "report.xml")] + (["-k", args.k] if args.k else [])
        done = subprocess.run(command, cwd=scratch, env=env, capture_output=True, text=True)
        if args.show:
            print(done.stdout + done.stderr)
        return report(Path(scratch) / "report.xml", "Apple's library" if args.apple else "gatekit.apple")


def report(xml: Path, against: str) -> int:
    import xml.etree.ElementTree as ET
    files: dict = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        dotted = (case.get("classname") or case.get("name") or "?").split(".")
        module = dotted[1] if len(dotted) > 1 else dotted[0]
        entry = files.setdefault(module, {"passed": 0, "failed": 0, "skipped": 0, "import": ""})
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
                message = child.get("message") or ""
                if "collection failure" in message or not case.get("classname"):
                    text = (child.text or message).strip().splitlines()
                    entry["import"] = (text[-1] if text else message)[:160]
            elif child.tag == "skipped":
                outcome = "skipped"
        entry[outcome] += 1
    total = {"passed": 0, "failed": 0, "skipped": 0}
    print(f"Apple's suite (release 3.1.1) against {against}:")
    for module in sorted(files):
        e = files[module]
        for k in total:
            total[k] += e[k]
        state = f"does not import: {e['import']}" if e["import"] and e["passed"] == 0 else \
            f"{e['passed']} passed, {e['failed']} failed, {e['skipped']} skipped"
        print(f"  {module}: {state}")
    print(f"total: {total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
