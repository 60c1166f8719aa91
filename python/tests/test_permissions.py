"""Permission state through the Python package: enums, the state machine, sequencing,
providers, usage descriptions, history, callbacks (errors not lost), threads, and another
process seen through perm_refresh and the watcher."""
from __future__ import annotations

import itertools
import sys
import threading
import time
from datetime import datetime, timezone
from typing import List, Tuple

import pytest

import gatekit
from gatekit import Category, ChangeSource, Decision, State, permissions
from gatekit.permissions import ALL

from conftest import location_of, worker

EVERY = list(Category)


@pytest.fixture
def described(store):
    for c in EVERY:
        store.permissions.set_usage_description(c, f"needed for {c.name.lower()}")
    return store


def run_worker(store, category: int, decision: int) -> None:
    proc = worker("perm-record", location_of(store), str(int(category)), str(int(decision)))
    assert proc.wait(timeout=60) == 0


def test_numbers_and_names_match_the_header():
    assert [int(c) for c in Category] == [1000, 2000, 3100, 3200, 4000, 5050, 5100, 6100, 6200, 6500,
                                          7100, 7110, 7120, 7130, 8200, 8250, 8500, 9000, 10000, 11000]
    assert [int(s) for s in State] == [0, 100, 200, 403, 406, 501]
    assert [int(d) for d in Decision] == [1, 2, 3, 4]
    for c in Category:
        name = permissions.category_name(c)
        assert name == c.name.lower().replace("_", "-")
        assert permissions.category_from_name(name) is c
    assert permissions.category_name(5000) is None
    assert permissions.state_name(State.DO_NOT_ASK) == "do-not-ask"
    assert [s for s in State if permissions.allows_prompt(s)] == [State.UNKNOWN, State.ASK_AGAIN]
    assert [s for s in State if s.allows_prompt] == [State.UNKNOWN, State.ASK_AGAIN]
    assert not permissions.allows_prompt(12345)
    with pytest.raises(permissions.InvalidCategoryError):
        permissions.category_from_name("nope")


def test_invalid_categories_and_decisions(store):
    with pytest.raises(permissions.InvalidCategoryError):
        store.permissions.state(0)
    with pytest.raises(permissions.InvalidCategoryError):
        store.permissions.state(1234)
    with pytest.raises(permissions.RetiredCategoryError) as retired:
        store.permissions.state(5000)
    assert retired.value.code == -201 and "retired" in retired.value.detail
    with pytest.raises(permissions.RetiredCategoryError):
        store.permissions.record(8100, Decision.DENIED)
    with pytest.raises(permissions.InvalidCategoryError):
        store.permissions.state(1_000_000)  # host range, not registered
    with pytest.raises(permissions.InvalidCategoryError):
        store.permissions.pending([Category.CAMERA, 2**40])
    with pytest.raises(permissions.InvalidDecisionError):
        store.permissions.record(Category.CAMERA, 0)
    with pytest.raises(permissions.InvalidDecisionError):
        store.permissions.record(Category.CAMERA, State.DENIED)
    # Numbers that do not fit a C int are refused, never wrapped (2**32 + 5100 is not camera).
    with pytest.raises(permissions.InvalidCategoryError):
        store.permissions.state(2**32 + 5100)
    with pytest.raises(permissions.InvalidDecisionError):
        store.permissions.record(Category.CAMERA, 2**32 + 1)
    with pytest.raises(permissions.InvalidCategoryError):
        store.permissions.reset(-2**31 - 1)
    with pytest.raises(TypeError):
        store.permissions.state("camera")
    with pytest.raises(TypeError):
        store.permissions.record(Category.CAMERA, 1.0)
    assert permissions.category_name(2**32 + 5100) is None
    assert not permissions.allows_prompt(2**32)
    with pytest.raises(gatekit.InvalidArgumentError):
        store.permissions.set_usage_description(Category.CAMERA, "")
    with pytest.raises(ValueError):
        store.permissions.set_usage_description(Category.CAMERA, "a\0b")


