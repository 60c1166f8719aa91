"""A private desktop session for the permission-store tests: a session bus of our own
(dbus-daemon with a config that activates nothing, so a stopped service stays stopped) and the
real xdg-permission-store from Debian's xdg-desktop-portal on it."""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import List, Optional

import pytest

STORE_BINARY = "/usr/libexec/xdg-permission-store"
SERVICE = "org.freedesktop.impl.portal.PermissionStore"
OBJECT = "/org/freedesktop/impl/portal/PermissionStore"

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={folder}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


def missing_tools() -> List[str]:
    return [t for t in ("dbus-daemon", "gdbus", STORE_BINARY) if shutil.which(t) is None]


class Desktop:
    """The bus address, and the permission store on it (stopped and started at will)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        (folder / "bus").mkdir()
        config = folder / "bus.conf"
        config.write_text(BUS_CONFIG.format(folder=folder / "bus"))
        self.daemon = subprocess.Popen(["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address=1"],
                                       stdout=subprocess.PIPE, text=True)
        assert self.daemon.stdout is not None
        self.address = self.daemon.stdout.readline().strip()
        assert self.address, "dbus-daemon printed no address"
        self.env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=self.address, XDG_DATA_HOME=str(folder / "data"))
        self.store: Optional[subprocess.Popen] = None
        self.start_store()

    def gdbus(self, *args: str) -> str:
        out = subprocess.run(["gdbus", "call", "--address", self.address, *args], env=self.env,
                             capture_output=True, text=True, timeout=30)
        if out.returncode != 0:
            raise RuntimeError(f"gdbus {' '.join(args)}: {out.stderr.strip()}")
        return out.stdout.strip()

    def store_running(self) -> bool:
        return "true" in self.gdbus("--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                                    "--method", "org.freedesktop.DBus.NameHasOwner", SERVICE)

    def start_store(self) -> None:
        self.store = subprocess.Popen([STORE_BINARY, "--replace"], env=self.env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while not self.store_running():
            if time.monotonic() > deadline or self.store.poll() is not None:
                raise RuntimeError("xdg-permission-store did not take its name on the bus")
            time.sleep(0.02)

    def stop_store(self) -> None:
        if self.store is not None:
            self.store.kill()
            self.store.wait()
            self.store = None

    def set(self, table: str, id: str, app: str, *permissions: str) -> None:
        """SetPermission(table, create, id, app, permissions): what the portals do."""
        strings = "[" + ", ".join(f"'{p}'" for p in permissions) + "]"
        self.gdbus("--dest", SERVICE, "--object-path", OBJECT, "--method", f"{SERVICE}.SetPermission",
                   table, "true", id, app, strings)

    def close(self) -> None:
        self.stop_store()
        self.daemon.kill()
        self.daemon.wait()


@pytest.fixture
def desktop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    missing = missing_tools()
    if missing:
        if os.environ.get("GATEKIT_REQUIRE_DESKTOP") == "1":
            pytest.fail(f"GATEKIT_REQUIRE_DESKTOP=1 but {', '.join(missing)} missing: run scripts/install-deps.sh")
        pytest.skip(f"no {', '.join(missing)}: the desktop permission-store tests need dbus and xdg-desktop-portal")
    d = Desktop(tmp_path)
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", d.address)
    try:
        yield d
    finally:
        d.close()
