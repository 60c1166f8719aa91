"""perm_flow.py: the pre-prompt flow of docs/permissions.md in Python, run by the tests."""
from typing import Union

import gatekit
from gatekit import Category, Decision, State
from gatekit.permissions import CategoryLike


class Portal(gatekit.PermissionProvider):
    """Optional: the system's own answers (e.g. from xdg-desktop-portal)."""
    def system_state(self, category: CategoryLike) -> int:
        return State.UNKNOWN            # "not determined": the stored state decides


def show_pre_prompt(category: CategoryLike) -> Decision:
    return Decision.AUTHORIZED          # the host's UI


with gatekit.Store(app_id="org.example.app") as store:
    store.permissions.set_usage_description(Category.CAMERA, "Scan QR codes on your screen.")
    store.permissions.set_usage_description(Category.LOCATION_WHEN_IN_USE, "Show nearby stores.")
    store.permissions.set_usage_description(Category.LOCATION_ALWAYS, "Remind you when you pass by.")
    store.permissions.register_category(1_000_000, "telemetry", "Send anonymous usage statistics.")
    store.permissions.set_provider(Portal())

    def on_change(category: CategoryLike, old: Union[State, int], new: Union[State, int]) -> None:
        def name(state: Union[State, int]) -> str:
            return state.name if isinstance(state, State) else str(state)
        print(f"{gatekit.permissions.category_name(category) or category}: {name(old)} -> {name(new)}")

    with store.permissions.subscribe(on_change):            # exiting the block unsubscribes
        store.permissions.watch_start(interval_ms=250)  # other processes' changes, on the watcher thread
        wanted = [Category.CAMERA, Category.LOCATION_WHEN_IN_USE, Category.LOCATION_ALWAYS, 1_000_000]
        for category in store.permissions.walk(wanted):     # re-evaluated after each answer
            store.permissions.record(category, show_pre_prompt(category))
        if store.permissions.state(Category.CAMERA) is State.AUTHORIZED:
            print("camera on")
        store.permissions.watch_stop()