@pytest.mark.parametrize("from_ask_again", [False, True])
@pytest.mark.parametrize("decision,result", [(Decision.ASK_LATER, State.ASK_AGAIN), (Decision.DONT_ASK, State.DO_NOT_ASK),
                                             (Decision.AUTHORIZED, State.AUTHORIZED), (Decision.DENIED, State.DENIED)])
def test_state_machine(described, from_ask_again, decision, result):
    c = Category.MICROPHONE
    if from_ask_again:
        described.permissions.record(c, Decision.ASK_LATER)
    described.permissions.record(c, decision)
    assert described.permissions.state(c) is result
    if not result.allows_prompt:
        for d in Decision:
            with pytest.raises(permissions.NotPromptableError):
                described.permissions.record(c, d)
        described.permissions.reset(c)
        assert described.permissions.state(c) is State.UNKNOWN


def test_usage_description_is_required_for_every_category(store):
    for c in EVERY:
        with pytest.raises(permissions.MissingUsageDescriptionError) as missing:
            store.permissions.record(c, Decision.ASK_LATER)
        assert permissions.category_name(c) in missing.value.detail
        with pytest.raises(permissions.MissingUsageDescriptionError):
            store.permissions.pending([c])
        store.permissions.set_usage_description(c, "why")
        assert store.permissions.pending([c]) == [c]


class Fixed(gatekit.PermissionProvider):
    def __init__(self, answer: int) -> None:
        self.answer = answer
        self.asked: List[int] = []

    def system_state(self, category):
        self.asked.append(int(category))
        return self.answer


def test_provider_overrides_every_category(described):
    for c in EVERY:
        described.permissions.record(c, Decision.DONT_ASK)
    provider = Fixed(State.UNKNOWN)
    described.permissions.set_provider(provider)
    assert all(described.permissions.state(c) is State.DO_NOT_ASK for c in EVERY)  # stored state read back
    for answer in (State.AUTHORIZED, State.DENIED, State.UNSUPPORTED):
        provider.answer = answer
        assert [described.permissions.state(c) for c in EVERY] == [answer] * len(EVERY)
    assert set(provider.asked) == {int(c) for c in EVERY}
    provider.answer = 406
    with pytest.raises(permissions.ProviderAnswerError):
        described.permissions.state(Category.CAMERA)
    described.permissions.set_provider(None)
    assert described.permissions.state(Category.CAMERA) is State.DO_NOT_ASK


def test_a_provider_exception_is_raised_not_lost(described):
    class Broken(gatekit.PermissionProvider):
        def system_state(self, category):
            raise RuntimeError(f"portal down for {int(category)}")

    with pytest.raises(RuntimeError, match="portal down") as raised:
        described.permissions.set_provider(Broken())  # installing asks it about every category
    with pytest.raises(permissions.ProviderAnswerError) as failed:
        described.permissions.state(Category.CAMERA)
    assert isinstance(failed.value.__cause__, RuntimeError)
    assert "5100" in str(failed.value.__cause__)
    assert len(described.permissions.errors) >= 2
    described.permissions.set_provider(None)
    assert raised.value is described.permissions.errors[0]


def test_a_provider_calling_back_in_is_refused(described):
    seen = []

    class Reentrant(gatekit.PermissionProvider):
        def system_state(self, category):
            try:
                described.permissions.record(category, Decision.DENIED)
            except permissions.ReentrantCallError as error:
                seen.append(error.code)
            return State.UNKNOWN

    described.permissions.set_provider(Reentrant())
    assert described.permissions.state(Category.HEALTH) is State.UNKNOWN
    assert seen and set(seen) == {-208}
    described.permissions.set_provider(None)


