"""perm_flow.py: the pre-prompt flow of docs/permissions.md in Python, run by the tests."""
import gatekit
from gatekit import Category, Decision, State


class Portal(gatekit.PermissionProvider):
    """Optional: the system's own answers (e.g. from xdg-desktop-portal)."""
    def system_state(self, category):
        return State.UNKNOWN            # "not determined": the stored state decides


def show_pre_prompt(category) -> Decision:
    return Decision.AUTHORIZED          # the host's UI


with gatekit.Store(app_id="org.example.app") as store:
    store.perm_set_usage_description(Category.CAMERA, "Scan QR codes on your screen.")
    store.perm_set_usage_description(Category.LOCATION_WHEN_IN_USE, "Show nearby stores.")
    store.perm_set_usage_description(Category.LOCATION_ALWAYS, "Remind you when you pass by.")
    store.perm_register_category(1_000_000, "telemetry", "Send anonymous usage statistics.")
    store.set_permission_provider(Portal())

    def on_change(category, old, new):
        print(f"{gatekit.permissions.category_name(category) or category}: {old.name} -> {new.name}")

    with store.subscribe(on_change):            # exiting the block unsubscribes
        store.perm_watch_start(interval_ms=250)  # other processes' changes, on the watcher thread
        wanted = [Category.CAMERA, Category.LOCATION_WHEN_IN_USE, Category.LOCATION_ALWAYS, 1_000_000]
        for category in store.perm_walk(wanted):     # re-evaluated after each answer
            store.perm_record(category, show_pre_prompt(category))
        if store.perm_state(Category.CAMERA) is State.AUTHORIZED:
            print("camera on")
        store.perm_watch_stop()