def test_sequencing_walk_never_repeats_nor_shows_unpromptable(described):
    sequence = [Category.CAMERA, Category.LOCATION_WHEN_IN_USE, Category.CAMERA, Category.LOCATION_ALWAYS,
                Category.MICROPHONE, Category.LOCATION_WHEN_IN_USE]
    for answers in itertools.product(list(Decision), repeat=3):
        described.permissions.reset(ALL)
        shown = []
        replies = iter(answers)
        for c in described.permissions.walk(sequence):
            assert c not in shown
            assert described.permissions.state(c).allows_prompt
            shown.append(c)
            reply = next(replies, None)
            if reply is None:
                break
            described.permissions.record(c, reply)
        if answers[1] in (Decision.DENIED, Decision.DONT_ASK):
            assert Category.LOCATION_ALWAYS not in shown
            with pytest.raises(permissions.BlockedCategoryError):
                described.permissions.record(Category.LOCATION_ALWAYS, Decision.AUTHORIZED)


def test_pending_keeps_order_and_skips(described):
    described.permissions.record(Category.CONTACTS, Decision.DONT_ASK)
    assert described.permissions.pending([Category.CONTACTS, Category.CAMERA, Category.CAMERA, Category.SIRI]) == \
        [Category.CAMERA, Category.SIRI]
    assert described.permissions.pending([]) == []
    described.permissions.record(Category.CAMERA, Decision.AUTHORIZED)
    described.permissions.record(Category.SIRI, Decision.DENIED)
    assert described.permissions.pending([Category.CONTACTS, Category.CAMERA, Category.SIRI]) == []
    assert described.permissions.next([Category.CAMERA]) is None


def test_reset_one_and_all_and_history(described):
    described.permissions.record(Category.CAMERA, Decision.DONT_ASK)
    described.permissions.record(Category.EVENTS, Decision.DENIED)
    described.permissions.reset(Category.CAMERA)
    assert described.permissions.state(Category.CAMERA) is State.UNKNOWN
    assert described.permissions.state(Category.EVENTS) is State.DENIED
    described.permissions.reset()
    assert described.permissions.state(Category.EVENTS) is State.UNKNOWN
    rows = [(h.category, h.from_state, h.to_state, h.source) for h in described.permissions.history()]
    assert rows == [(Category.CAMERA, State.UNKNOWN, State.DO_NOT_ASK, ChangeSource.USER),
                    (Category.EVENTS, State.UNKNOWN, State.DENIED, ChangeSource.SYSTEM),
                    (Category.CAMERA, State.DO_NOT_ASK, State.UNKNOWN, ChangeSource.RESET),
                    (Category.EVENTS, State.DENIED, State.UNKNOWN, ChangeSource.RESET)]
    assert all(type(h.from_state) is State and type(h.source) is ChangeSource for h in described.permissions.history())
    camera = described.permissions.history(Category.CAMERA)
    assert [h.name for h in camera] == ["camera", "camera"]
    # Instants are aware datetimes, in order, within the last minute.
    assert camera[0].at.tzinfo is not None and camera[0].at <= camera[1].at
    assert abs((datetime.now(timezone.utc) - camera[1].at).total_seconds()) < 60


def test_host_categories(store):
    store.permissions.register_category(1_000_000, "telemetry", "Send anonymous statistics")
    store.permissions.register_category(1_000_000, "telemetry", "Send anonymous statistics")
    with pytest.raises(permissions.CategoryConflictError):
        store.permissions.register_category(1_000_000, "crash-reports", "x")
    with pytest.raises(permissions.CategoryConflictError):
        store.permissions.register_category(1_000_001, "camera", "x")
    with pytest.raises(gatekit.InvalidArgumentError):
        store.permissions.register_category(1_000_001, "Bad Name", "x")
    assert store.permissions.category_from_name("telemetry") == 1_000_000
    assert store.permissions.category_from_name("camera") is Category.CAMERA
    store.permissions.record(1_000_000, Decision.DONT_ASK)
    assert store.permissions.state(1_000_000) is State.DO_NOT_ASK
    listed = {entry["name"]: entry for entry in store.permissions.list()}
    assert listed["telemetry"]["state"] == 406 and listed["telemetry"]["host"] is True
    assert listed["camera"]["usage_description"] is None


def test_subscribe_reentrant_callbacks_and_unsubscribe_inside(described):
    changes: List[Tuple[int, int, int]] = []
    once: List[Tuple[int, int, int]] = []

    def reenter(category, old, new):
        changes.append((category, old, new))
        assert described.permissions.state(category) == new  # calls back in
        if category == Category.CAMERA and new == State.ASK_AGAIN:
            described.permissions.record(Category.MICROPHONE, Decision.ASK_LATER)

    subscription = described.permissions.subscribe(reenter)
    holder = {}

    def only_once(category, old, new):
        once.append((category, old, new))
        holder["sub"].unsubscribe()

    holder["sub"] = described.permissions.subscribe(only_once)
    described.permissions.record(Category.CAMERA, Decision.ASK_LATER)
    assert changes == [(Category.CAMERA, State.UNKNOWN, State.ASK_AGAIN),
                       (Category.MICROPHONE, State.UNKNOWN, State.ASK_AGAIN)]
    assert len(once) == 1
    assert isinstance(changes[0][1], State)
    subscription()
    subscription()  # idempotent
    described.permissions.reset()
    assert len(changes) == 2


def test_callback_exceptions_are_raised_on_the_calling_thread(described):
    def broken(category, old, new):
        raise KeyError(f"bad callback {int(category)}")

    with described.permissions.subscribe(broken):
        with pytest.raises(KeyError, match="bad callback 5100"):
            described.permissions.record(Category.CAMERA, Decision.DENIED)
    assert described.permissions.state(Category.CAMERA) is State.DENIED  # the change happened
    assert isinstance(described.permissions.errors[-1], KeyError)


def test_another_process_seen_on_refresh_and_by_the_watcher(described, tmp_path):
    changes: List[Tuple[int, int, int, str]] = []
    arrived = threading.Event()

    def on_change(category, old, new):
        changes.append((int(category), int(old), int(new), threading.current_thread().name))
        arrived.set()

    described.permissions.subscribe(on_change)
    run_worker(described, Category.CAMERA, Decision.DONT_ASK)
    assert described.permissions.state(Category.CAMERA) is State.DO_NOT_ASK  # coherent at once
    assert changes == []
    described.permissions.refresh()
    assert changes == [(5100, 0, 406, threading.current_thread().name)]

    arrived.clear()
    described.permissions.watch_start(interval_ms=10)
    with pytest.raises(permissions.WatcherRunningError):
        described.permissions.watch_start(interval_ms=10)
    run_worker(described, Category.MICROPHONE, Decision.AUTHORIZED)
    assert arrived.wait(10)
    assert changes[1][:3] == (4000, 0, 200)
    assert changes[1][3] != threading.current_thread().name  # the watcher's thread
    assert described.permissions.watch_stop() is True
    assert described.permissions.watch_stop() is False


def test_watcher_callback_errors_are_reported(described):
    reported: List[BaseException] = []
    done = threading.Event()

    def broken(category, old, new):
        raise ValueError("from the watcher")

    def on_error(error):
        reported.append(error)
        done.set()

    described.permissions.subscribe(broken)
    described.permissions.watch_start(interval_ms=10, on_error=on_error)
    run_worker(described, Category.SIRI, Decision.DENIED)
    assert done.wait(10)
    described.permissions.watch_stop()
    assert isinstance(reported[0], ValueError) and reported[0] is described.permissions.errors[-1]


def test_watcher_errors_without_handler_go_to_unraisablehook(described, monkeypatch):
    hooked = []
    done = threading.Event()

    def hook(args):
        hooked.append(args.exc_value)
        done.set()

    monkeypatch.setattr(sys, "unraisablehook", hook)
    described.permissions.subscribe(lambda c, o, n: 1 / 0)
    described.permissions.watch_start(interval_ms=10)
    run_worker(described, Category.REMINDERS, Decision.DENIED)
    assert done.wait(10)
    described.permissions.watch_stop()
    assert isinstance(hooked[0], ZeroDivisionError)


def test_sixteen_threads_record_and_read(described):
    for i in range(16):
        described.permissions.register_category(3_000_000 + i, f"worker-{i}", "thread test")
    counted = []
    lock = threading.Lock()

    def count(category, old, new):
        with lock:
            counted.append(category)

    described.permissions.subscribe(count)
    failures = []
    rounds = 10

    def work(i):
        c = 3_000_000 + i
        try:
            for _ in range(rounds):
                described.permissions.record(c, Decision.ASK_LATER)
                assert described.permissions.state(c) is State.ASK_AGAIN
                described.permissions.record(c, Decision.DONT_ASK)
                with pytest.raises(permissions.NotPromptableError):
                    described.permissions.record(c, Decision.DENIED)
                for b in EVERY:
                    described.permissions.state(b)
                described.permissions.reset(c)
        except BaseException as error:  # reported below
            failures.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert len(counted) == 16 * rounds * 3
    assert len(described.permissions.history(3_000_007)) == rounds * 3


def test_persistence_across_processes(open_store):
    with open_store("persist") as s:
        s.permissions.set_usage_description(Category.CAMERA, "why")
        run_worker(s, Category.CAMERA, Decision.DONT_ASK)
    with open_store("persist") as s:
        assert s.permissions.state(Category.CAMERA) is State.DO_NOT_ASK
        assert s.permissions.pending([Category.CAMERA]) == []
        assert [h.source for h in s.permissions.history(Category.CAMERA)] == [ChangeSource.USER]


def test_closing_with_a_running_watcher(open_store):
    s = open_store("w")
    s.permissions.subscribe(lambda c, o, n: None)
    s.permissions.watch_start(interval_ms=5, provider=True)
    time.sleep(0.05)
    s.close()
    s.close()
    with pytest.raises(ValueError):
        s.permissions.state(Category.CAMERA)


def _tool():
    import os
    from conftest import REPO_ROOT
    tool = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))
    if not os.path.exists(tool):
        pytest.skip(f"the gatekit tool is not built at {tool} (make tool)")
    return tool


def test_the_tool_records_and_watches(tmp_path):
    import subprocess
    from conftest import child_env
    tool = _tool()
    path = tmp_path / "tool.sqlite"
    env = dict(child_env(), GATEKIT_STORE=str(path))

    def run(*args):
        return subprocess.run([tool, "perm", *args], env=env, capture_output=True, text=True, timeout=60)

    assert run("usage", "camera", "Scan codes").returncode == 0
    assert run("state", "camera").stdout.startswith("camera 5100 unknown (0)")
    assert run("record", "camera", "dont-ask").returncode == 0
    assert run("state", "camera").returncode == 3
    with gatekit.Store(path) as s:
        assert s.permissions.state(Category.CAMERA) is State.DO_NOT_ASK
        s.permissions.set_usage_description(Category.MICROPHONE, "Voice notes")
    assert run("pending", "camera", "microphone").stdout == "microphone 4000\n"
    assert run("record", "5000", "denied").returncode == 1
    assert run("record", "camera", "maybe").returncode == 2
    watch = subprocess.Popen([tool, "perm", "watch", "--count", "1", "--timeout", "20", "--interval", "10"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    with gatekit.Store(path) as s:
        s.permissions.record(Category.MICROPHONE, Decision.AUTHORIZED)
    out, _ = watch.communicate(timeout=30)
    assert watch.returncode == 0
    assert "microphone 4000: unknown (0) -> authorized (200)" in out
    history = run("history", "--json")
    assert '"source":"system"' in history.stdout and '"source":"user"' in history.stdout


def test_the_interpreter_exits_cleanly_with_a_watcher_running(tmp_path):
    import subprocess
    from conftest import child_env
    script = (
        "import gatekit, sys\n"
        f"s = gatekit.Store({str(tmp_path / 'exit.sqlite')!r})\n"
        "s.permissions.subscribe(lambda c, o, n: None)\n"
        "s.permissions.set_provider(gatekit.PermissionProvider())\n"
        "s.permissions.watch_start(interval_ms=1, provider=True)\n"
        "print('exiting')\n"
    )
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", script], env=child_env(), capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout == "exiting\n"
